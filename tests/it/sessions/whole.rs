//! A session's answers are about the whole change, against real pyright on
//! `tests/fixtures/mcp/py` (`main.py` imports `total_area` from
//! `shapes.py` and has one old error): a commit that renames the import
//! before the definition (the files go in path order, `main.py` first)
//! reports no false error, run after run; a commit names the importers it
//! broke; and a session's text agrees with its `newErrors`, measured
//! against the disk when the session opened, not against its last step.

use std::sync::Arc;

use squiggle::baseline::Classification;
use squiggle::engine::Engine;

use super::{me, replace};
use crate::support;
use crate::support::matrix::{engine, fixture};

const SHAPES: &str = "py/shapes.py";
const MAIN: &str = "py/main.py";
const RUNS: usize = 20;

/// The commit of a session over both files renaming `from` to `to` in
/// the import, the call and the definition.
async fn commit_rename(
    engine: &Arc<Engine>,
    from: &str,
    to: &str,
) -> squiggle::engine::tools::ToolResult {
    let id = engine
        .session_open(me(), &[SHAPES.into(), MAIN.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"))
        .session;
    let edits = [
        replace(
            MAIN,
            &format!("import Square, {from}"),
            &format!("import Square, {to}"),
        ),
        replace(MAIN, &format!("print({from}("), &format!("print({to}(")),
        replace(SHAPES, &format!("def {from}("), &format!("def {to}(")),
    ];
    engine
        .session_edit(me(), &id, &edits, false)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    engine
        .session_commit(me(), &id)
        .await
        .unwrap_or_else(|e| panic!("commit: {e}"))
}

#[tokio::test]
async fn an_importer_first_commit_reports_no_false_error_run_after_run() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("mcp");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    let names = ["total_area", "sum_area"];
    let mut results = Vec::new();
    for run in 0..RUNS {
        let (from, to) = (names[run % 2], names[(run + 1) % 2]);
        results.push(commit_rename(&engine, from, to).await);
    }
    engine.shutdown().await;
    for (run, result) in results.iter().enumerate() {
        assert_eq!(
            result.classification,
            Classification::BaselineError,
            "run {run} of {RUNS}: {}",
            result.text()
        );
        assert!(
            !result.feedback.contains("unknown import symbol"),
            "run {run}: {}",
            result.text()
        );
    }
}

#[tokio::test]
async fn a_commit_names_the_importers_it_broke() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("mcp");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    let id = engine
        .session_open(me(), &[SHAPES.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"))
        .session;
    let rename = replace(SHAPES, "def total_area(", "def sum_area(");
    engine
        .session_edit(me(), &id, &[rename], false)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    let committed = engine
        .session_commit(me(), &id)
        .await
        .unwrap_or_else(|e| panic!("commit: {e}"));
    engine.shutdown().await;
    assert_eq!(committed.other_files, [MAIN], "{}", committed.text());
    assert_eq!(committed.classification, Classification::NewErrors);
    assert!(
        committed.feedback.contains("total_area"),
        "{}",
        committed.text()
    );
}

#[tokio::test]
async fn a_sessions_text_agrees_with_its_new_errors() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("mcp");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    let id = engine
        .session_open(me(), &[SHAPES.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"))
        .session;
    // Step 1 breaks the importer; step 2 changes nothing it sees. After
    // step 2 the importer's errors are still new against the session's
    // start, and the text must say so too.
    let steps = [
        replace(SHAPES, "def total_area(", "def sum_area("),
        replace(
            SHAPES,
            "\"\"\"Shapes with areas.\"\"\"",
            "\"\"\"Shapes, with areas.\"\"\"",
        ),
    ];
    let chain = engine
        .session_chain(me(), &id, &steps, false)
        .await
        .unwrap_or_else(|e| panic!("chain: {e}"));
    engine.shutdown().await;
    let last = chain.steps.last().unwrap_or_else(|| panic!("no step"));
    assert!(
        last.new_errors.iter().any(|d| d.file == MAIN),
        "{}",
        chain.text()
    );
    let result = chain.result.unwrap_or_else(|| panic!("no result"));
    assert!(
        result
            .feedback
            .contains(&format!("<diagnostics file=\"{MAIN}\">")),
        "the text hides what newErrors calls new:\n{}",
        result.text()
    );
    assert!(result.feedback.contains("total_area"), "{}", result.text());
    // Only `main.py`'s old error was there before: counted, not shown.
    for plural in ["errors in", "diagnostics in"] {
        assert!(!result.feedback.contains(plural), "{}", result.text());
    }
}
