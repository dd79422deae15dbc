//! The wait on another open file (unchanged by this edit): its
//! diagnostics are current once the server is done with the edit, by the
//! server's profile.

use tokio::time::Instant;

use super::{Answer, Decision, Rule, first};
use crate::diagnostic::Outcome;
use crate::lsp::profile::{OthersDone, WaitProfile};

/// What the wait for another open file (unchanged by this edit) sees.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OtherView {
    /// The server's answer for the edited file was final (settled or pulled).
    pub edited_done: bool,
    /// The file was published after the change.
    pub republished: bool,
    /// The server reported a status for the file after the change.
    pub status_since: bool,
    /// When the file's latest status, idle, arrived, if work on it began
    /// after the change.
    pub idle_after_work: Option<Instant>,
    /// When the server last published anything (any file), if ever.
    pub last_publish: Option<Instant>,
    pub busy: bool,
    /// The server's idle request (`WaitProfile::idle_request`) is asked,
    /// or about to be, and not answered: only its answer or the deadline
    /// ends the wait.
    pub idle_pending: bool,
    /// A diagnosis pass begun after the change has ended, none open since
    /// (or the idle request was answered): what it did not republish
    /// stands.
    pub pass_done: bool,
    pub dead: bool,
}

/// Decides whether another open file's latest diagnostics are current.
/// `written`: when the edit was written. A server's quiet counts from its
/// last publish after that, so the time the edited file's own wait already
/// spent quiet (its settle window) is not waited again here.
pub(crate) fn decide_other(
    view: &OtherView,
    profile: &WaitProfile,
    written: Instant,
    deadline: Instant,
    now: Instant,
) -> Decision {
    let latest = Decision::Done(Outcome::Settled, Answer::Latest);
    let mut rules = Vec::with_capacity(3);
    if view.dead {
        rules.push(Rule {
            at: now,
            then: Decision::Done(Outcome::ServerDead, Answer::Unknown),
        });
    }
    if !view.edited_done {
        // The server never finished the edit itself: nothing is known.
        rules.push(Rule {
            at: now,
            then: Decision::Done(Outcome::TimedOut, Answer::Unknown),
        });
    }
    if view.pass_done {
        rules.push(Rule {
            at: now,
            then: latest,
        });
    }
    match profile.others_done {
        // Only its answer (`pass_done`), which comes after every publish
        // and status of the work the change caused, or the deadline: a
        // republish may be of work begun before the change, "no status"
        // may be a status still on its way, a window is a guess.
        _ if view.idle_pending => {}
        OthersDone::Quiet if !view.busy => {
            let quiet_from = view.last_publish.map_or(written, |t| t.max(written));
            rules.push(Rule {
                at: quiet_from + profile.others_quiet,
                then: latest,
            });
        }
        OthersDone::Quiet => {}
        OthersDone::RebuildStatus => {
            if view.republished || !view.status_since {
                rules.push(Rule {
                    at: now,
                    then: latest,
                });
            } else if let Some(idle) = view.idle_after_work {
                rules.push(Rule {
                    at: idle + profile.others_quiet,
                    then: latest,
                });
            }
        }
    }
    rules.push(Rule {
        at: deadline,
        then: Decision::Done(Outcome::TimedOut, Answer::Unknown),
    });
    first(&rules, now)
}
