//! The diagnostics wait as a decision: given a snapshot of what one server
//! has said about one document since a change, the server's profile and the
//! time, is the answer final, and if not, when to look again?
//!
//! Each stop rule is stated once, as "this decision holds from this instant
//! on" ([`Rule`]); the earliest rule in force wins, in the order listed, and
//! otherwise the wait sleeps until the earliest instant any rule names (or
//! until the server says something). No processes, no clock: the loops in
//! `lsp::diagnostics` take the snapshot, call [`decide`](PushWait::decide),
//! and act. Table tests below cover every rule.

use tokio::time::Instant;

use super::profile::WaitProfile;
use crate::diagnostic::Outcome;

mod other;

pub(crate) use other::{OtherView, decide_other};

/// Which diagnostics a finished wait answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The publish that counts for this version (none: empty).
    Counting,
    /// The document's earlier publish, which the server did not repeat.
    Held,
    /// The pull answer with what was pushed for this version since.
    Merged,
    /// The latest the server said for the document, current by the rule.
    Latest,
    /// Nothing is known for this version.
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    Done(Outcome, Answer),
    /// Nothing final yet: look again at this instant, or on the server's
    /// next message for the document, whichever comes first.
    WakeAt(Instant),
    /// Save the document again (no check began after the change).
    Resave,
    /// The server asked for a re-pull.
    Repull,
}

impl Decision {
    /// When to look again: the instant of a `WakeAt`, else `fallback` (a
    /// push wait never resaves or repulls).
    pub fn wake_at(self, fallback: Instant) -> Instant {
        match self {
            Decision::WakeAt(at) => at,
            _ => fallback,
        }
    }
}

/// A decision that holds from `at` on.
struct Rule {
    at: Instant,
    then: Decision,
}

/// The earliest rule already in force (list order breaks ties), else a wake
/// at the earliest instant any rule names.
fn first(rules: &[Rule], now: Instant) -> Decision {
    if let Some(rule) = rules.iter().find(|r| r.at <= now) {
        return rule.then;
    }
    let wake = rules.iter().map(|r| r.at).min().unwrap_or(now);
    Decision::WakeAt(wake)
}

/// What a push wait sees at one instant.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PushView {
    /// The `seq` of the publish that counts for this version, if any.
    pub counting: Option<u64>,
    /// The document has an earlier unversioned publish.
    pub held_unversioned: bool,
    /// Work-done progress begun after the change is open.
    pub busy: bool,
    /// A diagnosis pass begun after the change has ended, none open since.
    pub pass_done: bool,
    pub dead: bool,
}

/// A push wait's memory between snapshots.
#[derive(Debug, Clone)]
pub(crate) struct PushWait {
    pub started: Instant,
    pub deadline: Instant,
    settle_until: Option<Instant>,
    last_counted: u64,
}

impl PushWait {
    pub fn new(started: Instant, deadline: Instant) -> PushWait {
        PushWait {
            started,
            deadline,
            settle_until: None,
            last_counted: 0,
        }
    }

    pub fn decide(&mut self, view: &PushView, profile: &WaitProfile, now: Instant) -> Decision {
        // A new counting publish (a later wave) restarts the settle window.
        if let Some(seq) = view.counting
            && seq != self.last_counted
        {
            self.last_counted = seq;
            self.settle_until = Some(now + profile.settle);
        }
        let mut rules = Vec::with_capacity(4);
        if view.dead {
            rules.push(Rule {
                at: now,
                then: Decision::Done(Outcome::ServerDead, Answer::Counting),
            });
        }
        // The pass that read the change has published all it will: no
        // publish for this version means the earlier one stands.
        if view.pass_done {
            let answer = match view.counting {
                Some(_) => Answer::Counting,
                None => Answer::Held,
            };
            rules.push(Rule {
                at: now,
                then: Decision::Done(Outcome::Settled, answer),
            });
        }
        if let Some(until) = self.settle_until
            && !view.busy
        {
            rules.push(Rule {
                at: until,
                then: Decision::Done(Outcome::Settled, Answer::Counting),
            });
        }
        if view.counting.is_none()
            && !view.busy
            && view.held_unversioned
            && !profile.unchanged_quiet.is_zero()
        {
            rules.push(Rule {
                at: self.started + profile.unchanged_quiet.max(profile.settle),
                then: Decision::Done(Outcome::Settled, Answer::Held),
            });
        }
        rules.push(Rule {
            at: self.deadline,
            then: Decision::Done(Outcome::TimedOut, Answer::Counting),
        });
        first(&rules, now)
    }
}

