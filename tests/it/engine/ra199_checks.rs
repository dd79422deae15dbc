//! rust-analyzer 1.99's ways, played by the fake server under the registry's
//! own rust-analyzer profile: its own analysis by pull and cargo
//! check's by push, united per file — for the edited file and for the other
//! files alike (arrayvec: a rename's `unresolved import` in another file
//! was lost behind that file's pulled list); a check that begins and ends
//! with nothing done is not the answer; cancelled pulls are asked again
//! when the server says to, and only then.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::support::{Fake, deadline, messages, sync};
use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::diagnostic::Outcome;
use squiggle::engine::{FileInput, HeldOthers};
use squiggle::lsp::{LspClient, WaitProfile};

/// The registry's wait profile for rust-analyzer.
fn rust_analyzer_profile() -> WaitProfile {
    squiggle::registry::builtin_servers()
        .into_iter()
        .find(|s| s.id == "rust-analyzer")
        .map(|s| s.wait)
        .unwrap_or_else(|| panic!("no rust-analyzer in the registry"))
}

/// rust-analyzer's split, on the fake: markers of wave 0 are its own
/// analysis (pulled), of wave 1 cargo check's (pushed after each save,
/// inside a `cargo check` progress that begins 50 ms after the latest
/// save, as rust-analyzer's debounce has it).
fn checking_script() -> Value {
    json!({
        "diagnosticMode": "both",
        "publishOnSave": true,
        "progressOnSave": true,
        "checkRestartGapMs": 50,
        "pushedFromWave": 1,
        "waves": [0, 20],
    })
}

/// A Cargo workspace whose rust-analyzer is the fake running `script`
/// (the registry's entry otherwise: its languages, root, wait profile).
fn engine(root: &Path, script: Value) -> Arc<squiggle::engine::Engine> {
    let mut config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(30),
        ..Config::default()
    };
    config.servers.insert(
        "rust-analyzer".into(),
        support::fake_server::FakeServer::in_place(&script),
    );
    support::engine(root, config)
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn another_files_pushed_check_errors_are_kept_beside_its_pulled_list() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    write(&root, "Cargo.toml", "[package]\nname = \"arrayvec\"\n");
    write(&root, "src/lib.rs", "clean\n");
    write(
        &root,
        "src/arrayvec.rs",
        "@error[E0384](cannot assign twice to immutable variable)\n@error#1[E0432](unresolved import)\n",
    );
    let engine = engine(&root, checking_script());

    // arrayvec.rs checked once: both lists, its own answer.
    let first = engine
        .check_files(
            vec![FileInput::on_disk(root.join("src/arrayvec.rs"))],
            HeldOthers::Skip,
        )
        .await;
    let own: Vec<&str> = first.files[0]
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        own.contains(&"unresolved import")
            && own.contains(&"cannot assign twice to immutable variable"),
        "{own:?}"
    );

    // Then lib.rs is edited and checked: arrayvec.rs is another file, whose
    // pulled list must not hide what the check pushed for it.
    write(&root, "src/lib.rs", "pub use crate::arrayvec;\n");
    let check = engine
        .check_files(
            vec![FileInput::on_disk(root.join("src/lib.rs"))],
            HeldOthers::Include,
        )
        .await;
    let others: Vec<&str> = check
        .others
        .get("src/arrayvec.rs")
        .into_iter()
        .flatten()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        others.contains(&"unresolved import"),
        "cargo check's error lost: {others:?}"
    );
    assert!(
        others.contains(&"cannot assign twice to immutable variable"),
        "the pulled list lost: {others:?}"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn an_importer_opened_after_the_check_keeps_what_the_check_pushed_for_it() {
    // arrayvec's rename: cargo check reports `unresolved import` in an
    // importer nobody had open; the importer is opened for the edit's
    // second phase, and its pull (rust-analyzer's own E0384) must not
    // replace what the check pushed for it before the open.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    write(&root, "Cargo.toml", "[package]\nname = \"arrayvec\"\n");
    write(&root, "src/lib.rs", "mod util;\nmod arrayvec;\n");
    write(&root, "src/util.rs", "pub fn helper() {}\n");
    write(
        &root,
        "src/arrayvec.rs",
        "use crate::util::helper;\n@error[E0384](cannot assign twice to immutable variable)\n@error#1[E0432](unresolved import)\n",
    );
    let log = dir.path().join("fake-log.jsonl");
    let mut script = checking_script();
    script["checkFilesOnDisk"] = json!(true);
    script["logFile"] = json!(log.display().to_string());
    let engine = engine(&root, script);
    write(&root, "src/util.rs", "pub fn helper_renamed() {}\n");
    let check = engine
        .check_with_dependents(vec![FileInput::on_disk(root.join("src/util.rs"))])
        .await;
    assert!(
        check.other_outcomes.contains_key("src/arrayvec.rs"),
        "the importer was not taken in the second phase: {:?}",
        check.other_outcomes.keys().collect::<Vec<_>>()
    );
    let others: Vec<&str> = check
        .others
        .get("src/arrayvec.rs")
        .into_iter()
        .flatten()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        others.contains(&"unresolved import"),
        "cargo check's error lost: {others:?}"
    );
    assert!(
        others.contains(&"cannot assign twice to immutable variable"),
        "the pulled list lost: {others:?}"
    );
    // The check that answered the edit answered for the importer too: it
    // is not saved to make the server check again.
    let resaved = support::fake_server::logged(&log)
        .into_iter()
        .filter(|v| v["dir"] == "in" && v["msg"]["method"] == "textDocument/didSave")
        .filter(|v| {
            v["msg"]["params"]["textDocument"]["uri"]
                .as_str()
                .is_some_and(|u| u.ends_with("src/arrayvec.rs"))
        })
        .count();
    assert_eq!(resaved, 0, "the importer was saved again");
    engine.shutdown().await;
}

