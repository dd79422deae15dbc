//! Putting a new file in an existing one's place by renaming it over the
//! old: the last step of every atomic write (an agent's edit, a patch, the
//! daemon's endpoint file).
//!
//! On Unix a rename replaces the name whoever has the old file open. On
//! Windows a file that another handle has open — even for a moment, with
//! every sharing flag: a reader, a virus scanner, the search indexer, or
//! squiggle itself reading the file for another check — cannot be replaced
//! where the rename has no POSIX semantics (wine, FAT and network shares,
//! Windows before 10 1607): the rename fails with "Access denied" or a
//! sharing violation for as long as that handle stays open. Such handles
//! are short-lived, so the rename is tried again, backing off, for up to
//! [`RETRY_FOR`] before its error is returned (what Go's `cmd/go` robustio
//! and npm's graceful-fs do). Nothing tells a process that another one
//! closed a file, so this waits by backoff, and only when the rename
//! failed that way. The source file is untouched until the rename
//! succeeds; on failure the target is as it was.

use std::io;
use std::path::Path;
use std::time::Duration;

/// How long a Windows rename refused for a sharing conflict is tried again.
pub const RETRY_FOR: Duration = Duration::from_secs(2);

/// Renames `from` over `to` (replacing it), waiting out another handle's
/// brief hold on `to` on Windows; see the module's doc.
pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    rename_over_with(from, to, |_| {})
}

/// [`rename_over`], calling `refused` with each refused attempt's error
/// before waiting (tests close their handle there).
pub fn rename_over_with(
    from: &Path,
    to: &Path,
    mut refused: impl FnMut(&io::Error),
) -> io::Result<()> {
    let mut waited = Duration::ZERO;
    let mut pause = Duration::from_millis(1);
    loop {
        match std::fs::rename(from, to) {
            Err(e) if sharing_conflict(&e) && waited < RETRY_FOR => {
                refused(&e);
                std::thread::sleep(pause);
                waited += pause;
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            done => return done,
        }
    }
}

/// Whether a rename failed because another handle has the target open
/// (Windows: `ERROR_ACCESS_DENIED`, `ERROR_SHARING_VIOLATION`,
/// `ERROR_LOCK_VIOLATION`); never on Unix, where that cannot happen.
fn sharing_conflict(e: &io::Error) -> bool {
    cfg!(windows) && matches!(e.raw_os_error(), Some(5 | 32 | 33))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The target is open when the rename starts (on Windows under wine the
    /// first attempt is refused); the handle closes at the first refusal,
    /// and the rename then replaces it.
    #[test]
    fn a_target_held_open_for_a_moment_is_replaced() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (new, old) = (dir.path().join("new"), dir.path().join("old"));
        std::fs::write(&new, "new").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&old, "old").unwrap_or_else(|e| panic!("{e}"));
        let mut held = Some(std::fs::File::open(&old).unwrap_or_else(|e| panic!("{e}")));
        let mut refusals = 0;
        let renamed = rename_over_with(&new, &old, |_| {
            refusals += 1;
            held = None;
        });
        assert!(renamed.is_ok(), "{renamed:?} after {refusals} refusals");
        assert_eq!(std::fs::read_to_string(&old).ok().as_deref(), Some("new"));
        assert!(!new.exists());
        drop(held);
    }

    #[test]
    fn a_missing_source_fails_at_once_and_leaves_the_target() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let old = dir.path().join("old");
        std::fs::write(&old, "old").unwrap_or_else(|e| panic!("{e}"));
        let mut refusals = 0;
        let renamed = rename_over_with(&dir.path().join("gone"), &old, |_| refusals += 1);
        assert_eq!(renamed.map_err(|e| e.kind()), Err(io::ErrorKind::NotFound));
        assert_eq!(refusals, 0);
        assert_eq!(std::fs::read_to_string(&old).ok().as_deref(), Some("old"));
    }
}
