//! `parse_patch` and `plan_patch` over arbitrary text: never a panic, and a
//! plan only names paths the patch named. The input is split at the first
//! NUL: before it the patch, after it the text every existing file holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use squiggle::edit::{PlannedChange, parse_patch, plan_patch};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (patch_text, file_text) = text.split_once('\0').unwrap_or((&text, "a\nb\nc\n"));
    let Ok(patch) = parse_patch(patch_text) else {
        return;
    };
    let named: Vec<String> = patch.paths().iter().map(|p| p.to_string()).collect();
    let Ok(planned) = plan_patch(&patch, |path| {
        if path.len() % 3 == 0 {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                path.to_string(),
            ))
        } else {
            Ok(file_text.to_string())
        }
    }) else {
        return;
    };
    for change in &planned {
        let paths: Vec<&String> = match change {
            PlannedChange::Write { path, .. } | PlannedChange::Delete { path } => vec![path],
            PlannedChange::Rename { from, to, .. } => vec![from, to],
        };
        for path in paths {
            assert!(named.contains(path), "{path:?} is not in {named:?}");
        }
    }
});
