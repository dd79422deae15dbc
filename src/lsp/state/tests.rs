use super::*;
use serde_json::json;

#[test]
fn diagnostics_are_read_leniently() {
    let list = LspDiagnostic::parse_list(Some(&json!([
        {"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}, "message": "m", "code": 2322, "extra": 1},
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": {"kind": "markdown", "value": "md"}, "code": "E1", "severity": 2},
        {"message": "no range"},
        "garbage"
    ])));
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].code.as_deref(), Some("2322"));
    assert_eq!(list[0].severity, None);
    assert_eq!(list[1].message, "md");
}

fn checks() -> WaitProfile {
    WaitProfile {
        check_progress: vec![super::super::profile::ProgressPattern::token("flycheck")],
        ..WaitProfile::default()
    }
}

#[test]
fn a_late_clear_for_a_reopened_document_does_not_count() {
    let mut state = ClientState::default();
    let uri = "file:///a.fk";
    let open = |state: &mut ClientState| {
        let now = Instant::now();
        let doc = OpenDocument {
            version: 1,
            language_id: "fake".into(),
            text: Arc::from("x"),
            changed_at: 0,
            written: now,
            used: now,
            at_once: false,
        };
        state.documents.insert(uri.into(), doc);
    };
    let clear = json!({"uri": uri, "diagnostics": []});
    let error = json!({"uri": uri, "version": 1, "diagnostics": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "e"}
    ]});
    // Closed, then reopened before the server's clear arrived.
    open(&mut state);
    state.documents.remove(uri);
    state.closed(uri);
    open(&mut state);
    assert_eq!(
        state.on_publish(clear.clone(), 5),
        Wake::Nobody,
        "the late clear counts"
    );
    assert!(!state.published.contains_key(uri));
    assert_eq!(state.on_publish(error, 6), Wake::Document(uri.into()));
    assert_eq!(state.published[uri].diagnostics.len(), 1);
    // Once consumed, an empty publish is an answer again.
    assert_eq!(state.on_publish(clear, 7), Wake::Document(uri.into()));
    assert!(state.published[uri].diagnostics.is_empty());
}

#[test]
fn empty_publishes_for_files_not_open_are_not_kept() {
    let mut state = ClientState::default();
    let uri = "file:///b.fk";
    state.closed(uri);
    let wake = Wake::Document(uri.into());
    assert_eq!(
        state.on_publish(json!({"uri": uri, "diagnostics": []}), 1),
        wake
    );
    assert!(state.published.is_empty() && state.clear_pending.is_empty());
    assert_eq!(
        state.on_publish(json!({"uri": uri, "diagnostics": []}), 2),
        wake
    );
    assert!(state.published.is_empty());
}

#[test]
fn progress_begin_report_end() {
    let profile = checks();
    let mut state = ClientState::default();
    state.on_progress(
        &json!({"token": 7, "value": {"kind": "begin", "title": "Indexing"}}),
        10,
        &profile,
    );
    assert!(state.busy_since(9, &profile));
    assert!(!state.busy_since(10, &profile));
    state.on_progress(
        &json!({"token": 7, "value": {"kind": "report", "message": "3/9"}}),
        11,
        &profile,
    );
    assert_eq!(state.progress["7"].message.as_deref(), Some("3/9"));
    state.on_progress(&json!({"token": 7, "value": {"kind": "end"}}), 12, &profile);
    assert!(state.progress.is_empty());
    assert_eq!(state.check_ended, 0, "indexing is not a check");
}

#[test]
fn an_ended_check_is_remembered_by_when_it_began() {
    let profile = checks();
    let mut state = ClientState::default();
    let begin = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "begin", "title": "cargo check"}});
    let end = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "end"}});
    state.on_progress(&begin, 20, &profile);
    assert_eq!(state.check_ended, 0, "still running");
    let report = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "report", "message": "shapes (bin)"}});
    state.on_progress(&report, 22, &profile);
    state.on_progress(&end, 25, &profile);
    assert_eq!(state.check_ended, 20);
    // An end for a token never begun changes nothing.
    state.on_progress(&end, 30, &profile);
    assert_eq!(state.check_ended, 20);
}

