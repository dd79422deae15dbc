//! The diagnostics wait, path by path, against the scripted fake server:
//! pulled, settled with waves, stale versions ignored, unversioned publishes
//! after a change, timed out, dead.

use std::time::Duration;

use serde_json::{Value, json};
use squiggle::diagnostic::Outcome;
use squiggle::lsp::{LspClient, ProgressPattern, WaitProfile};

use crate::support::{self, Fake, deadline, messages, progress_open, sync, wait_for};

#[tokio::test]
async fn push_with_version_settles_on_this_versions_diagnostics() {
    let fake = Fake::new();
    let client = fake.start(json!({"diagnosticMode": "push"})).await;
    let doc = sync(
        &client,
        &fake.file("a.txt"),
        "ok\nx @error[E1](bad thing)\n",
    )
    .await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(report.outcome, Outcome::Settled);
    assert_eq!(messages(&report), vec!["bad thing"]);
    assert_eq!(report.diagnostics[0].code.as_deref(), Some("E1"));
    assert_eq!(report.diagnostics[0].range.start.line, 1);
    assert_eq!(report.diagnostics[0].range.start.character, 2);
}

#[tokio::test]
async fn stale_version_publish_never_counts() {
    let fake = Fake::new();
    let client = fake
        .start(json!({"stalePublish": true, "publishDelayMs": 150}))
        .await;
    let path = fake.file("a.txt");
    let v1 = sync(&client, &path, "@error(old problem)\n").await;
    assert_eq!(
        messages(&client.diagnostics_for(&v1, deadline(5000)).await),
        vec!["old problem"]
    );
    // The fake now republishes version 1's diagnostics at once, then the real
    // ones 150 ms later; with no settle window a counted stale publish would
    // end the wait immediately with the old error.
    let v2 = sync(&client, &path, "@error(new problem)\n").await;
    let report = client.diagnostics_for(&v2, deadline(5000)).await;
    assert_eq!(report.outcome, Outcome::Settled);
    assert_eq!(messages(&report), vec!["new problem"]);
    let stale_sent = fake.messages("out").iter().any(|m| {
        m["params"]["version"] == 1 && m["params"]["diagnostics"][0]["message"] == "old problem"
    });
    assert!(
        stale_sent,
        "the fake did not send the stale publish this test relies on"
    );
}

#[tokio::test]
async fn unversioned_publish_counts_only_after_the_change() {
    let fake = Fake::new();
    // No didSave: a save-triggered republish of the old text still in flight
    // when the change is written would be indistinguishable from a fresh one
    // (an unversioned publish carries nothing to tell them apart).
    let client = fake
        .start(json!({"publishVersion": false, "publishDelayMs": 150, "saveNotify": false}))
        .await;
    let path = fake.file("a.txt");
    let v1 = sync(&client, &path, "@error(first)\n").await;
    assert_eq!(
        messages(&client.diagnostics_for(&v1, deadline(5000)).await),
        vec!["first"]
    );
    let v2 = sync(&client, &path, "@error(second)\n").await;
    let report = client.diagnostics_for(&v2, deadline(5000)).await;
    assert_eq!(report.outcome, Outcome::Settled);
    assert_eq!(
        messages(&report),
        vec!["second"],
        "the publish from before the change must not count"
    );
}

/// typescript-language-server's hazard (scripts/ts-wave-probe): a round that
/// began before the change publishes right after it, without a version, and
/// may carry the old text's diagnostics. With a stale window, a publish that
/// soon after the write is never the answer.
#[tokio::test]
async fn unversioned_publish_inside_the_stale_window_never_counts() {
    let fake = Fake::new();
    // The fake republishes the old text's diagnostics, unversioned, as soon
    // as it reads the change; the real ones follow 300 ms later.
    let mut config = fake.config(json!({
        "publishVersion": false, "stalePublish": true, "publishDelayMs": 300, "saveNotify": false
    }));
    config.wait.stale_window = Duration::from_millis(200);
    let client = fake.start_with(config).await;
    let path = fake.file("a.txt");
    let v1 = sync(&client, &path, "@error(old problem)\n").await;
    assert_eq!(
        messages(&client.diagnostics_for(&v1, deadline(5000)).await),
        vec!["old problem"]
    );
    let v2 = sync(&client, &path, "fixed\n").await;
    let report = client.diagnostics_for(&v2, deadline(5000)).await;
    assert_eq!(report.outcome, Outcome::Settled);
    assert_eq!(messages(&report), Vec::<String>::new());
    assert!(
        report.elapsed >= Duration::from_millis(250),
        "ended on the stale publish after {:?}",
        report.elapsed
    );
    let stale_sent = fake.messages("out").iter().any(|m| {
        m["params"]["version"].is_null()
            && m["params"]["diagnostics"][0]["message"] == "old problem"
    });
    assert!(
        stale_sent,
        "the fake did not send the stale publish this test relies on"
    );
}

