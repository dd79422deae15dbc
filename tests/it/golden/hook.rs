//! Golden tests for the readable escaping (`render::Escape::Readable`):
//! `golden/hook/gemini_<case>.txt` is what Gemini CLI's model reads for the
//! input of `golden/render/<case>.json` — rendered so, not un-escaped
//! afterwards (messages with their own characters, the block still
//! delimited). `SQUIGGLE_BLESS=1 cargo test --test it golden::hook`
//! rewrites them.

use super::Golden;
use std::fs;

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
    let mut golden = Golden::new();
    for case in ["escaping", "multi_line", "non_ascii"] {
        let path = super::root().join(format!("golden/render/{case}.json"));
        let input = fs::read_to_string(&path).unwrap_or_else(|e| panic!("render/{case}.json: {e}"));
        let mut case_input: Case =
            serde_json::from_str(&input).unwrap_or_else(|e| panic!("render/{case}.json: {e}"));
        case_input.options.escape = Escape::Readable;
        let actual = render_feedback(&case_input.edited, &case_input.others, &case_input.options);
        golden.compare(&format!("golden/hook/gemini_{case}.txt"), &actual);
    }
    golden.finish();
}
