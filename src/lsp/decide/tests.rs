//! Table tests of the decision: each row is a snapshot, the time it is taken
//! at (ms after the wait began) and the decision expected.

use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::lsp::profile::{OthersDone, WaitProfile};

mod partial;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn profile(settle: u64, unchanged_quiet: u64) -> WaitProfile {
    WaitProfile {
        settle: ms(settle),
        unchanged_quiet: ms(unchanged_quiet),
        check_end_grace: ms(100),
        ..WaitProfile::default()
    }
}

/// Runs `rows` of (ms, view, expected) through one push wait.
fn push_table(profile: &WaitProfile, deadline_ms: u64, rows: &[(u64, PushView, Decision)]) {
    let t0 = Instant::now();
    let mut wait = PushWait::new(t0, t0 + ms(deadline_ms));
    for (i, (at, view, expected)) in rows.iter().enumerate() {
        let got = wait.decide(view, profile, t0 + ms(*at));
        assert_eq!(&got, expected, "row {i} at {at} ms: {view:?}");
    }
}

fn at(t0: Instant, n: u64) -> Decision {
    Decision::WakeAt(t0 + ms(n))
}

#[test]
fn push_waits_for_a_counting_publish_then_the_settle_window() {
    let t0 = Instant::now();
    let p = profile(300, 0);
    let mut wait = PushWait::new(t0, t0 + ms(3000));
    let nothing = PushView::default();
    let counted = |seq| PushView {
        counting: Some(seq),
        ..PushView::default()
    };
    // Nothing yet: sleep until the deadline (or the next message).
    assert_eq!(wait.decide(&nothing, &p, t0), at(t0, 3000));
    // A counting publish at 100 ms: settle until 400 ms.
    assert_eq!(wait.decide(&counted(5), &p, t0 + ms(100)), at(t0, 400));
    // A second wave at 200 ms restarts the window.
    assert_eq!(wait.decide(&counted(6), &p, t0 + ms(200)), at(t0, 500));
    // The same publish seen again changes nothing.
    assert_eq!(wait.decide(&counted(6), &p, t0 + ms(300)), at(t0, 500));
    assert_eq!(
        wait.decide(&counted(6), &p, t0 + ms(500)),
        Decision::Done(Outcome::Settled, Answer::Counting)
    );
}

#[test]
fn push_with_no_settle_window_is_done_at_the_counting_publish() {
    let counted = PushView {
        counting: Some(1),
        ..PushView::default()
    };
    push_table(
        &profile(0, 0),
        3000,
        &[(
            40,
            counted,
            Decision::Done(Outcome::Settled, Answer::Counting),
        )],
    );
}

#[test]
fn open_progress_holds_a_settled_answer_until_it_ends() {
    let t0 = Instant::now();
    let p = profile(0, 0);
    let mut wait = PushWait::new(t0, t0 + ms(3000));
    let busy = PushView {
        counting: Some(1),
        busy: true,
        ..PushView::default()
    };
    assert_eq!(wait.decide(&busy, &p, t0 + ms(10)), at(t0, 3000));
    let idle = PushView {
        busy: false,
        ..busy
    };
    assert_eq!(
        wait.decide(&idle, &p, t0 + ms(50)),
        Decision::Done(Outcome::Settled, Answer::Counting)
    );
}

#[test]
fn an_unversioned_server_that_stays_silent_keeps_its_earlier_answer() {
    let held = PushView {
        held_unversioned: true,
        ..PushView::default()
    };
    let t0 = Instant::now();
    let p = profile(300, 2000);
    let mut wait = PushWait::new(t0, t0 + ms(3000));
    assert_eq!(wait.decide(&held, &p, t0), at(t0, 2000));
    assert_eq!(
        wait.decide(&held, &p, t0 + ms(2000)),
        Decision::Done(Outcome::Settled, Answer::Held)
    );
    // Without the profile's quiet rule the same silence runs to the deadline.
    let mut strict = PushWait::new(t0, t0 + ms(3000));
    assert_eq!(
        strict.decide(&held, &profile(300, 0), t0 + ms(2000)),
        at(t0, 3000)
    );
}

