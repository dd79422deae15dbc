//! Table tests of the partial-pull wait (rust-analyzer's: a pull that
//! holds its own analysis, and an on-save check that pushes the rest).

use std::time::Duration;

use tokio::time::Instant;

use super::super::*;
use super::{at, ms, profile};
use crate::lsp::profile::WaitProfile;

fn partial_profile() -> WaitProfile {
    WaitProfile {
        pull_is_partial: true,
        ..profile(300, 0)
    }
}

/// Runs `rows` of (ms, view, expected) through one partial-pull wait begun
/// at `t0` with a `deadline_ms` budget.
fn partial_table(t0: Instant, deadline_ms: u64, rows: &[(u64, PartialView, Decision)]) {
    let p = partial_profile();
    let mut wait = PartialWait::new(t0, t0 + ms(deadline_ms));
    for (i, (at, view, expected)) in rows.iter().enumerate() {
        let got = wait.decide(view, &p, t0 + ms(*at));
        assert_eq!(&got, expected, "row {i} at {at} ms: {view:?}");
    }
}

const MERGED: Decision = Decision::Done(Outcome::Pulled, Answer::Merged);

#[test]
fn partial_pull_waits_out_progress_then_the_idle_window() {
    let t0 = Instant::now();
    let busy = PartialView {
        busy: true,
        checking: true,
        ..PartialView::default()
    };
    let idle = PartialView::default();
    // Idle from 400 ms: the settle window runs from there.
    let rows = [
        (10, busy, at(t0, 10_000)),
        (400, idle, at(t0, 700)),
        (700, idle, MERGED),
    ];
    partial_table(t0, 10_000, &rows);
}

#[test]
fn partial_pull_ends_a_grace_after_its_check_ends() {
    let t0 = Instant::now();
    let done = PartialView {
        check_done: true,
        ..PartialView::default()
    };
    partial_table(t0, 10_000, &[(200, done, at(t0, 300)), (300, done, MERGED)]);
}

/// rust-analyzer: a check that ended after the pull answer is followed by
/// a pull, and that pull's answer ends the wait with no grace; one ended
/// before the answer ends it at once.
#[test]
fn a_check_ended_after_the_pull_answer_is_answered_by_a_repull() {
    let t0 = Instant::now();
    let p = WaitProfile {
        repull_after_check: true,
        check_end_grace: Duration::ZERO,
        ..partial_profile()
    };
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    wait.pulled(t0 + ms(5));
    let checking = PartialView {
        busy: true,
        checking: true,
        ..PartialView::default()
    };
    assert_eq!(wait.decide(&checking, &p, t0 + ms(100)), at(t0, 10_000));
    let ended = PartialView {
        check_done: true,
        check_ended_at: Some(t0 + ms(300)),
        ..PartialView::default()
    };
    assert_eq!(wait.decide(&ended, &p, t0 + ms(300)), Decision::Repull);
    wait.pulled(t0 + ms(302));
    assert_eq!(wait.decide(&ended, &p, t0 + ms(302)), MERGED);
}

#[test]
fn a_check_ended_before_the_wait_began_is_not_waited_on_again() {
    // The second phase's wait on another file: the check that answered the
    // edit ended 300 ms before it began, and its grace is long over.
    let t0 = Instant::now();
    let p = partial_profile();
    let mut wait = PartialWait::new(t0 + ms(400), t0 + ms(10_000));
    let done = PartialView {
        check_done: true,
        check_ended_at: Some(t0 + ms(100)),
        ..PartialView::default()
    };
    wait.pulled(t0 + ms(405));
    assert_eq!(wait.decide(&done, &p, t0 + ms(405)), MERGED);
    // In the first phase the grace runs from the check's end.
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    let ended = PartialView {
        check_ended_at: Some(t0 + ms(200)),
        ..done
    };
    wait.pulled(t0 + ms(203));
    assert_eq!(wait.decide(&ended, &p, t0 + ms(203)), at(t0, 300));
    assert_eq!(wait.decide(&ended, &p, t0 + ms(300)), MERGED);
}

#[test]
fn partial_pull_saves_again_once_when_no_check_began() {
    let t0 = Instant::now();
    let p = partial_profile();
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    let idle = PartialView {
        can_resave: true,
        ..PartialView::default()
    };
    assert_eq!(wait.decide(&idle, &p, t0 + ms(300)), Decision::Resave);
    wait.resaved(t0 + ms(300));
    assert_eq!(wait.decide(&idle, &p, t0 + ms(300)), at(t0, 600));
    assert_eq!(wait.decide(&idle, &p, t0 + ms(600)), MERGED);
    // A server that takes no saves is done at once.
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(
        wait.decide(&PartialView::default(), &p, t0 + ms(300)),
        MERGED
    );
}

#[test]
fn partial_pull_repulls_on_refresh_and_stops_at_death_or_deadline() {
    let busy = PartialView {
        busy: true,
        ..PartialView::default()
    };
    let refreshed = PartialView {
        refreshed: true,
        ..busy
    };
    let dead = PartialView { dead: true, ..busy };
    let rows = [
        (5, refreshed, Decision::Repull),
        (6, dead, Decision::Done(Outcome::ServerDead, Answer::Merged)),
        (
            1000,
            busy,
            Decision::Done(Outcome::TimedOut, Answer::Merged),
        ),
    ];
    partial_table(Instant::now(), 1000, &rows);
}

