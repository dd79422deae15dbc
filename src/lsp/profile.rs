//! How a server says "I am done with this change": the facts the diagnostics
//! wait needs about one server, as data. The generic wait
//! (`lsp::decide`) reads them; the registry fills them per server from
//! measurement (`docs/servers.md`), and users may set them for their own
//! servers. Nothing in the wait matches a server by name.

use std::time::Duration;

/// Matches a work-done progress by its token or its title (substrings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressPattern {
    pub token: Option<String>,
    pub title: Option<String>,
}

impl ProgressPattern {
    /// Progress whose token contains `text`.
    pub fn token(text: &str) -> ProgressPattern {
        ProgressPattern {
            token: Some(text.to_string()),
            title: None,
        }
    }

    /// Progress whose title contains `text`.
    pub fn title(text: &str) -> ProgressPattern {
        ProgressPattern {
            token: None,
            title: Some(text.to_string()),
        }
    }

    pub fn matches(&self, token: &str, title: Option<&str>) -> bool {
        self.token.as_deref().is_some_and(|t| token.contains(t))
            || self
                .title
                .as_deref()
                .is_some_and(|t| title.is_some_and(|title| title.contains(t)))
    }
}

/// When another open file's diagnostics are current after a change to the
/// edited one, for a server that pushes (a pull is exact whatever this says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OthersDone {
    /// Once no publish for any file has arrived for `others_quiet` after the
    /// edited file's answer: the server publishes the other files whose
    /// diagnostics changed around the edited one's, with no signal when it
    /// is through, and does not republish the rest, whose earlier
    /// diagnostics stand (gopls: one burst; typescript-language-server:
    /// unversioned waves after the edited file's).
    #[default]
    Quiet,
    /// The server reports each file it rebuilds through a status
    /// notification (`status_method`), and republishes each one it rebuilt:
    /// a file is current once it has been republished after the change, or
    /// once the edited file's answer is in and the server never queued it,
    /// or once its work began after the change and it has been idle
    /// (`status_idle`) with no further status for `others_quiet` — the
    /// server looked again and had nothing new to publish (clangd's
    /// `textDocument/clangd.fileStatus`; a header open as a file of its own
    /// is re-read but not rebuilt).
    RebuildStatus,
}

/// A request other than the LSP pull that answers a file's diagnostics for
/// the text the server holds now (`lsp::sync_pull`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPull {
    /// tsserver's synchronous diagnostics requests, forwarded by
    /// typescript-language-server's `typescript.tsserverRequest` command.
    Tsserver,
}