/// rust-analyzer 1.99 begins a check and ends it with nothing published
/// and nothing reported once its workspace has loaded, then checks again:
/// only a check that did something is an answer.
#[test]
fn a_check_that_did_nothing_is_not_remembered_as_ended() {
    let profile = checks();
    let mut state = ClientState::default();
    let begin = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "begin", "title": "cargo check"}});
    let end = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "end"}});
    let uri = "file:///a.rs";
    let publish = json!({"uri": uri, "version": 2, "diagnostics": []});
    state.on_publish(publish.clone(), 10);
    state.on_progress(&begin, 20, &profile);
    state.on_progress(&end, 21, &profile);
    assert_eq!(state.check_ended, 0, "abandoned");
    state.on_progress(&begin, 30, &profile);
    state.on_publish(publish, 31);
    state.on_progress(&end, 32, &profile);
    assert_eq!(state.check_ended, 30, "it published");
}

/// A check command that prints no crates (`check.overrideCommand`) ends
/// with nothing reported or published when it finds nothing: once a wait
/// has learned so, such a check's end is remembered, until a check reports.
#[test]
fn a_quiet_check_is_remembered_once_learned_and_forgotten_once_one_reports() {
    let profile = checks();
    let mut state = ClientState::default();
    let begin = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "begin", "title": "cargo check"}});
    let end = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "end"}});
    let report = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "report", "message": "shapes (bin)"}});
    state.on_progress(&begin, 20, &profile);
    assert_eq!(state.check_begun, 20, "a check began, whatever it does");
    state.on_progress(&end, 21, &profile);
    assert_eq!(state.check_ended, 0, "did nothing");
    state.quiet_checks = true;
    state.on_progress(&begin, 30, &profile);
    state.on_progress(&end, 31, &profile);
    assert_eq!(state.check_ended, 30, "quiet: its end is its answer");
    state.on_progress(&begin, 40, &profile);
    state.on_progress(&report, 41, &profile);
    assert!(
        state.checks_report && !state.quiet_checks,
        "a check reported"
    );
    state.on_progress(&end, 42, &profile);
    state.on_progress(&begin, 50, &profile);
    state.on_progress(&end, 51, &profile);
    assert_eq!(state.check_ended, 40, "not quiet any more");
}

/// gopls with `verboseWorkDoneProgress`: a change sent at seq 10 starts a
/// pass, and a save right after it a second one that cancels the first;
/// the change is answered once every pass begun after it has ended.
#[test]
fn a_change_is_done_once_every_pass_begun_after_it_has_ended() {
    let profile = WaitProfile {
        pass_progress: vec![super::super::profile::ProgressPattern::title("diagnosing")],
        ..WaitProfile::default()
    };
    let mut state = ClientState::default();
    let begin = |token: &str, title: &str| json!({"token": token, "value": {"kind": "begin", "title": title}});
    let end = |token: &str| json!({"token": token, "value": {"kind": "end"}});
    // A pass for an earlier change ends after this one was sent: not ours.
    state.on_progress(&begin("old", "diagnosing changed files"), 5, &profile);
    state.on_progress(&end("old"), 11, &profile);
    assert!(!state.pass_done_since(10, &profile));
    state.on_progress(&begin("1", "diagnosing changed files"), 12, &profile);
    state.on_progress(&begin("2", "diagnosing saved files"), 13, &profile);
    state.on_progress(&end("1"), 14, &profile);
    assert!(
        !state.pass_done_since(10, &profile),
        "the save's pass is open"
    );
    state.on_progress(&end("2"), 20, &profile);
    assert!(state.pass_done_since(10, &profile));
    // Other progress is no pass.
    let mut other = ClientState::default();
    other.on_progress(&begin("3", "Loading packages"), 12, &profile);
    other.on_progress(&end("3"), 13, &profile);
    assert!(!other.pass_done_since(10, &profile));
}

/// rust-analyzer sends a check's diagnostics in its main loop's turn
/// after the check's end: a publish that trails the end of a check that
/// had done nothing yet is that check's, and it has ended — unless
/// another check began in between.
#[test]
fn a_publish_that_trails_a_checks_end_is_that_checks() {
    let profile = checks();
    let mut state = ClientState::default();
    let begin = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "begin", "title": "cargo check"}});
    let end = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "end"}});
    let publish = json!({"uri": "file:///a.rs", "version": 2, "diagnostics": []});
    state.on_progress(&begin, 20, &profile);
    state.on_progress(&end, 21, &profile);
    assert_eq!(state.check_ended, 0, "nothing done yet");
    state.on_publish(publish.clone(), 22);
    assert_eq!(state.check_ended, 20, "its publish trailed its end");
    state.on_progress(&begin, 30, &profile);
    state.on_progress(&end, 31, &profile);
    state.on_progress(&begin, 40, &profile);
    state.on_publish(publish, 41);
    assert_eq!(state.check_ended, 20, "the publish is the running check's");
}
