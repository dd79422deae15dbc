//! Sessions against real typescript-language-server on
//! `tests/fixtures/mcp/ts`: `src/app.ts` imports `makeGreeter` from
//! `src/greeter.ts` and has one error of its own (a string assigned to a
//! number), which is the baseline's.

use squiggle::baseline::Classification;
use squiggle::diagnostic::Severity;
use squiggle::engine::{FileInput, HeldOthers};

use super::{errors, me, replace, stamp};
use crate::support;
use crate::support::matrix::{engine, fixture};

const GREETER: &str = "ts/src/greeter.ts";
const APP: &str = "ts/src/app.ts";
const SERVER: &str = "typescript-language-server";

#[tokio::test]
async fn typescript_sees_the_session_and_discard_gives_it_the_disk_back() {
    if support::require_program(SERVER).is_none() {
        return;
    }
    let dir = fixture("mcp");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("eslint", false), ("biome", false)]);
    let (greeter, app) = (root.join(GREETER), root.join(APP));
    let before = (stamp(&greeter), stamp(&app));

    let opened = engine
        .session_open(me(), &[GREETER.into(), APP.into()])
        .await
        .unwrap_or_else(|e| panic!("open: {e}"));
    let id = opened.session;
    let baseline = opened.result.unwrap_or_else(|| panic!("no baseline"));
    assert_eq!(baseline.classification, Classification::BaselineError);
    let found: Vec<_> = baseline
        .diagnostics
        .iter()
        .map(|d| d.diagnostic.clone())
        .collect();
    assert_eq!(errors(&found, SERVER, APP, "number").len(), 1);

    let rename = replace(GREETER, "function makeGreeter(", "function createGreeter(");
    let edited = engine
        .session_edit(me(), &id, &[rename], true)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    let new = errors(&edited.new_errors, SERVER, APP, "makeGreeter");
    assert!(!new.is_empty(), "{:#?}", edited.new_errors);
    assert!(errors(&edited.new_errors, SERVER, APP, "number").is_empty());
    assert_eq!(
        (stamp(&greeter), stamp(&app)),
        before,
        "the disk was touched"
    );

    engine
        .session_discard(me(), &id)
        .await
        .unwrap_or_else(|e| panic!("discard: {e}"));
    let report = engine
        .check_files(vec![FileInput::on_disk(&app)], HeldOthers::Skip)
        .await;
    let now: Vec<&str> = report.files[0]
        .diagnostics
        .iter()
        .filter(|d| d.server == SERVER && d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(now.len(), 1, "{now:?}");
    assert!(!now[0].contains("makeGreeter"), "{now:?}");
    assert_eq!(
        (stamp(&greeter), stamp(&app)),
        before,
        "the disk was touched"
    );
    engine.shutdown().await;
}
