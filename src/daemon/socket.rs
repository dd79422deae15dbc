//! Where a workspace's daemon listens, and the permission rules that keep
//! other users out: `$XDG_RUNTIME_DIR/squiggle/<hash>.sock` (else
//! `/tmp/squiggle-<uid>/<hash>.sock`), the directory mode 700 and owned by
//! us (an existing one with other permissions or owner is refused, not
//! repaired), the socket mode 600. Next to the socket: `<hash>.lock`, the
//! `flock` that serializes starters, and `<hash>.log`, the daemon's stderr.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::DaemonError;

/// The files of one workspace's daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub lock: PathBuf,
    pub log: PathBuf,
}

pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The directory for sockets: `runtime_dir` (or `$XDG_RUNTIME_DIR` when
/// absolute) + `squiggle`, else `/tmp/squiggle-<uid>`.
pub fn socket_dir(runtime_dir: Option<&Path>) -> PathBuf {
    let from_env = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    match runtime_dir.map(Path::to_path_buf).or(from_env) {
        Some(dir) if dir.is_absolute() => dir.join("squiggle"),
        _ => std::env::temp_dir().join(format!("squiggle-{}", uid())),
    }
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
        socket: dir.join(format!("{name}.sock")),
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

/// Creates `dir` with mode 700, or checks that the existing one is a real
/// directory owned by us that nobody else can enter.
pub fn ensure_private_dir(dir: &Path) -> Result<(), DaemonError> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(DaemonError::io(format!("cannot create {}", dir.display()))(
                e,
            ));
        }
    }
    let meta = std::fs::symlink_metadata(dir)
        .map_err(DaemonError::io(format!("cannot inspect {}", dir.display())))?;
    let mode = meta.mode() & 0o7777;
    if !meta.is_dir() || meta.uid() != uid() || mode & 0o077 != 0 {
        return Err(DaemonError::UnsafeDir {
            dir: dir.to_path_buf(),
            uid: meta.uid(),
            mode,
        });
    }
    Ok(())
}

/// An exclusive `flock` on the lock file, released when dropped.
pub struct Lock {
    _file: File,
}

/// Blocks until the lock is ours (holders keep it for milliseconds).
pub fn lock(path: &Path) -> Result<Lock, DaemonError> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)
        .map_err(DaemonError::io(format!("cannot open {}", path.display())))?;
    loop {
        // SAFETY: the descriptor is open for the duration of the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc == 0 {
            return Ok(Lock { _file: file });
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(DaemonError::io(format!("cannot lock {}", path.display()))(
                e,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_depend_on_root_and_trust_only() {
        let run = Path::new("/run/user/1");
        let a = paths(Path::new("/w/a"), false, Some(run));
        assert_eq!(a.dir, Path::new("/run/user/1/squiggle"));
        assert!(a.socket.to_string_lossy().ends_with(".sock"));
        assert_eq!(a, paths(Path::new("/w/a"), false, Some(run)));
        assert_ne!(a.socket, paths(Path::new("/w/b"), false, Some(run)).socket);
        assert_ne!(a.socket, paths(Path::new("/w/a"), true, Some(run)).socket);
    }

    #[test]
    fn an_open_directory_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = tmp.path().join("squiggle");
        assert!(ensure_private_dir(&dir).is_ok());
        let mode = std::fs::metadata(&dir)
            .map(|m| m.mode() & 0o777)
            .unwrap_or(0);
        assert_eq!(mode, 0o700);
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755));
        assert!(matches!(
            ensure_private_dir(&dir),
            Err(DaemonError::UnsafeDir { mode: 0o755, .. })
        ));
    }
}