#[test]
fn push_deadline_and_death() {
    let nothing = PushView::default();
    let dead = PushView {
        dead: true,
        ..PushView::default()
    };
    let t0 = Instant::now();
    let p = profile(150, 0);
    let mut wait = PushWait::new(t0, t0 + ms(1000));
    assert_eq!(
        wait.decide(&nothing, &p, t0 + ms(1000)),
        Decision::Done(Outcome::TimedOut, Answer::Counting)
    );
    let mut wait = PushWait::new(t0, t0 + ms(1000));
    assert_eq!(
        wait.decide(&dead, &p, t0 + ms(5)),
        Decision::Done(Outcome::ServerDead, Answer::Counting)
    );
}

fn others(rule: OthersDone) -> WaitProfile {
    WaitProfile {
        others_done: rule,
        others_quiet: ms(300),
        ..profile(300, 0)
    }
}

/// Another file's latest diagnostics are current; or unknown at the end.
const CURRENT: Decision = Decision::Done(Outcome::Settled, Answer::Latest);
const UNKNOWN: Decision = Decision::Done(Outcome::TimedOut, Answer::Unknown);

/// `decide_other` in a phase that began at `t0` with a 3 s deadline, asked
/// `now` ms after it began.
fn other_at(view: &OtherView, p: &WaitProfile, t0: Instant, now: u64) -> Decision {
    decide_other(view, p, t0, t0 + ms(3000), t0 + ms(now))
}

#[test]
fn another_file_is_unknown_when_the_edited_answer_was_not_final() {
    let t0 = Instant::now();
    for rule in [OthersDone::Quiet, OthersDone::RebuildStatus] {
        assert_eq!(
            other_at(&OtherView::default(), &others(rule), t0, 0),
            UNKNOWN
        );
    }
}

#[test]
fn another_file_once_the_server_is_quiet() {
    let t0 = Instant::now();
    let p = others(OthersDone::Quiet);
    let view = OtherView {
        edited_done: true,
        last_publish: Some(t0 + ms(50)),
        ..OtherView::default()
    };
    assert_eq!(other_at(&view, &p, t0, 60), at(t0, 350));
    assert_eq!(other_at(&view, &p, t0, 350), CURRENT);
    // The quiet already spent in the edited file's own settle window
    // counts: a phase that begins 300 ms after the last publish is done at
    // once, not 300 ms later.
    let settled = OtherView {
        last_publish: Some(t0 + ms(400)),
        ..view
    };
    assert_eq!(other_at(&settled, &p, t0, 700), CURRENT);
    // A publish from before the edit was written counts from the writing.
    let old = OtherView {
        last_publish: Some(t0 - ms(5000)),
        ..view
    };
    assert_eq!(other_at(&old, &p, t0, 0), at(t0, 300));
    // Open progress holds it.
    let busy = OtherView { busy: true, ..view };
    assert_eq!(other_at(&busy, &p, t0, 400), at(t0, 3000));
}

#[test]
fn another_file_by_its_rebuild_status_clangd() {
    let t0 = Instant::now();
    let p = others(OthersDone::RebuildStatus);
    let queued = OtherView {
        edited_done: true,
        status_since: true,
        ..OtherView::default()
    };
    // Queued for a rebuild: wait for its republish.
    assert_eq!(other_at(&queued, &p, t0, 0), at(t0, 3000));
    let republished = OtherView {
        republished: true,
        ..queued
    };
    assert_eq!(other_at(&republished, &p, t0, 40), CURRENT);
    // Never queued: the server is not rebuilding it; its diagnostics stand.
    let untouched = OtherView {
        edited_done: true,
        ..OtherView::default()
    };
    assert_eq!(other_at(&untouched, &p, t0, 0), CURRENT);
    // At the deadline, still queued: unknown.
    assert_eq!(other_at(&queued, &p, t0, 3000), UNKNOWN);
}

