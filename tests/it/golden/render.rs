//! Golden tests for the rendered diagnostics block.
//!
//! Each `golden/render/<case>.json` holds the renderer's input and
//! `<case>.txt` the exact text the model must see. A case with `files` runs
//! `render_files`; otherwise `edited`, `others` and `unknown` run
//! `render_reply`, under the lines of `auto_fixes` (`with_auto_fixes`) when
//! it has any; `hidden` adds the count of what ignore rules and
//! acknowledgements hid.
//! `SQUIGGLE_BLESS=1 cargo test --test it golden::render` rewrites the `.txt`
//! files from the current output; read the diff before committing it.

use std::fs;
use std::path::Path;

use serde::Deserialize;
use squiggle::hidden::HiddenCount;
use squiggle::render::{
    AutoFix, FileDiagnostics, RenderOptions, Unknown, render_files, render_reply, with_auto_fixes,
    with_hidden,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    #[serde(default)]
    edited: Vec<FileDiagnostics>,
    #[serde(default)]
    others: Vec<FileDiagnostics>,
    files: Option<Vec<FileDiagnostics>>,
    /// What is not known: the line after the blocks.
    #[serde(default)]
    unknown: Vec<Unknown>,
    #[serde(default)]
    options: RenderOptions,
    /// What auto-fix did, rendered above the blocks as a reply after an
    /// edit carries it.
    #[serde(default)]
    auto_fixes: Vec<AutoFix>,
    /// How many diagnostics ignore rules and acknowledgements hid: the
    /// line after everything else (`with_hidden`).
    #[serde(default)]
    hidden: HiddenCount,
}

fn render(input: &Path) -> String {
    let json = fs::read_to_string(input).unwrap();
    let case: Case = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{}: invalid case: {e}", input.display()));
    let text = match &case.files {
        Some(files) => render_files(files, &case.options),
        None => {
            let feedback = render_reply(&case.edited, &case.others, &case.unknown, &case.options);
            with_auto_fixes(&case.auto_fixes, case.options.escape, feedback)
        }
    };
    with_hidden(text, case.hidden)
}

#[test]
fn golden_render() {
    super::check_cases("golden/render", render);
}