#[tokio::test]
async fn a_check_that_ends_having_done_nothing_is_not_the_answer() {
    // rust-analyzer 1.99, once its workspace has loaded, begins a check and
    // ends it at once with nothing published or reported, then checks
    // again. Its end came well inside the profile's grace after a check
    // end, and the real check only after it.
    let mut script = checking_script();
    script["abortedCheckFirst"] = json!(true);
    script["checkRestartGapMs"] = json!(250);
    assert_both_found(script).await;
}

#[tokio::test]
async fn a_check_that_ends_having_done_nothing_is_no_check_however_long_the_next_takes() {
    // As above, with the real check beginning 800 ms after the one that
    // did nothing: past the idle window. Under load rust-analyzer 1.99 did
    // so, and the answer came an idle window after the empty check, with
    // its own analysis only (clean, where cargo check had `E0425`).
    let mut script = checking_script();
    script["abortedCheckFirst"] = json!(true);
    script["abortedCheckMs"] = json!(30);
    script["checkRestartGapMs"] = json!(800);
    assert_both_found(script).await;
}

#[tokio::test]
async fn a_publish_that_trails_the_end_of_its_check_ends_the_wait() {
    // rust-analyzer 1.95 under load, its first check after loading: the
    // check reported no crate, and its publish came 26 ms after its end.
    // The wait took the check for one that did nothing and ran to its
    // deadline.
    // The check's publish answers: the document is not saved again.
    let fake = Fake::new();
    let log = fake.file("fake-log.jsonl");
    let mut script = checking_script();
    script["quietChecks"] = json!(true);
    script["endBeforePublish"] = json!(true);
    script["logFile"] = json!(log.display().to_string());
    let mut config = fake.config(script);
    config.wait = rust_analyzer_profile();
    let client = fake.start_with(config).await;
    let text = "@error(native)\n@error#1(borrow of moved value)\n";
    let doc = sync(&client, &fake.file("lib.rs"), text).await;
    let report = client.diagnostics_for(&doc, deadline(60_000)).await;
    let mut found = messages(&report);
    found.sort();
    assert_eq!(
        (report.outcome, found),
        (
            Outcome::Pulled,
            vec!["borrow of moved value".to_string(), "native".to_string()]
        )
    );
    client.shutdown().await;
    let saves = support::fake_server::logged(&log)
        .into_iter()
        .filter(|v| v["dir"] == "in" && v["msg"]["method"] == "textDocument/didSave")
        .count();
    assert_eq!(saves, 1, "saved again: the trailing publish was not taken");
}

#[tokio::test]
async fn a_check_that_begins_long_after_the_save_is_waited_for() {
    // On a loaded machine rust-analyzer has begun its on-save check more
    // than a second after the save; the wait saved again after its idle
    // window and, ending one idle window later, answered without cargo
    // check's errors. A server whose saves start checks is waited on for
    // the check. (The fake begins a check 800 ms after the latest save.)
    let mut script = checking_script();
    script["checkRestartGapMs"] = json!(800);
    assert_both_found(script).await;
}

/// One file, its own analysis (pulled) and cargo check's error (pushed),
/// checked on the fake running `script` under rust-analyzer's profile:
/// both are in the answer.
async fn assert_both_found(script: Value) {
    let fake = Fake::new();
    let mut config = fake.config(script);
    config.wait = rust_analyzer_profile();
    let client = fake.start_with(config).await;
    let doc = sync(
        &client,
        &fake.file("lib.rs"),
        "@error(native)\n@error#1(borrow of moved value)\n",
    )
    .await;
    let report = client.diagnostics_for(&doc, deadline(60_000)).await;
    assert_eq!(report.outcome, Outcome::Pulled);
    let mut found = messages(&report);
    found.sort();
    assert_eq!(found, ["borrow of moved value", "native"]);
    client.shutdown().await;
}