/// intelephense: a change is answered only after its own debounce (1 s),
/// an open at once and completely once its indexing has ended. Once it has,
/// a new text goes as a close and an open, and the open's answer counts
/// though it comes inside the stale window; the close's clear does not.
#[tokio::test]
async fn a_server_answering_opens_at_once_is_given_new_text_as_a_reopen_once_indexed() {
    let fake = Fake::new();
    // A change's publish comes a minute late: a wait on it would not end
    // before the deadline with the new text's error.
    let mut config = fake.config(json!({
        "publishVersion": false, "changeDelayMs": 60000, "saveNotify": false,
        "progressOnInitialized": {"token": "idx", "title": "Indexing", "durationMs": 100}
    }));
    config.wait.stale_window = Duration::from_millis(600);
    config.wait.unchanged_quiet = Duration::from_millis(2000);
    config.wait.settle = Duration::ZERO;
    config.wait.reopen_when_indexed = true;
    let client = fake.start_with(config).await;
    wait_for(&client, "the indexing to end", LspClient::indexed).await;
    let path = fake.file("a.php");
    let v1 = sync(&client, &path, "@error(first)\n").await;
    let first = client.diagnostics_for(&v1, deadline(5000)).await;
    assert_eq!(
        (first.outcome, messages(&first)),
        (Outcome::Settled, vec!["first".to_string()])
    );
    let v2 = sync(&client, &path, "@error(second)\n").await;
    assert!(v2.at_once && v2.version > v1.version);
    let second = client.diagnostics_for(&v2, deadline(5000)).await;
    assert_eq!(
        (second.outcome, messages(&second)),
        (Outcome::Settled, vec!["second".to_string()]),
        "the reopen's answer, not the close's clear nor the earlier text's"
    );
    let v3 = sync(&client, &path, "clean\n").await;
    let third = client.diagnostics_for(&v3, deadline(5000)).await;
    assert_eq!(
        (third.outcome, messages(&third)),
        (Outcome::Settled, vec![])
    );
    assert!(fake.received("textDocument/didChange").is_empty());
    assert_eq!(fake.received("textDocument/didClose").len(), 2);
    assert_eq!(fake.received("textDocument/didOpen").len(), 3);
}

/// Before its indexing ends, the same server gets changes as changes: an
/// open's answer then may lack what the index would add.
#[tokio::test]
async fn before_indexing_ends_new_text_goes_as_a_change() {
    let fake = Fake::new();
    let mut config = fake.config(json!({
        "publishVersion": false, "changeDelayMs": 200, "saveNotify": false,
        "progressOnInitialized": {"token": "idx", "title": "Indexing", "durationMs": 60000}
    }));
    config.wait.settle = Duration::ZERO;
    config.wait.reopen_when_indexed = true;
    let client = fake.start_with(config).await;
    wait_for(&client, "the indexing to begin", |c| {
        progress_open(c, "Indexing")
    })
    .await;
    let path = fake.file("a.php");
    let v1 = sync(&client, &path, "@error(first)\n").await;
    let first = client.diagnostics_for(&v1, deadline(5000)).await;
    assert_eq!(messages(&first), vec!["first"]);
    let v2 = sync(&client, &path, "@error(second)\n").await;
    assert!(!v1.at_once && !v2.at_once);
    let report = client.diagnostics_for(&v2, deadline(5000)).await;
    assert_eq!(messages(&report), vec!["second"]);
    assert_eq!(fake.received("textDocument/didChange").len(), 1);
    assert!(fake.received("textDocument/didClose").is_empty());
}