/// What the diagnostics wait knows about one server's signals.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitProfile {
    /// Quiet time after a counting publish before push diagnostics are
    /// final (later waves restart it); zero when one publish per version is
    /// the whole answer.
    pub settle: Duration,
    /// For unversioned publishes: one arriving within this long after a
    /// change was written belongs to the round before it, never the answer.
    pub stale_window: Duration,
    /// For an unversioned server that does not repeat an unchanged set: after
    /// this long with no publish since the change (and no progress), the
    /// document's earlier publish is taken as the answer. Zero: never.
    pub unchanged_quiet: Duration,
    /// Pull answers can be partial: empty while the workspace loads (a
    /// `workspace/diagnostic/refresh` asks for a re-pull), and without what
    /// an on-save checker pushes (rust-analyzer's cargo check).
    pub pull_is_partial: bool,
    /// Progress that produces no diagnostics and never holds a wait
    /// (rust-analyzer's cache priming).
    pub background_progress: Vec<ProgressPattern>,
    /// Progress of an on-save check whose pushes complete a partial pull.
    pub check_progress: Vec<ProgressPattern>,
    /// Progress the server wraps each diagnosis pass in, ending it once it
    /// has published every file that pass changed (gopls with
    /// `verboseWorkDoneProgress`: "diagnosing changed files"). Once one
    /// begun after a change has ended and none is open, the change is
    /// answered for every file, with no quiet window; a server that never
    /// reports one is waited on as its other fields say.
    pub pass_progress: Vec<ProgressPattern>,
    /// How long a partial-pull wait stays once an on-save check begun after
    /// the change has ended (instead of the settle window).
    pub check_end_grace: Duration,
    /// Instead of waiting `check_end_grace` for what the check publishes
    /// around its end, pull again once it has ended: the server answers a
    /// request read after the end only after it has published what that
    /// check found (rust-analyzer publishes at the end of the main-loop turn
    /// that reports the end, and answers requests read in later turns).
    pub repull_after_check: bool,
    /// A check the server starts for a save begins at least this long after
    /// the save (its own debounce): a check seen to begin sooner after our
    /// save was started before it, and our save is about to cancel it, so
    /// its end is not our answer.
    pub check_save_debounce: Duration,
    /// A save the server takes starts an on-save check (rust-analyzer's
    /// cargo check, on by default): once a wait has saved again because no
    /// check began, it waits for one to begin and end, up to its deadline,
    /// instead of ending after the idle window. A loaded machine can hold
    /// the check's start for more than a second past the save; ending
    /// sooner answered without the check's errors. A client whose resave
    /// ran to the deadline with no check begun has them turned off, and
    /// its later waits end after the idle window again.
    pub save_starts_check: bool,
    /// The on-save check covers the whole project (rust-analyzer's cargo
    /// check): a file opened or updated only to read its diagnostics after
    /// another file's edit is not saved, since a save would start another
    /// check of everything and the edit's check already covered it.
    pub check_covers_project: bool,
    /// When other open files are current (see [`OthersDone`]).
    pub others_done: OthersDone,
    /// For [`OthersDone::Quiet`]: how long the server must have published
    /// nothing before other files' diagnostics are taken as current.
    pub others_quiet: Duration,
    /// The server's per-file status notification, for
    /// [`OthersDone::RebuildStatus`].
    pub status_method: Option<String>,
    /// The status text of a file with nothing to do, and of one waiting its
    /// turn; any other status means work began (`RebuildStatus`).
    pub status_idle: Option<String>,
    pub status_queued: Option<String>,
    /// A request the server answers only once it is idle, every file's
    /// work done and its diagnostics published before the answer (clangd's
    /// `sync`). Sent once per edit and server by the first wait on another
    /// file: its answer ends every such wait as the end of a diagnosis pass
    /// does, and until it comes nothing else does but the deadline (a
    /// republish may be of work begun before the change, a missing status
    /// still on its way, a quiet window is a guess). An error answer leaves
    /// the wait to `others_done`.
    pub idle_request: Option<String>,
    /// The edited file's answer marks the end of the server's work only when
    /// it answers a change, not an open (gopls answers an open at once, and
    /// publishes the files that import it a pass later): a file the server
    /// does not have open yet is opened with its text from before the edit,
    /// that open's answer awaited, then changed.
    pub open_then_change: bool,
    /// The server answers a didOpen at once and completely once its indexing
    /// has ended, but a didChange only after a debounce of its own
    /// (intelephense: 1 s): once a progress has ended and none is open, a
    /// new text is sent as didClose and didOpen, and the publish answering
    /// that open counts with no stale window (`lsp::documents`).
    pub reopen_when_indexed: bool,
    /// Asked for each file's diagnostics this way, where it answers, instead
    /// of waiting on its pushes (which stay the fallback).
    pub sync_pull: Option<SyncPull>,
    /// Its fix lookups wait until the check is done instead of beginning as
    /// soon as it answers for a touched file (`engine::fixes::early`): a
    /// code action asked while it still has files to answer for holds
    /// those answers up behind it (typescript-language-server: its tsserver
    /// then answers the other files' pulls late, docs/servers.md).
    pub fixes_after_check: bool,
}

impl Default for WaitProfile {
    /// A push server with a 150 ms settle window and no other known signal.
    fn default() -> Self {
        WaitProfile {
            settle: Duration::from_millis(150),
            stale_window: Duration::ZERO,
            unchanged_quiet: Duration::ZERO,
            pull_is_partial: false,
            background_progress: Vec::new(),
            check_progress: Vec::new(),
            pass_progress: Vec::new(),
            check_end_grace: Duration::ZERO,
            repull_after_check: false,
            check_save_debounce: Duration::ZERO,
            save_starts_check: false,
            check_covers_project: false,
            others_done: OthersDone::Quiet,
            others_quiet: Duration::from_millis(150),
            status_method: None,
            status_idle: None,
            status_queued: None,
            idle_request: None,
            open_then_change: false,
            reopen_when_indexed: false,
            sync_pull: None,
            fixes_after_check: false,
        }
    }
}

impl WaitProfile {
    pub fn is_background(&self, token: &str, title: Option<&str>) -> bool {
        self.background_progress
            .iter()
            .any(|p| p.matches(token, title))
    }

    pub fn is_check(&self, token: &str, title: Option<&str>) -> bool {
        self.check_progress.iter().any(|p| p.matches(token, title))
    }

    pub fn is_pass(&self, token: &str, title: Option<&str>) -> bool {
        self.pass_progress.iter().any(|p| p.matches(token, title))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_token_or_title_substrings() {
        let check = ProgressPattern::token("flycheck");
        assert!(check.matches("rust-analyzer/flycheck/0", None));
        assert!(!check.matches("rustAnalyzer/Indexing", Some("flycheck")));
        let title = ProgressPattern::title("check");
        assert!(title.matches("7", Some("cargo check")));
        assert!(!title.matches("check", None));
    }
}