/// A server whose saves start checks (rust-analyzer): once saved again,
/// the wait is for a check to begin and end, however long the server
/// takes to begin it, not the idle window; one that has shown its saves
/// start none ends after the window as before.
#[test]
fn after_a_resave_a_server_whose_saves_start_checks_is_waited_on_for_one() {
    let t0 = Instant::now();
    let p = partial_profile();
    let idle = PartialView {
        can_resave: true,
        check_expected: true,
        ..PartialView::default()
    };
    let checking = PartialView {
        busy: true,
        checking: true,
        ..idle
    };
    let done = PartialView {
        check_done: true,
        check_ended_at: Some(t0 + ms(2_000)),
        ..idle
    };
    let rows = [
        (300, idle, Decision::Resave),
        (600, idle, at(t0, 10_000)),
        (1_900, checking, at(t0, 10_000)),
        (2_000, done, at(t0, 2_100)),
        (2_100, done, MERGED),
    ];
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    for (i, (when, view, expected)) in rows.iter().enumerate() {
        let got = wait.decide(view, &p, t0 + ms(*when));
        assert_eq!(&got, expected, "row {i} at {when} ms");
        if got == Decision::Resave {
            wait.resaved(t0 + ms(*when));
        }
    }
    // Never begun: the deadline, and the wait says it saved in vain.
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&idle, &p, t0 + ms(300)), Decision::Resave);
    wait.resaved(t0 + ms(300));
    assert_eq!(
        wait.decide(&idle, &p, t0 + ms(10_000)),
        Decision::Done(Outcome::TimedOut, Answer::Merged)
    );
    assert!(wait.resaved_in_vain());
    // Learned otherwise: the idle window after the resave ends it.
    let unexpected = PartialView {
        check_expected: false,
        ..idle
    };
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&unexpected, &p, t0 + ms(300)), Decision::Resave);
    wait.resaved(t0 + ms(300));
    assert_eq!(wait.decide(&unexpected, &p, t0 + ms(600)), MERGED);
}

/// A check that begins and ends having done nothing (cancelled by a save,
/// or rust-analyzer 1.99's empty check before its real one) is no check:
/// the wait saves again, then waits for a check however long it takes to
/// begin, and the check that ends having done something answers.
#[test]
fn a_check_that_ends_having_done_nothing_is_no_check_begun() {
    let t0 = Instant::now();
    let p = partial_profile();
    let expecting = PartialView {
        can_resave: true,
        check_expected: true,
        ..PartialView::default()
    };
    let empty_check = PartialView {
        busy: true,
        checking: true,
        ..expecting
    };
    let done = PartialView {
        check_done: true,
        check_ended_at: Some(t0 + ms(1_800)),
        ..expecting
    };
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&empty_check, &p, t0 + ms(100)), at(t0, 10_000));
    // It ended with nothing: an idle window later, saved again.
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(130)), at(t0, 430));
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(430)), Decision::Resave);
    wait.resaved(t0 + ms(430));
    // Another empty check, then quiet past the idle window: still waiting.
    assert_eq!(wait.decide(&empty_check, &p, t0 + ms(440)), at(t0, 10_000));
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(1_200)), at(t0, 10_000));
    assert!(!wait.resaved_in_vain(), "a check was seen");
    // It ended having done something: its grace, then the answer.
    assert_eq!(wait.decide(&done, &p, t0 + ms(1_800)), at(t0, 1_900));
    assert_eq!(wait.decide(&done, &p, t0 + ms(1_900)), MERGED);
}

/// rust-analyzer publishes what a check begun before the change found
/// with the version it holds now: for a server whose saves start checks,
/// a push is no check begun, and the wait saves again when none begins.
#[test]
fn a_push_alone_is_no_check_begun_when_saves_start_checks() {
    let t0 = Instant::now();
    let p = partial_profile();
    let pushed = PartialView {
        pushed: true,
        can_resave: true,
        check_expected: true,
        ..PartialView::default()
    };
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&pushed, &p, t0 + ms(300)), Decision::Resave);
    // A server whose saves start none: the push is its answer.
    let plain = PartialView {
        check_expected: false,
        ..pushed
    };
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&plain, &p, t0 + ms(300)), MERGED);
}

/// A server whose checks report nothing when they find nothing (a check
/// command that prints no crates): every check ends having done nothing,
/// and the wait runs to its deadline — once; the deadline says so of the
/// server (`only_quiet_checks`), and its client counts such checks from
/// then on. A check that began and ended between two views counts as seen.
#[test]
fn a_wait_that_saw_only_quiet_checks_says_so_at_its_deadline() {
    let t0 = Instant::now();
    let p = partial_profile();
    let expecting = PartialView {
        can_resave: true,
        check_expected: true,
        ..PartialView::default()
    };
    let empty_check = PartialView {
        busy: true,
        checking: true,
        check_seen: true,
        ..expecting
    };
    let unseen_check = PartialView {
        check_seen: true,
        ..expecting
    };
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&empty_check, &p, t0 + ms(100)), at(t0, 10_000));
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(130)), at(t0, 430));
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(430)), Decision::Resave);
    wait.resaved(t0 + ms(430));
    assert_eq!(wait.decide(&unseen_check, &p, t0 + ms(500)), at(t0, 10_000));
    let timed_out = Decision::Done(Outcome::TimedOut, Answer::Merged);
    assert_eq!(wait.decide(&unseen_check, &p, t0 + ms(10_000)), timed_out);
    assert!(wait.only_quiet_checks() && !wait.resaved_in_vain());
    // Had no check begun at all, the deadline says the saves start none.
    let mut wait = PartialWait::new(t0, t0 + ms(10_000));
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(300)), Decision::Resave);
    wait.resaved(t0 + ms(300));
    assert_eq!(wait.decide(&expecting, &p, t0 + ms(10_000)), timed_out);
    assert!(wait.resaved_in_vain() && !wait.only_quiet_checks());
}