#[tokio::test]
async fn waves_inside_the_settle_window_are_collected() {
    let fake = Fake::new();
    let mut config = fake.config(json!({"waves": [0, 100]}));
    config.wait.settle = Duration::from_millis(400);
    let client = fake.start_with(config).await;
    let doc = sync(
        &client,
        &fake.file("a.ts"),
        "@error(syntax)\n@error#1(semantic)\n",
    )
    .await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(report.outcome, Outcome::Settled);
    assert_eq!(messages(&report), vec!["syntax", "semantic"]);
}

#[tokio::test]
async fn a_settle_window_shorter_than_the_wave_gap_cuts_the_second_wave() {
    // The counterpart of the test above: proves the window is what collects waves.
    let fake = Fake::new();
    let client = fake.start(json!({"waves": [0, 400]})).await;
    let doc = sync(
        &client,
        &fake.file("a.ts"),
        "@error(syntax)\n@error#1(semantic)\n",
    )
    .await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Settled, vec!["syntax".to_string()])
    );
}

#[tokio::test]
async fn no_publish_times_out_with_nothing_invented() {
    let fake = Fake::new();
    let client = fake.start(json!({"fault": {"kind": "neverPublish"}})).await;
    let doc = sync(&client, &fake.file("a.txt"), "@error(never reported)\n").await;
    let report = client.diagnostics_for(&doc, deadline(300)).await;
    assert_eq!(report.outcome, Outcome::TimedOut);
    assert!(report.diagnostics.is_empty());
    assert!(
        report.elapsed >= Duration::from_millis(290),
        "gave up before the deadline: {:?}",
        report.elapsed
    );
}

#[tokio::test]
async fn timed_out_keeps_what_this_version_had() {
    // A publish loop keeps restarting the settle window: at the deadline the
    // known diagnostics for this version are returned, marked timed out.
    let fake = Fake::new();
    let mut config = fake.config(json!({"fault": {"kind": "publishLoop", "intervalMs": 20}}));
    config.wait.settle = Duration::from_millis(100);
    let client = fake.start_with(config).await;
    let doc = sync(&client, &fake.file("a.txt"), "@error(loop)\n").await;
    let report = client.diagnostics_for(&doc, deadline(500)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::TimedOut, vec!["loop".to_string()])
    );
}

#[tokio::test]
async fn server_death_during_the_wait_ends_it_at_once() {
    let fake = Fake::new();
    let mut config = fake.config(json!({"fault": {"kind": "crashAfterPublish"}}));
    let settle = Duration::from_secs(60);
    config.wait.settle = settle;
    let client = fake.start_with(config).await;
    let doc = sync(&client, &fake.file("a.txt"), "@error(last words)\n").await;
    let report = client.diagnostics_for(&doc, deadline(120_000)).await;
    assert_eq!(report.outcome, Outcome::ServerDead);
    assert!(
        report.elapsed < settle,
        "sat out the settle window after the death: {:?}",
        report.elapsed
    );
    assert!(
        client
            .dead_reason()
            .is_some_and(|r| r.contains(&support::exit_text(5))),
        "{:?}",
        client.dead_reason()
    );
}

#[tokio::test]
async fn pull_answers_exactly_and_reuses_result_ids() {
    let fake = Fake::new();
    let client = fake.start(json!({"diagnosticMode": "pull"})).await;
    let path = fake.file("a.txt");
    let v1 = sync(&client, &path, "@warning(w1)\n").await;
    let first = client.diagnostics_for(&v1, deadline(5000)).await;
    assert_eq!(
        (first.outcome, messages(&first)),
        (Outcome::Pulled, vec!["w1".to_string()])
    );
    // Same version again: the client sends previousResultId, the fake says
    // "unchanged", and the held diagnostics are returned.
    let again = client.diagnostics_for(&v1, deadline(5000)).await;
    assert_eq!(
        (again.outcome, messages(&again)),
        (Outcome::Pulled, vec!["w1".to_string()])
    );
    let pulls = fake.received("textDocument/diagnostic");
    assert_eq!(pulls.len(), 2);
    assert_eq!(pulls[1]["params"]["previousResultId"], "1");
    assert!(
        fake.messages("out")
            .iter()
            .any(|m| m["result"]["kind"] == "unchanged")
    );
    let v2 = sync(&client, &path, "fixed\n").await;
    let fixed = client.diagnostics_for(&v2, deadline(5000)).await;
    assert_eq!(
        (fixed.outcome, fixed.diagnostics.len()),
        (Outcome::Pulled, 0)
    );
}

