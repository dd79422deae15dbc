//! An edit re-checks only what it can have affected, against the scripted
//! fake set to act as clangd does — a change that leaves a file's text as
//! it was is not checked again and nothing is published for it — so that a
//! wait for a file that did not need one runs out its whole window, and one
//! for text the server already holds never ends. A held file is checked
//! again only when its own text changed on disk since its diagnostics were
//! taken, or it imports a file whose text changed; unchanged text is
//! answered from what the server holds.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use squiggle::config::Config;
use squiggle::diagnostic::Outcome;
use squiggle::engine::Engine;
use squiggle::engine::tools::ToolResult;

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::matrix::write;
use crate::support::scratch::Scratch;

/// An engine over `root` serving `.fk` files by a fake that never checks an
/// unchanged text again, with the disk watched as a daemon's is. The
/// deadline is long: a wait that should not happen shows as an outcome, not
/// as a slow test that passes.
fn engine(root: &Path) -> Arc<Engine> {
    let mut config = Config::default();
    let fake = FakeServer::new(json!({"silentWhenUnchanged": true}));
    config
        .servers
        .insert("fake-a".to_string(), fake.to_override());
    config.diagnostic_timeout = Duration::from_secs(20);
    let engine = support::engine(root, config);
    engine.watch_disk();
    engine
}

/// Whether `result` checked `file` (it has outcomes for it).
fn checked(result: &ToolResult, file: &str) -> bool {
    result.outcomes.contains_key(file)
}

/// The messages `result` reports in `file`.
fn messages(result: &ToolResult, file: &str) -> Vec<String> {
    result
        .diagnostics
        .iter()
        .filter(|r| r.diagnostic.file == file)
        .map(|r| r.diagnostic.message.clone())
        .collect()
}

#[tokio::test]
async fn a_held_file_is_not_checked_again_after_a_write_it_cannot_depend_on() {
    let ws = Scratch::bare();
    let engine = engine(&ws.root);
    let held = write(&engine, &ws.root.join("held.fk"), "@error(held)\n").await;
    assert_eq!(messages(&held, "held.fk"), ["held"], "{}", held.text());
    let other = write(&engine, &ws.root.join("other.fk"), "x\n").await;
    assert!(
        !checked(&other, "held.fk"),
        "held.fk, which imports nothing, was checked again: {:?}",
        other.outcomes
    );
    let again = write(&engine, &ws.root.join("other.fk"), "y\n").await;
    assert!(!checked(&again, "held.fk"), "{:?}", again.outcomes);
    engine.shutdown().await;
}

#[tokio::test]
async fn an_importer_is_checked_again_after_what_it_imports_changes_and_after_its_own_text_changes()
{
    let ws = Scratch::bare();
    let engine = engine(&ws.root);
    let (app, lib) = (ws.root.join("app.fk"), ws.root.join("lib.fk"));
    write(&engine, &lib, "x\n").await;
    write(&engine, &app, "import lib\n@error(app)\n").await;
    let through_squiggle = write(&engine, &lib, "y\n").await;
    assert!(
        checked(&through_squiggle, "app.fk"),
        "{:?}",
        through_squiggle.outcomes
    );
    std::fs::write(&lib, "z\n").unwrap_or_else(|e| panic!("write lib.fk: {e}"));
    let after_lib = write(&engine, &ws.root.join("other.fk"), "x\n").await;
    assert!(
        checked(&after_lib, "app.fk"),
        "app.fk not checked again after lib.fk changed on disk: {:?}",
        after_lib.outcomes
    );
    std::fs::write(&app, "import lib\n@error(changed)\n")
        .unwrap_or_else(|e| panic!("write app.fk: {e}"));
    let after_app = write(&engine, &ws.root.join("other.fk"), "y\n").await;
    assert!(checked(&after_app, "app.fk"), "{:?}", after_app.outcomes);
    assert_eq!(
        messages(&after_app, "app.fk"),
        ["changed"],
        "{}",
        after_app.text()
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn an_unchanged_write_is_answered_at_once_with_the_errors_held_for_it() {
    let ws = Scratch::bare();
    let engine = engine(&ws.root);
    let file = ws.root.join("a.fk");
    let first = write(&engine, &file, "@error(kept)\n").await;
    assert_eq!(messages(&first, "a.fk"), ["kept"], "{}", first.text());
    for round in 0..2 {
        let same = write(&engine, &file, "@error(kept)\n").await;
        let outcomes: Vec<Outcome> = same.outcomes["a.fk"].iter().map(|o| o.outcome).collect();
        assert_eq!(
            outcomes,
            [Outcome::Settled],
            "round {round}: {}",
            same.text()
        );
        assert_eq!(messages(&same, "a.fk"), ["kept"], "{}", same.text());
    }
    engine.shutdown().await;
}

/// Text every server holds already changes nothing that imports it: an
/// unchanged write answers without checking its importers again (gopls's
/// same-package files waited out its 50 ms quiet for it), while its
/// importers' held errors are still shown.
#[tokio::test]
async fn an_unchanged_write_does_not_check_its_importers_again() {
    let ws = Scratch::bare();
    let engine = engine(&ws.root);
    let (app, lib) = (ws.root.join("app.fk"), ws.root.join("lib.fk"));
    write(&engine, &lib, "x\n").await;
    write(&engine, &app, "import lib\n@error(app)\n").await;
    let changed = write(&engine, &lib, "y\n").await;
    assert!(checked(&changed, "app.fk"), "{:?}", changed.outcomes);
    let same = write(&engine, &lib, "y\n").await;
    assert!(
        !checked(&same, "app.fk"),
        "app.fk checked again after an unchanged write of lib.fk: {:?}",
        same.outcomes
    );
    assert_eq!(messages(&same, "app.fk"), ["app"], "{}", same.text());
    engine.shutdown().await;
}
