//! Session start (Claude Code, Codex CLI and Gemini CLI all name the event
//! `SessionStart`): start the workspace's daemon and have it warm the
//! servers the project's files need, so the session's first edit is a warm
//! one. The hook answers as soon as the daemon has the request — the agent's
//! session must not wait for servers — and adds nothing to the context.

use std::path::Path;

use crate::cli::warm::Route;
use crate::daemon::client::warm;

/// Asks the daemon for `workspace` to warm up. Without a daemon nothing
/// would stay warm, so `--no-daemon` does nothing here.
pub async fn start(workspace: &Path, route: Route) {
    if route.in_process() {
        return;
    }
    match warm(workspace, &route.daemon_options()).await {
        Ok(files) => tracing::debug!(?files, "warming the servers"),
        Err(e) => tracing::debug!("no warm-up: {e}"),
    }
}