#[tokio::test]
async fn a_server_whose_saves_start_no_check_is_waited_on_once() {
    // rust-analyzer with checkOnSave turned off in the user's settings:
    // the first wait saves again and runs to its deadline expecting a
    // check; the client learns, and the next wait ends after the idle
    // window.
    // Pulled only; a save changes nothing (no check, no push).
    let script = json!({"diagnosticMode": "pull", "silentWhenUnchanged": true});
    let (_fake, client, _) = waited_on_once(script).await;
    client.shutdown().await;
}

/// Two edits of one file on the fake running `script` under
/// rust-analyzer's profile: the first runs to its deadline while the
/// client learns what the server's saves do, the second is answered
/// without one. The fake (which must outlive its client), the client and
/// the file are given back for more.
async fn waited_on_once(script: Value) -> (Fake, LspClient, PathBuf) {
    let fake = Fake::new();
    let mut config = fake.config(script);
    config.wait = rust_analyzer_profile();
    let client = fake.start_with(config).await;
    let path = fake.file("lib.rs");
    let first = sync(&client, &path, "@error(native)\n").await;
    let report = client.diagnostics_for(&first, deadline(3_000)).await;
    assert_eq!(report.outcome, Outcome::TimedOut);
    assert_eq!(messages(&report), ["native"]);
    let second = sync(&client, &path, "@error(again)\n").await;
    let report = client.diagnostics_for(&second, deadline(60_000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["again".to_string()])
    );
    (fake, client, path)
}

#[tokio::test]
async fn a_server_whose_checks_report_nothing_is_waited_on_once() {
    // rust-analyzer running a `check.overrideCommand` that prints no
    // crates (a Bazel or Buck setup): a check that finds nothing ends with
    // nothing reported or published. The first wait saves again and runs
    // to its deadline expecting a check that does something; the client
    // learns, and from then on a check's end is its answer — with what it
    // found, when it finds something.
    let mut script = checking_script();
    script["quietChecks"] = json!(true);
    let (_fake, client, path) = waited_on_once(script).await;
    let third = sync(&client, &path, "@error(own)\n@error#1(checked)\n").await;
    let report = client.diagnostics_for(&third, deadline(60_000)).await;
    let mut found = messages(&report);
    found.sort();
    assert_eq!(
        (report.outcome, found),
        (
            Outcome::Pulled,
            vec!["checked".to_string(), "own".to_string()]
        )
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_pull_answered_for_the_text_before_the_change_is_asked_again() {
    // rust-analyzer 1.99 may answer a pull sent right after a change for
    // the text before it; it asks for a re-pull once it has processed the
    // change.
    let fake = Fake::new();
    let mut script = checking_script();
    script["stalePullMs"] = json!(40);
    let mut config = fake.config(script);
    config.wait = rust_analyzer_profile();
    let client = fake.start_with(config).await;
    let path = fake.file("lib.rs");
    let first = sync(&client, &path, "@error(before the edit)\n").await;
    client.diagnostics_for(&first, deadline(60_000)).await;
    let edited = sync(&client, &path, "@error(after the edit)\n").await;
    let report = client.diagnostics_for(&edited, deadline(60_000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["after the edit".to_string()])
    );
    client.shutdown().await;
}

/// A pull server whose first two pulls are cancelled, `retrigger` saying
/// whether to ask again.
async fn cancelled_pulls(retrigger: bool) -> (Outcome, Vec<String>) {
    let fake = Fake::new();
    let script = json!({
        "diagnosticMode": "pull",
        "cancelPulls": {"count": 2, "retrigger": retrigger},
    });
    let client = fake.start(script).await;
    let doc = sync(&client, &fake.file("a.rs"), "@error(in a)\n").await;
    let report = client.diagnostics_for(&doc, deadline(60_000)).await;
    client.shutdown().await;
    (report.outcome, messages(&report))
}

#[tokio::test]
async fn cancelled_pulls_are_asked_again_when_the_server_says_so() {
    assert_eq!(
        cancelled_pulls(true).await,
        (Outcome::Pulled, vec!["in a".to_string()])
    );
    // `retriggerRequest: false`: nothing is known, and the wait says so at
    // once rather than asking until the deadline.
    let (outcome, found) = cancelled_pulls(false).await;
    assert_eq!((outcome, found.len()), (Outcome::TimedOut, 0));
}
