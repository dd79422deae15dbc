//! Golden tests for hook-specific renderings: `golden/hook/gemini_<case>.txt`
//! is what Gemini CLI's model reads for the block in
//! `golden/render/<case>.txt` (messages with their own characters back,
//! the block still delimited; `src/cli/hook/gemini_model.rs`).
//! `SQUIGGLE_BLESS=1 cargo test --test it golden::hook` rewrites them.

use std::fs;
use std::path::Path;

use squiggle::cli::hook::gemini_readable;

#[test]
fn gemini_readable_golden() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let bless = std::env::var_os("SQUIGGLE_BLESS").is_some_and(|v| v == "1");
    let mut failed = Vec::new();
    for case in ["escaping", "multi_line", "non_ascii"] {
        let input = fs::read_to_string(root.join(format!("render/{case}.txt")))
            .unwrap_or_else(|e| panic!("render/{case}.txt: {e}"));
        let actual = gemini_readable(&input);
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