#[tokio::test]
async fn dynamically_registered_pull_is_used_when_push_is_off() {
    // pyright and ruff: advertising pull turns their push off, and they
    // register pull only after `initialized`.
    let fake = Fake::new();
    let client = fake
        .start(json!({"diagnosticMode": "both", "registerPullDynamically": true, "pushOffWhenClientPulls": true}))
        .await;
    let doc = sync(&client, &fake.file("a.py"), "@error(dynamic)\n").await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["dynamic".to_string()])
    );
}

#[tokio::test]
async fn pull_of_a_dead_server_is_server_dead() {
    let fake = Fake::new();
    let client = fake.start(json!({"diagnosticMode": "pull", "fault": {"kind": "crashOnRequest", "method": "textDocument/diagnostic"}})).await;
    let doc = sync(&client, &fake.file("a.txt"), "x\n").await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(report.outcome, Outcome::ServerDead);
}

#[tokio::test]
async fn diagnostics_after_save_inside_progress_are_waited_for() {
    // rust-analyzer: cargo check runs after didSave inside work-done progress.
    let fake = Fake::new();
    let client = fake
        .start(json!({"publishOnSave": true, "progressOnSave": true, "publishDelayMs": 100}))
        .await;
    let doc = sync(&client, &fake.file("lib.rs"), "@error(from cargo check)\n").await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Settled, vec!["from cargo check".to_string()])
    );
    assert_eq!(fake.received("textDocument/didSave").len(), 1);
}

#[tokio::test]
async fn configuration_is_answered_before_a_gated_server_publishes() {
    let fake = Fake::new();
    let mut config = fake.config(json!({"requireConfiguration": true}));
    config.settings = json!({"python": {"analysis": {"typeCheckingMode": "strict"}}});
    let client = fake.start_with(config).await;
    let doc = sync(&client, &fake.file("a.py"), "@error(gated)\n").await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(messages(&report), vec!["gated"]);
    let answer = fake
        .messages("in")
        .into_iter()
        .find(|m| m["result"].is_array())
        .unwrap_or_default();
    assert_eq!(
        answer["result"],
        json!([{"analysis": {"typeCheckingMode": "strict"}}, {"typeCheckingMode": "strict"}])
    );
}

#[tokio::test]
async fn known_diagnostics_lists_other_files() {
    let fake = Fake::new();
    let client = fake.start(json!({"otherFiles": true})).await;
    let a = sync(&client, &fake.file("a.txt"), "@error(in a)\n").await;
    client.diagnostics_for(&a, deadline(5000)).await;
    let b = sync(&client, &fake.file("b.txt"), "clean\n").await;
    client.diagnostics_for(&b, deadline(5000)).await;
    let known = client.known_diagnostics();
    assert_eq!(known.len(), 1);
    assert!(known[0].0.ends_with("/a.txt"));
}

#[tokio::test]
async fn a_partial_pull_waits_for_progress_and_repulls_on_refresh() {
    // rust-analyzer: while its workspace loads it answers pulls (possibly
    // empty) inside work-done progress, then asks for a re-pull.
    let fake = Fake::new();
    let mut config = fake.config(json!({
        "diagnosticMode": "pull",
        "progressOnInitialized": {"token": "load", "title": "Loading", "durationMs": 400},
        "refreshAfterMs": 300
    }));
    config.wait = partial_profile(config.wait.settle);
    config.wait.settle = Duration::from_millis(50);
    let client = fake.start_with(config).await;
    let doc = sync(&client, &fake.file("lib.rs"), "@error(after load)\n").await;
    let report = client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["after load".to_string()])
    );
    assert!(
        report.elapsed >= Duration::from_millis(250),
        "returned before the progress ended: {:?}",
        report.elapsed
    );
    assert_eq!(
        fake.received("textDocument/diagnostic").len(),
        2,
        "the refresh must trigger a re-pull"
    );
}

