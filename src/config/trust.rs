//! Whether a workspace file may choose the programs squiggle runs.
//!
//! Running squiggle in a freshly cloned repository must not run a program
//! that repository names, nor send the user's files to a port it names. So
//! `command`, `connect`, `args` and `env` from `.squiggle.toml`
//! are honoured only when the user's own file lists the workspace in
//! `trustedWorkspaces`, or the user passed `--trust-workspace` for this run.
//! Everything else in the workspace file (timeouts, caps, disabling servers,
//! settings) is harmless to take from anyone.

use std::path::{Path, PathBuf};

use super::{PartialConfig, Trust};

/// Whether `root` is listed in `trusted` (both canonicalized when they exist).
pub(super) fn is_trusted(root: &Path, trusted: &[PathBuf]) -> bool {
    let root = canonical(root);
    trusted.iter().any(|dir| canonical(dir) == root)
}

fn canonical(path: &Path) -> PathBuf {
    crate::platform::paths::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Drops what an untrusted workspace file may not set and marks the servers
/// that asked for it.
pub(super) fn restrict(
    partial: &mut PartialConfig,
    workspace_file: &Path,
    root: &Path,
    user_file: Option<&Path>,
) {
    for server in partial.servers.values_mut() {
        let mut asked = Vec::new();
        if server.command.take().is_some() {
            asked.push("command");
        }
        if server.connect.take().is_some() {
            asked.push("connect");
        }
        if server.args.take().is_some() {
            asked.push("args");
        }
        if server.env.take().is_some() {
            asked.push("env");
        }
        if asked.is_empty() {
            continue;
        }
        let user_file = user_file.map_or_else(
            || "the user config".to_string(),
            |p| p.display().to_string(),
        );
        server.trust = Trust::Untrusted {
            reason: format!(
                "{} from {} not run: add \"{}\" to trustedWorkspaces in {user_file} or pass --trust-workspace",
                asked.join(", "),
                workspace_file.display(),
                canonical(root).display(),
            ),
        };
    }
}