#[test]
fn another_file_looked_at_again_and_left_idle_clangd_header() {
    let t0 = Instant::now();
    let p = others(OthersDone::RebuildStatus);
    // Queued, re-read ("parsing includes"), idle at 60 ms, no republish:
    // current once no status came for `others_quiet` after the idle one
    // (clangd's rebuild of an includer can follow its re-read after up to
    // its 500 ms debounce, so clangd's window is longer than that).
    let idle = OtherView {
        edited_done: true,
        status_since: true,
        idle_after_work: Some(t0 + ms(60)),
        ..OtherView::default()
    };
    assert_eq!(other_at(&idle, &p, t0, 100), at(t0, 360));
    assert_eq!(other_at(&idle, &p, t0, 360), CURRENT);
    // Idle only between queueing and the rebuild (no work since the
    // change): still waiting for the republish.
    let between = OtherView {
        idle_after_work: None,
        ..idle
    };
    assert_eq!(other_at(&between, &p, t0, 400), at(t0, 3000));
}

#[test]
fn a_diagnosis_pass_that_ended_answers_the_edited_file_at_once() {
    // gopls with `verboseWorkDoneProgress`: the pass's end, not a window.
    let t0 = Instant::now();
    let p = profile(150, 0);
    let mut wait = PushWait::new(t0, t0 + ms(3000));
    let counted = PushView {
        counting: Some(4),
        ..PushView::default()
    };
    assert_eq!(wait.decide(&counted, &p, t0 + ms(10)), at(t0, 160));
    let ended = PushView {
        pass_done: true,
        ..counted
    };
    assert_eq!(
        wait.decide(&ended, &p, t0 + ms(12)),
        Decision::Done(Outcome::Settled, Answer::Counting)
    );
}

#[test]
fn a_pass_that_republished_nothing_for_the_edited_file_keeps_its_earlier_answer() {
    let ended = PushView {
        pass_done: true,
        ..PushView::default()
    };
    push_table(
        &profile(0, 0),
        3000,
        &[(15, ended, Decision::Done(Outcome::Settled, Answer::Held))],
    );
}

#[test]
fn another_file_is_current_once_the_pass_has_ended_with_no_quiet_window() {
    let t0 = Instant::now();
    let p = others(OthersDone::Quiet);
    let ended = OtherView {
        edited_done: true,
        last_publish: Some(t0 + ms(10)),
        pass_done: true,
        ..OtherView::default()
    };
    assert_eq!(other_at(&ended, &p, t0, 11), CURRENT);
    // Not before the edited file's own answer was final.
    let early = OtherView {
        edited_done: false,
        ..ended
    };
    assert_eq!(other_at(&early, &p, t0, 11), UNKNOWN);
}

#[test]
fn an_idle_request_asked_is_the_only_end_of_the_wait_but_the_deadline_clangd() {
    let t0 = Instant::now();
    let p = others(OthersDone::RebuildStatus);
    // Re-read and idle at 60 ms, the idle request asked: no quiet window
    // ends the wait (an includer's rebuild may follow the idle later than
    // any window), nor a republish (it may be of work begun before the
    // change), nor no status at all (it may still be on its way).
    let asked = OtherView {
        edited_done: true,
        status_since: true,
        idle_after_work: Some(t0 + ms(60)),
        idle_pending: true,
        ..OtherView::default()
    };
    assert_eq!(other_at(&asked, &p, t0, 2000), at(t0, 3000));
    let republished = OtherView {
        republished: true,
        ..asked
    };
    assert_eq!(other_at(&republished, &p, t0, 40), at(t0, 3000));
    let silent = OtherView {
        status_since: false,
        idle_after_work: None,
        ..asked
    };
    assert_eq!(other_at(&silent, &p, t0, 10), at(t0, 3000));
    assert_eq!(other_at(&asked, &p, t0, 3000), UNKNOWN);
    let answered = OtherView {
        idle_pending: false,
        pass_done: true,
        ..asked
    };
    assert_eq!(other_at(&answered, &p, t0, 70), CURRENT);
    // Answered with an error: the status rules again.
    let refused = OtherView {
        idle_pending: false,
        ..asked
    };
    assert_eq!(other_at(&refused, &p, t0, 100), at(t0, 360));
    // The same for a server that has only a quiet window.
    let quiet = OtherView {
        edited_done: true,
        last_publish: Some(t0 + ms(50)),
        idle_pending: true,
        ..OtherView::default()
    };
    let p = others(OthersDone::Quiet);
    assert_eq!(other_at(&quiet, &p, t0, 400), at(t0, 3000));
}