#[tokio::test]
async fn a_complete_pull_does_not_wait_for_progress() {
    let fake = Fake::new();
    let client = fake
        .start(json!({"diagnosticMode": "pull", "progressOnInitialized": {"token": "idx", "title": "Indexing", "durationMs": 60000}}))
        .await;
    wait_for(&client, "the indexing progress to begin", |c| {
        progress_open(c, "Indexing")
    })
    .await;
    let doc = sync(&client, &fake.file("a.py"), "@error(now)\n").await;
    let report = client.diagnostics_for(&doc, deadline(120_000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["now".to_string()])
    );
    assert!(
        progress_open(&client, "Indexing"),
        "returned only once the progress had ended"
    );
}

/// The settle window of `start_checking_server`: a wait that returns sooner
/// ended on the check's progress, not by sitting the window out.
const CHECKING_SETTLE: Duration = Duration::from_secs(60);

/// A server like rust-analyzer: pulls answered at once, a check with
/// work-done progress after each save (`script` says how), partial pull
/// answers, and a settle window far longer than any of that.
async fn start_checking_server(fake: &Fake, script: Value) -> LspClient {
    let mut config = fake.config(script);
    config.wait = partial_profile(config.wait.settle);
    config.wait.settle = CHECKING_SETTLE;
    fake.start_with(config).await
}

/// How many `$/progress` notifications of `kind` the fake has sent.
fn progress_sent(fake: &Fake, kind: &str) -> usize {
    fake.messages("out")
        .iter()
        .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == kind)
        .count()
}

#[tokio::test]
async fn a_partial_pull_ends_soon_after_its_check_ends() {
    // rust-analyzer publishes cargo check's diagnostics, then ends the
    // check's progress: from then on the answer is complete, and the wait
    // does not sit out the settle window.
    let fake = Fake::new();
    let client = start_checking_server(
        &fake,
        json!({
            "diagnosticMode": "both",
            "publishOnSave": true,
            "progressOnSave": true,
            "publishDelayMs": 100
        }),
    )
    .await;
    let doc = sync(&client, &fake.file("lib.rs"), "@error(borrow)\n").await;
    let report = client.diagnostics_for(&doc, deadline(120_000)).await;
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["borrow".to_string()])
    );
    assert!(
        progress_sent(&fake, "end") > 0,
        "returned before the check ended (on the pull alone)"
    );
    assert!(
        report.elapsed < CHECKING_SETTLE,
        "sat out the settle window after the check ended: {:?}",
        report.elapsed
    );
}

#[tokio::test]
async fn a_check_cancelled_by_a_later_save_does_not_end_the_wait() {
    // rust-analyzer: a save while cargo check runs cancels it (its progress
    // ends at once) and the next check begins after a gap. That end is not
    // the answer: the wait goes on until the next check has ended.
    let fake = Fake::new();
    let client = start_checking_server(
        &fake,
        json!({
            "diagnosticMode": "both",
            "publishOnSave": true,
            "progressOnSave": true,
            "publishDelayMs": 400,
            "checkRestartGapMs": 500
        }),
    )
    .await;
    let a = sync(&client, &fake.file("a.rs"), "@error(in a)\n").await;
    let wait_a = client.diagnostics_for(&a, deadline(120_000));
    let save_b = async {
        // Save b once the client has seen the first check begin.
        wait_for(&client, "the first check to begin", |c| {
            progress_open(c, "cargo check")
        })
        .await;
        let started = std::time::Instant::now();
        sync(&client, &fake.file("b.rs"), "clean\n").await;
        started
    };
    let (report, b_saved) = tokio::join!(wait_a, save_b);
    assert_eq!(
        (report.outcome, messages(&report)),
        (Outcome::Pulled, vec!["in a".to_string()])
    );
    assert_eq!(progress_sent(&fake, "begin"), 2, "the second check began");
    assert!(
        b_saved.elapsed() >= Duration::from_millis(500),
        "returned before the check that replaced the cancelled one began"
    );
    assert!(
        report.elapsed < CHECKING_SETTLE,
        "sat out the settle window after the second check ended: {:?}",
        report.elapsed
    );
}

/// rust-analyzer's kind of profile: partial pulls completed by an on-save
/// check (the fake's is titled "cargo check"), ending 100 ms after it.
fn partial_profile(settle: Duration) -> WaitProfile {
    WaitProfile {
        pull_is_partial: true,
        check_progress: vec![ProgressPattern::title("check")],
        check_end_grace: Duration::from_millis(100),
        settle,
        ..WaitProfile::default()
    }
}
