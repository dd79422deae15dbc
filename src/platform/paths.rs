//! Where squiggle keeps per-user runtime files (the daemons' endpoints,
//! locks and logs) and how they are kept private: on Unix a directory of
//! mode 700 owned by the user (an existing one with other permissions or
//! owner is refused, not repaired) and files of mode 600; on Windows a
//! directory under `%LOCALAPPDATA%`, whose ACL the user's profile gives
//! to the user (and SYSTEM and Administrators) only, inherited by what is
//! created in it.
//!
//! macOS limits a socket's path to 104 bytes and its `$TMPDIR` is long
//! (`/var/folders/xx/…/T/`): when the socket would not fit, the directory
//! is `/tmp/squiggle-<uid>` instead.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// The longest endpoint file name the daemon uses (`<16 hex>.sock`).
const LONGEST_NAME: usize = 21;

/// The directory for the daemons' files: `explicit` (or
/// `$XDG_RUNTIME_DIR` when absolute) + `squiggle`, else the platform's.
pub fn runtime_dir(explicit: Option<&Path>) -> PathBuf {
    let from_env = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let chosen = match explicit.map(Path::to_path_buf).or(from_env) {
        Some(dir) if dir.is_absolute() => dir.join("squiggle"),
        _ => default_runtime_dir(),
    };
    fit_socket_path(chosen)
}

#[cfg(unix)]
fn default_runtime_dir() -> PathBuf {
    std::env::temp_dir().join(format!("squiggle-{}", user_id()))
}

#[cfg(windows)]
fn default_runtime_dir() -> PathBuf {
    match std::env::var_os("LOCALAPPDATA").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("squiggle").join("run"),
        _ => std::env::temp_dir().join("squiggle-run"),
    }
}

/// `dir`, unless a socket in it would pass the platform's limit on a
/// socket's path (104 bytes on macOS, 108 on Linux; none for Windows'
/// endpoint files): then `/tmp/squiggle-<uid>`.
fn fit_socket_path(dir: PathBuf) -> PathBuf {
    if cfg!(unix) && dir.as_os_str().len() + 1 + LONGEST_NAME >= socket_path_limit() {
        return PathBuf::from(format!("/tmp/squiggle-{}", user_id()));
    }
    dir
}

fn socket_path_limit() -> usize {
    if cfg!(target_os = "linux") { 108 } else { 104 }
}

/// The user's id on Unix; 0 elsewhere (where it names nothing).
pub fn user_id() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: getuid has no preconditions and cannot fail.
        unsafe { libc::getuid() }
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// Why an existing directory is not private: its owner and mode (Unix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPrivate {
    pub uid: u32,
    pub mode: u32,
}

/// Creates `dir` private to the user, or checks that the existing one is
/// a real directory only the user can enter. `Ok(Err(..))` when it exists
/// and is not private.
pub fn ensure_private_dir(dir: &Path) -> io::Result<Result<(), NotPrivate>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => return Ok(Ok(())),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let meta = std::fs::symlink_metadata(dir)?;
        let mode = meta.mode() & 0o7777;
        if !meta.is_dir() || meta.uid() != user_id() || mode & 0o077 != 0 {
            return Ok(Err(NotPrivate {
                uid: meta.uid(),
                mode,
            }));
        }
        Ok(Ok(()))
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)?;
        let meta = std::fs::symlink_metadata(dir)?;
        if !meta.is_dir() {
            return Ok(Err(NotPrivate { uid: 0, mode: 0 }));
        }
        Ok(Ok(()))
    }
}

/// Options that create a file only the user may read (mode 600 on Unix;
/// the directory's ACL on Windows).
pub fn private_file() -> OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut options = File::options();
        options.mode(0o600);
        options
    }
    #[cfg(not(unix))]
    {
        File::options()
    }
}

/// The canonical form of `path` (symlinks followed, `.` and `..`
/// settled). On Windows without the verbatim prefix std adds (`\\?\C:\x`
/// is `C:\x`, `\\?\UNC\host\share` is `\\host\share`), the spelling
/// users, servers and URIs use.
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    let canonical = std::fs::canonicalize(path)?;
    if cfg!(windows) {
        return Ok(PathBuf::from(strip_verbatim(&canonical.to_string_lossy())));
    }
    Ok(canonical)
}

/// The user's home directory, where the agents keep their user settings:
/// `HOME`; on Windows `USERPROFILE` first (what Node's `os.homedir()`,
/// which Claude Code and Gemini CLI use, and Codex's `home_dir` read
/// there; `HOME` is usually unset), then `HOME`. Empty values count as
/// unset.
pub fn home_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let windows = if cfg!(windows) {
        var("USERPROFILE")
    } else {
        None
    };
    windows.or_else(|| var("HOME")).map(PathBuf::from)
}

/// Where a Python virtual environment keeps its programs: `.venv/bin`,
/// `.venv\Scripts` on Windows.
pub const VENV_BIN: &str = if cfg!(windows) { "Scripts" } else { "bin" };

