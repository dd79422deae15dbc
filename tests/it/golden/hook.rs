//! Golden tests for the readable escaping (`render::Escape::Readable`):
//! `golden/hook/gemini_<case>.txt` is what Gemini CLI's model reads for the
//! input of `golden/render/<case>.json` — rendered so, not un-escaped
//! afterwards (messages with their own characters, the block still
//! delimited). `SQUIGGLE_BLESS=1 cargo test --test it golden::hook`
//! rewrites them.

use std::fs;
use std::path::Path;

use serde::Deserialize;
use squiggle::render::{Escape, FileDiagnostics, RenderOptions, render_feedback};

/// The part of a render case these cases use.
#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    edited: Vec<FileDiagnostics>,
    #[serde(default)]
    others: Vec<FileDiagnostics>,
    #[serde(default)]
    options: RenderOptions,
}

#[test]
fn gemini_readable_golden() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let bless = std::env::var_os("SQUIGGLE_BLESS").is_some_and(|v| v == "1");
    let mut failed = Vec::new();
    for case in ["escaping", "multi_line", "non_ascii"] {
        let input = fs::read_to_string(root.join(format!("render/{case}.json")))
            .unwrap_or_else(|e| panic!("render/{case}.json: {e}"));
        let mut case_input: Case =
            serde_json::from_str(&input).unwrap_or_else(|e| panic!("render/{case}.json: {e}"));
        case_input.options.escape = Escape::Readable;
        let actual = render_feedback(&case_input.edited, &case_input.others, &case_input.options);
        let path = root.join(format!("hook/gemini_{case}.txt"));
        if bless {
            fs::write(&path, &actual).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
            continue;
        }
        let expected = fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; run with SQUIGGLE_BLESS=1", path.display()));
        if actual != expected {
            failed.push(format!(
                "{case}:\n--- expected\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