/// What a partial-pull wait sees at one instant.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PartialView {
    /// A `workspace/diagnostic/refresh` arrived since the pull was sent.
    pub refreshed: bool,
    /// Progress (not background) is open.
    pub busy: bool,
    /// An on-save check begun after the change is running.
    pub checking: bool,
    /// An on-save check began after the change (running, ended or
    /// abandoned since), whether or not a view saw it run.
    pub check_seen: bool,
    /// An on-save check begun after the change has ended, no save since.
    pub check_done: bool,
    /// When that check ended: its grace runs from there, so a wait begun
    /// after it (another file's, in the second phase) does not wait again.
    pub check_ended_at: Option<Instant>,
    /// Something was pushed for this version after the change.
    pub pushed: bool,
    /// The server wants saves and still has this version.
    pub can_resave: bool,
    /// A save starts a check (`WaitProfile::save_starts_check`), and this
    /// client has not shown otherwise.
    pub check_expected: bool,
    pub dead: bool,
}

/// A partial-pull wait's memory between snapshots (kept across re-pulls).
#[derive(Debug, Clone)]
pub(crate) struct PartialWait {
    pub deadline: Instant,
    idle_since: Instant,
    /// When the latest pull answer arrived.
    pulled_at: Instant,
    was_busy: bool,
    was_done: bool,
    /// A check begun after the change has ended having done something
    /// (or, for a server whose saves start no check, something was pushed).
    check_began: bool,
    /// A check's progress was seen after the change, whatever it did.
    check_seen: bool,
    resaved: bool,
}

impl PartialWait {
    pub fn new(now: Instant, deadline: Instant) -> PartialWait {
        PartialWait {
            deadline,
            idle_since: now,
            pulled_at: now,
            was_busy: false,
            was_done: false,
            check_began: false,
            check_seen: false,
            resaved: false,
        }
    }

    /// A new pull answer arrived: the idle window starts again.
    pub fn pulled(&mut self, now: Instant) {
        self.idle_since = now;
        self.pulled_at = now;
        self.was_busy = false;
        self.was_done = false;
    }

    /// Saved again, and no check began since the change: what a deadline
    /// reached now says of a server whose saves should start checks.
    pub fn resaved_in_vain(&self) -> bool {
        self.resaved && !self.check_seen
    }

    /// Saved again, and every check begun since the change ended having
    /// done nothing: what a deadline reached now says of a server whose
    /// checks report nothing when they find nothing.
    pub fn only_quiet_checks(&self) -> bool {
        self.resaved && self.check_seen && !self.check_began
    }

    /// The document was saved again after a [`Decision::Resave`].
    pub fn resaved(&mut self, now: Instant) {
        self.resaved = true;
        self.idle_since = now;
    }

    pub fn decide(&mut self, view: &PartialView, profile: &WaitProfile, now: Instant) -> Decision {
        // A check that ends having done nothing (cancelled by a save, or
        // rust-analyzer 1.99's empty check before its real one) is no
        // check: the one after it is waited for. While one runs the
        // server is busy, so no rule below ends the wait meanwhile. A push
        // alone is no check for a server whose saves start checks:
        // rust-analyzer stamps what a check begun before the change
        // publishes with the version it holds now.
        self.check_began |= view.check_done || (view.pushed && !view.check_expected);
        self.check_seen |= view.check_seen || view.checking || view.check_done;
        // The idle window runs from when the server was seen to go idle or
        // its check to end, even if both happened between two snapshots.
        if (self.was_busy && !view.busy) || (view.check_done && !self.was_done) {
            self.idle_since = now;
        }
        self.was_busy = view.busy;
        self.was_done = view.check_done;
        let grace = profile.check_end_grace.min(profile.settle);
        // Once a check begun after the change has ended, what it pushed is
        // in a grace after its end; the pull answer is current if it came
        // after that end.
        let idle_until = match (view.check_done, view.check_ended_at) {
            (true, Some(ended)) => (ended + grace).max(self.pulled_at),
            (true, None) => self.idle_since + grace,
            (false, _) => self.idle_since + profile.settle,
        };
        let mut rules = Vec::with_capacity(4);
        // A check that ended after the latest pull answer: a pull sent now
        // is answered after what the check published (`repull_after_check`).
        let ended_unanswered = profile.repull_after_check
            && view.check_done
            && view
                .check_ended_at
                .is_some_and(|ended| ended > self.pulled_at);
        if view.refreshed || ended_unanswered {
            rules.push(Rule {
                at: now,
                then: Decision::Repull,
            });
        }
        if view.dead {
            rules.push(Rule {
                at: now,
                then: Decision::Done(Outcome::ServerDead, Answer::Merged),
            });
        }
        if !view.busy {
            // Saved again with no check begun: a server whose saves start
            // checks is waited on for one (or the deadline), not the idle
            // window.
            let complete =
                self.check_began || !view.can_resave || (self.resaved && !view.check_expected);
            let then = match (complete, self.resaved) {
                (true, _) => Some(Decision::Done(Outcome::Pulled, Answer::Merged)),
                (false, false) => Some(Decision::Resave),
                (false, true) => None,
            };
            rules.extend(then.map(|then| Rule {
                at: idle_until,
                then,
            }));
        }
        rules.push(Rule {
            at: self.deadline,
            then: Decision::Done(Outcome::TimedOut, Answer::Merged),
        });
        first(&rules, now)
    }
}

#[cfg(test)]
mod tests;
