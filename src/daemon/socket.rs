//! Where a workspace's daemon listens, and the rules that keep other users
//! out: the endpoint lives in the user's private runtime directory
//! ([`crate::platform::paths::runtime_dir`]: `$XDG_RUNTIME_DIR/squiggle`,
//! else `/tmp/squiggle-<uid>`; `%LOCALAPPDATA%\squiggle\run` on Windows),
//! `<hash>.sock` on Unix, `<hash>.endpoint` on Windows
//! ([`crate::platform::transport`]). Next to it: `<hash>.lock`, the file
//! lock that serializes starters, and `<hash>.log`, the daemon's stderr.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::DaemonError;
use crate::platform::paths;
use crate::platform::transport::ENDPOINT_EXTENSION;

/// The files of one workspace's daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    pub dir: PathBuf,
    /// The endpoint: a Unix socket, or Windows' address-and-token file.
    pub socket: PathBuf,
    pub lock: PathBuf,
    pub log: PathBuf,
}

pub fn uid() -> u32 {
    paths::user_id()
}

/// The directory for endpoints: `runtime_dir` (or `$XDG_RUNTIME_DIR` when
/// absolute) + `squiggle`, else the platform's.
pub fn socket_dir(runtime_dir: Option<&Path>) -> PathBuf {
    paths::runtime_dir(runtime_dir)
}

/// The paths for the daemon of the canonical `root`. Trusted and untrusted
/// daemons of one workspace are distinct: they run different servers.
pub fn paths(root: &Path, trusted: bool, runtime_dir: Option<&Path>) -> Paths {
    let dir = socket_dir(runtime_dir);
    let mut key = root.as_os_str().as_encoded_bytes().to_vec();
    if trusted {
        key.extend_from_slice(b"\0trusted");
    }
    let name = format!("{:016x}", fnv1a(&key));
    Paths {
        socket: dir.join(format!("{name}.{ENDPOINT_EXTENSION}")),
        lock: dir.join(format!("{name}.lock")),
        log: dir.join(format!("{name}.log")),
        dir,
    }
}

/// FNV-1a, 64 bits: stable across builds, unlike `DefaultHasher`, so every
/// squiggle version finds the same socket.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Creates `dir` private to the user, or checks that the existing one is
/// ([`crate::platform::paths::ensure_private_dir`]).
pub fn ensure_private_dir(dir: &Path) -> Result<(), DaemonError> {
    match paths::ensure_private_dir(dir) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(not)) => Err(DaemonError::UnsafeDir {
            dir: dir.to_path_buf(),
            uid: not.uid,
            mode: not.mode,
        }),
        Err(e) => Err(DaemonError::io(format!("cannot create {}", dir.display()))(
            e,
        )),
    }
}

/// An exclusive lock on the lock file, released when dropped.
pub struct Lock {
    _file: File,
}

/// Blocks until the lock is ours (holders keep it for milliseconds).
pub fn lock(path: &Path) -> Result<Lock, DaemonError> {
    let file = paths::private_file()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(DaemonError::io(format!("cannot open {}", path.display())))?;
    file.lock()
        .map_err(DaemonError::io(format!("cannot lock {}", path.display())))?;
    Ok(Lock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_depend_on_root_and_trust_only() {
        let run = &std::env::temp_dir().join("run");
        let a = paths(Path::new("/w/a"), false, Some(run));
        assert_eq!(a.dir, run.join("squiggle"));
        assert!(a.socket.to_string_lossy().ends_with(ENDPOINT_EXTENSION));
        assert_eq!(a, paths(Path::new("/w/a"), false, Some(run)));
        assert_ne!(a.socket, paths(Path::new("/w/b"), false, Some(run)).socket);
        assert_ne!(a.socket, paths(Path::new("/w/a"), true, Some(run)).socket);
    }

    #[test]
    fn the_lock_is_exclusive() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = tmp.path().join("x.lock");
        let held = lock(&path).unwrap_or_else(|e| panic!("{e}"));
        let other = File::options()
            .write(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(other.try_lock().is_err(), "a second holder got the lock");
        drop(held);
        assert!(other.try_lock().is_ok(), "released when dropped");
    }
}