/// The folders of a project where squiggle looks for its own programs
/// after PATH, as a message names them to the user of this platform:
/// `node_modules/.bin or .venv/bin`; `node_modules\.bin or
/// .venv\Scripts` on Windows, where a virtual environment's programs are
/// in `Scripts` and paths are written with `\`.
pub fn project_bin_dirs_shown() -> String {
    let shown = |rel: &str| {
        if cfg!(windows) {
            rel.replace('/', "\\")
        } else {
            rel.to_string()
        }
    };
    format!(
        "{} or {}",
        shown("node_modules/.bin"),
        shown(&format!(".venv/{VENV_BIN}"))
    )
}

/// Whether the system settles `..` by the path's spelling before it looks
/// anything up (Windows: `missing\..\a` is `a` even when `missing` does
/// not exist), rather than part by part on disk (Unix: it fails there).
pub const DOTDOT_BY_SPELLING: bool = cfg!(windows);

/// `base` joined with the `/`-separated relative path `rel`, each part
/// with the platform's own separator (a path written `a/b` in the code or
/// a registry entry is `a\b` on Windows, as servers and agents spell it).
pub fn join_slashed(base: &Path, rel: &str) -> PathBuf {
    rel.split('/')
        .filter(|part| !part.is_empty())
        .fold(base.to_path_buf(), |path, part| path.join(part))
}

/// `path` as text with `/` between its parts, for matching it against
/// patterns written with `/` (tsconfig `paths`): Windows' `\` becomes `/`;
/// elsewhere the text is as it is (a `\` is part of a Unix file name).
pub fn forward_slashes(path: &Path) -> String {
    let text = path.to_string_lossy();
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.into_owned()
    }
}

/// A relative path spelled with `/` between its parts on every platform,
/// as rendered paths are (non-UTF-8 names lossily).
pub fn slashed(relative: &Path) -> String {
    let parts: Vec<_> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// `\\?\C:\x` → `C:\x`; `\\?\UNC\h\s` → `\\h\s`; anything else as is.
/// Pure, tested on every platform.
pub fn strip_verbatim(path: &str) -> String {
    let Some(rest) = path.strip_prefix(r"\\?\") else {
        return path.to_string();
    };
    if let Some(unc) = rest.strip_prefix(r"UNC\") {
        return format!(r"\\{unc}");
    }
    let drive = rest.as_bytes();
    if drive.len() >= 2 && drive[0].is_ascii_alphabetic() && drive[1] == b':' {
        return rest.to_string();
    }
    path.to_string()
}

/// A number that names a file on its file system while it exists (the
/// inode on Unix), to tell a replaced file from the one seen before;
/// `None` where the platform gives none cheaply.
pub fn file_id(meta: &std::fs::Metadata) -> Option<u64> {
    #[cfg(unix)]
    {
        Some(std::os::unix::fs::MetadataExt::ino(meta))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbatim_windows_paths_lose_their_prefix() {
        assert_eq!(strip_verbatim(r"\\?\C:\w\a.ts"), r"C:\w\a.ts");
        assert_eq!(strip_verbatim(r"\\?\UNC\host\share\x"), r"\\host\share\x");
        assert_eq!(strip_verbatim(r"\\?\Volume{x}\y"), r"\\?\Volume{x}\y");
        assert_eq!(strip_verbatim("/home/u"), "/home/u");
    }

    #[test]
    fn a_projects_program_folders_are_named_as_the_platform_has_them() {
        let expected = if cfg!(windows) {
            r"node_modules\.bin or .venv\Scripts"
        } else {
            "node_modules/.bin or .venv/bin"
        };
        assert_eq!(project_bin_dirs_shown(), expected);
    }

    #[test]
    fn an_explicit_runtime_dir_is_used_when_a_socket_fits_in_it() {
        let run = std::env::temp_dir().join("run");
        assert_eq!(runtime_dir(Some(&run)), run.join("squiggle"));
    }

    #[cfg(unix)]
    #[test]
    fn a_runtime_dir_too_long_for_a_socket_falls_back_to_tmp() {
        let long = format!("/{}", "d".repeat(100));
        let dir = runtime_dir(Some(Path::new(&long)));
        assert_eq!(dir, PathBuf::from(format!("/tmp/squiggle-{}", user_id())));
    }

    #[cfg(unix)]
    #[test]
    fn an_open_directory_is_refused() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = tmp.path().join("squiggle");
        assert!(matches!(ensure_private_dir(&dir), Ok(Ok(()))));
        let mode = std::fs::metadata(&dir)
            .map(|m| m.mode() & 0o777)
            .unwrap_or(0);
        assert_eq!(mode, 0o700);
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755));
        assert!(matches!(
            ensure_private_dir(&dir),
            Ok(Err(NotPrivate { mode: 0o755, .. }))
        ));
    }
}
