//! Where a hook keeps a session's state between its processes (the turn
//! record, the shell snapshot, Gemini's stash): beside the daemons' sockets,
//! in directories only the user may enter.

use std::path::{Path, PathBuf};

/// The file session `id`'s state of one `kind` lives in (`kind/id.ext`
/// beside the daemons' sockets), or `None` for an id that is not a plain
/// name: agents choose session ids, and one must not name another path.
pub(super) fn session_file(kind: &str, id: &str, ext: &str) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let dir = crate::daemon::socket::socket_dir(None).join(kind);
    plain.then(|| dir.join(format!("{id}.{ext}")))
}

/// Writes a session file (`session_file`) atomically, its directory and
/// the sockets' directory above it created private first (mode 0700 on
/// Unix): the daemon refuses a sockets' directory anyone else may enter,
/// and these files hold the user's file texts. `false` when it cannot.
pub(super) fn write_session_file(path: &Path, bytes: &[u8]) -> bool {
    use crate::daemon::socket::ensure_private_dir;
    let Some(dir) = path.parent() else {
        return false;
    };
    ensure_private_dir(dir.parent().unwrap_or(dir)).is_ok()
        && ensure_private_dir(dir).is_ok()
        && crate::edit::write_atomic(path, bytes).is_ok()
}
