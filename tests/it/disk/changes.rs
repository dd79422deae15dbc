//! A file changed on disk by something other than squiggle
//! (the agent's own edit tool, `sed -i`, a formatter) is synced before the
//! next query. A server answering for `main` must know that `lib`, which
//! squiggle never opened, gained a parameter — and that it lost it again:
//! before, squiggle answered one state behind, every time, on every surface.
//! Real typescript-language-server and pyright.

use std::path::Path;

use squiggle::diagnostic::Severity;
use squiggle::engine::HeldOthers;
use squiggle::engine::{Engine, FileInput};

use crate::support::matrix::*;
use crate::support::two_files::{Case, PYTHON, TYPESCRIPT};

/// Errors the engine reports for `file` when checked now.
async fn errors(engine: &std::sync::Arc<Engine>, file: &Path) -> Vec<(u32, String)> {
    let report = engine
        .check_files(vec![FileInput::on_disk(file)], HeldOthers::Skip)
        .await;
    report
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.line, d.message.clone()))
        .collect()
}

/// `lib` gains a parameter on disk, then loses it: `main`'s call is an error,
/// then clean again, as the checker would say.
async fn follows_the_disk(case: &Case) {
    let Some(ws) = case.project() else {
        return;
    };
    let engine = engine(&ws.root, &[]);
    engine.watch_disk();
    let main = ws.root.join(case.main);
    assert_eq!(errors(&engine, &main).await, [], "clean to begin with");
    let original = case.change_lib(&ws.root);
    let broken = errors(&engine, &main).await;
    assert!(
        broken.iter().any(|(l, _)| *l == case.line),
        "no error at line {} after the change on disk: {broken:?}",
        case.line
    );
    case.restore_lib(&ws.root, &original);
    assert_eq!(errors(&engine, &main).await, [], "stale after the revert");
    engine.shutdown().await;
}

#[tokio::test]
async fn typescript_follows_a_change_on_disk() {
    follows_the_disk(&TYPESCRIPT).await;
}

#[tokio::test]
async fn python_follows_a_change_on_disk() {
    follows_the_disk(&PYTHON).await;
}
