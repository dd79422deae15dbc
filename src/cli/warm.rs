//! A check that uses the warm per-workspace daemon when it can: cold
//! language servers cost seconds (typescript-language-server about five),
//! and a hook is a fresh process per edit. If the daemon cannot be reached,
//! or dies mid-request, the check runs in this process instead — slower,
//! still correct. `--no-daemon` or `SQUIGGLE_NO_DAEMON=1` force in-process.

use std::path::PathBuf;
use std::sync::Arc;

use crate::daemon::client::Options;
use crate::engine::{CheckReport, Engine, FileInput, HeldOthers, Mutation};

/// Which process checks: the daemon (which one), or this one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Route {
    /// Check in this process (`--no-daemon`; `SQUIGGLE_NO_DAEMON=1` too).
    pub no_daemon: bool,
    /// Through the daemon that honours the workspace configuration's
    /// `command`/`args`/`env` (`--trust-workspace`).
    pub trust_workspace: bool,
}

impl Route {
    /// Whether this process checks: `--no-daemon`, or the environment
    /// forbids the daemon.
    pub fn in_process(self) -> bool {
        self.no_daemon
            || std::env::var_os("SQUIGGLE_NO_DAEMON").is_some_and(|v| !v.is_empty() && v != "0")
    }

    /// How to reach the daemon this route names.
    pub fn daemon_options(self) -> Options {
        Options {
            trust_workspace: self.trust_workspace,
            ..Default::default()
        }
    }
}

/// Checks `files` (absolute paths) through the daemon for the engine's
/// workspace, falling back to `engine` itself; where `otherFiles` says so
/// for `mutation`, also reports the files that import them.
pub async fn check(
    engine: &Arc<Engine>,
    files: Vec<PathBuf>,
    mutation: Mutation,
    route: Route,
) -> CheckReport {
    if !route.in_process() {
        let opts = route.daemon_options();
        let root = engine.workspace.root();
        match crate::daemon::client::check_with(root, files.clone(), mutation, &opts).await {
            Ok(reply) => return reply.report,
            Err(e) => tracing::debug!("daemon unavailable ({e}); checking in this process"),
        }
    }
    let inputs: Vec<FileInput> = files.into_iter().map(FileInput::on_disk).collect();
    let report = if engine.reports_other_files(mutation) {
        engine.check_with_dependents(inputs).await
    } else {
        engine.check_files(inputs, HeldOthers::Skip).await
    };
    engine.shutdown().await;
    report
}

/// The diagnostics of `text` checked as the content of `file` (absolute),
/// through the daemon for the engine's workspace, else in `engine`; the
/// disk is not touched.
pub async fn check_text(
    engine: &Arc<Engine>,
    file: &std::path::Path,
    text: &str,
    route: Route,
) -> Vec<crate::diagnostic::Diagnostic> {
    if !route.in_process() {
        let opts = route.daemon_options();
        let root = engine.workspace.root();
        if let Some(mut connection) = crate::daemon::client::connect_or_spawn(root, &opts).await {
            match connection.check_text(file, text).await {
                Ok(reply) => return first_file(reply.report),
                Err(e) => tracing::debug!("daemon unavailable ({e}); checking in this process"),
            }
        }
    }
    let input = FileInput {
        content: Some(Arc::from(text)),
        ..FileInput::on_disk(file)
    };
    first_file(engine.check_files(vec![input], HeldOthers::Skip).await)
}

fn first_file(report: CheckReport) -> Vec<crate::diagnostic::Diagnostic> {
    report
        .files
        .into_iter()
        .next()
        .map(|f| f.diagnostics)
        .unwrap_or_default()
}
