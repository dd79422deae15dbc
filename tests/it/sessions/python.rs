//! Sessions against real pyright on `tests/fixtures/mcp/py`: `main.py`
//! imports `total_area` from `shapes.py` and has one error of its own
//! (`broken: int = "not an int"`), which is the baseline's.

use std::sync::Arc;

use squiggle::baseline::Classification;
use squiggle::diagnostic::Severity;
use squiggle::engine::{Engine, FileInput, HeldOthers};
use squiggle::sessions::{Edit, SessionError};

use super::{errors, me, replace, stamp};
use crate::support;
use crate::support::matrix::{engine, fixture};

const SHAPES: &str = "py/shapes.py";
const MAIN: &str = "py/main.py";
const OLD_ERROR: &str = "not an int";

/// pyright's errors for `main.py` as it is on disk, checked now.
async fn on_disk(engine: &Arc<Engine>, root: &std::path::Path) -> Vec<String> {
    let report = engine
        .check_files(vec![FileInput::on_disk(root.join(MAIN))], HeldOthers::Skip)
        .await;
    report.files[0]
        .diagnostics
        .iter()
        .filter(|d| d.server == "pyright" && d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

#[tokio::test]
async fn pyright_sees_the_session_the_disk_does_not_until_commit() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("mcp");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    let (shapes, main) = (root.join(SHAPES), root.join(MAIN));
    let before = (stamp(&shapes), stamp(&main));

    let opened = engine
        .session_open(me(), &[SHAPES.into(), MAIN.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"));
    let id = opened.session.clone();
    let baseline = opened.result.unwrap_or_else(|| panic!("no baseline"));
    assert_eq!(baseline.classification, Classification::BaselineError);
    let found: Vec<_> = baseline
        .diagnostics
        .iter()
        .map(|d| d.diagnostic.clone())
        .collect();
    assert_eq!(errors(&found, "pyright", MAIN, OLD_ERROR).len(), 1);

    // Renaming the function breaks its importer, in the session only.
    let rename = replace(SHAPES, "def total_area(", "def sum_area(");
    let edited = engine
        .session_edit(me(), &id, &[rename], true)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    let new: Vec<_> = edited
        .new_errors
        .iter()
        .map(|d| (d.file.as_str(), d.line))
        .collect();
    assert_eq!(new, [(MAIN, 1)], "{:#?}", edited.new_errors);
    assert!(edited.new_errors[0].message.contains("total_area"));
    let result = edited.result.unwrap_or_else(|| panic!("no result"));
    assert_eq!(result.classification, Classification::NewErrors);
    assert!(result.dry_run);
    assert_eq!(
        (stamp(&shapes), stamp(&main)),
        before,
        "the disk was touched"
    );

    // Between its calls the servers answer for the disk, not the session.
    assert_eq!(on_disk(&engine, &root).await.len(), 1);
    assert!(on_disk(&engine, &root).await[0].contains(OLD_ERROR));

    // A chain stops after the step that adds errors: the import renamed,
    // the call not yet.
    let steps = [
        replace(MAIN, "import Square, total_area", "import Square, sum_area"),
        replace(MAIN, "print(total_area(", "print(sum_area("),
    ];
    let chain = engine
        .session_chain(me(), &id, &steps, true)
        .await
        .unwrap_or_else(|e| panic!("chain: {e}"));
    assert_eq!(chain.stopped_at, Some(1), "{}", chain.text());
    assert_eq!(chain.steps.len(), 1);
    assert!(chain.steps[0].new_errors.iter().all(|d| d.file == MAIN));
    assert!(!chain.steps[0].new_errors.is_empty());
    // The rest of the change, evaluated: nothing new, the old error stays old.
    let fixed = engine
        .session_edit(me(), &id, &steps[1..], true)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    assert!(fixed.new_errors.is_empty(), "{:#?}", fixed.new_errors);
    let result = fixed.result.unwrap_or_else(|| panic!("no result"));
    assert_eq!(result.classification, Classification::BaselineError);
    assert_eq!(
        (stamp(&shapes), stamp(&main)),
        before,
        "the disk was touched"
    );

    // Commit writes both files, as apply_patch would, and closes it.
    let committed = engine
        .session_commit(me(), &id)
        .await
        .unwrap_or_else(|e| panic!("commit: {e}"));
    assert_eq!(committed.classification, Classification::BaselineError);
    assert!(committed.message.contains("2 file(s) written"));
    let main_text = std::fs::read_to_string(&main).unwrap_or_default();
    assert!(main_text.contains("import Square, sum_area") && main_text.contains("print(sum_area("));
    assert!(
        std::fs::read_to_string(&shapes)
            .unwrap_or_default()
            .contains("def sum_area(")
    );
    assert!(matches!(
        engine.session_evaluate(me(), &id).await,
        Err(SessionError::Unknown { .. })
    ));
    engine.shutdown().await;
}

#[tokio::test]
async fn discard_leaves_pyright_answering_for_the_disk() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("mcp");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    let shapes = root.join(SHAPES);
    let before = stamp(&shapes);

    // A session over shapes.py only: its importer is reported as another file.
    let id = engine
        .session_open(me(), &[SHAPES.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"))
        .session;
    let whole = std::fs::read_to_string(&shapes)
        .unwrap_or_default()
        .replace("class Square(", "class Cube(");
    let write = Edit::Write {
        path: SHAPES.into(),
        content: whole,
    };
    let edited = engine
        .session_edit(me(), &id, &[write], true)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    assert!(
        !errors(&edited.new_errors, "pyright", MAIN, "Square").is_empty(),
        "{:#?}",
        edited.new_errors
    );
    assert!(errors(&edited.new_errors, "pyright", MAIN, OLD_ERROR).is_empty());
    let discarded = engine
        .session_discard(me(), &id)
        .await
        .unwrap_or_else(|e| panic!("discard: {e}"));
    assert!(discarded.message.contains("nothing was written"));
    assert_eq!(stamp(&shapes), before, "the disk was touched");
    let now = on_disk(&engine, &root).await;
    assert_eq!(now.len(), 1, "{now:?}");
    assert!(now[0].contains(OLD_ERROR), "{now:?}");

    // A file changed on disk meanwhile makes commit refuse, naming it.
    let id = engine
        .session_open(me(), &[SHAPES.into(), MAIN.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"))
        .session;
    let edit = replace(MAIN, "side = 2.0", "side = 3.0");
    engine
        .session_edit(me(), &id, &[edit], false)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    let main = root.join(MAIN);
    let outside = format!(
        "{}# touched by another tool\n",
        std::fs::read_to_string(&main).unwrap_or_default()
    );
    std::fs::write(&main, &outside).unwrap_or_else(|e| panic!("{e}"));
    let refused = engine
        .session_commit(me(), &id)
        .await
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        refused.as_deref(),
        Some(
            "py/main.py changed on disk since session s2 opened; nothing was written; discard the session and redo the change on the file as it is now"
        )
    );
    assert_eq!(std::fs::read_to_string(&main).unwrap_or_default(), outside);
    assert_eq!(stamp(&shapes), before);
    engine.shutdown().await;
}
