//! Atomic file writes, so a crash or a full disk never leaves an agent's file
//! half-written and a language server never reads a torn file.
//!
//! The bytes go to a temporary file in the target's own directory (a rename
//! is only atomic within one file system), are flushed to disk, and the
//! temporary file is renamed over the target. The target keeps its
//! permissions; if anything fails, the original is untouched and the
//! temporary file is removed.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `content` to `path` atomically: temp file in the same directory,
/// fsync, rename. Creates missing parent directories and preserves an
/// existing file's permissions. A symlink is written through, so the link
/// stays a link. A file whose mode forbids writing is refused, as a plain
/// write would be. On error the original file is untouched and the temp
/// file removed.
pub fn write_atomic(path: &Path, content: &[u8]) -> io::Result<()> {
    let (target, temp) = stage(path, content, &mut Vec::new())?;
    if let Err(err) = crate::platform::replace::rename_over(&temp, &target) {
        let _ = fs::remove_file(&temp);
        return Err(err);
    }
    sync_dir(&parent_dir(&target));
    Ok(())
}

/// Writes `content` to a flushed temp file beside the (symlink-resolved)
/// target of `path`, with the target's permissions; returns
/// `(target, temp)`. Parent directories it had to create are added to
/// `created`, innermost first, for a caller that gives up to remove. On
/// error the temp file is removed.
pub(super) fn stage(
    path: &Path,
    content: &[u8],
    created: &mut Vec<PathBuf>,
) -> io::Result<(PathBuf, PathBuf)> {
    let target = resolve_symlink(path)?;
    let dir = parent_dir(&target);
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(Path::to_path_buf)
        .collect();
    fs::create_dir_all(&dir)?;
    created.extend(missing);
    let permissions = match fs::metadata(&target) {
        Ok(meta) => match super::vet::write_forbidden(&target, &meta) {
            Some(refused) => return Err(refused),
            None => Some(meta.permissions()),
        },
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(err),
    };
    let (temp_path, mut temp) = create_temp(&dir, &target)?;
    let written = (|| {
        temp.write_all(content)?;
        if let Some(permissions) = permissions {
            temp.set_permissions(permissions)?;
        }
        temp.sync_all()
    })();
    match written {
        Ok(()) => Ok((target, temp_path)),
        Err(e) => {
            let _ = fs::remove_file(&temp_path);
            Err(e)
        }
    }
}

/// The directory holding `target` (`.` for a bare file name).
fn parent_dir(target: &Path) -> PathBuf {
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Follows a symlink at `path` (all levels) to the file it names, which may
/// not exist yet; anything else is returned unchanged.
pub(super) fn resolve_symlink(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Whether `path` names one of the temp files [`create_temp`] makes (one
/// squiggle renames over its target, or removes): the workspace watch
/// drops them, so servers never hear of a file that exists for a write.
pub fn is_write_temp(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') && n.ends_with(TEMP_END) && n.contains(TEMP_TAG))
}

/// A temp file's name: `.{target}{TEMP_TAG}{pid}-{n}{TEMP_END}`.
const TEMP_TAG: &str = ".squiggle-";
const TEMP_END: &str = ".tmp";

pub(super) fn create_temp(dir: &Path, target: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp_path = dir.join(format!(
            ".{name}{TEMP_TAG}{}-{n}{TEMP_END}",
            std::process::id()
        ));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp_path)
        {
            Ok(file) => return Ok((temp_path, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
}

/// Makes the rename durable. Best effort: not every platform or file system
/// lets a directory be opened and synced, and the write itself has succeeded.
pub(super) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn creates_parent_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a/b/c.txt");
        write_atomic(&path, b"hello\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hello\n");
        assert!(leftovers(&tmp.path().join("a/b")).is_empty());
    }

    #[test]
    fn replaces_content() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f.txt");
        fs::write(&path, "a much longer original content\n").unwrap();
        write_atomic(&path, b"short\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "short\n");
        assert!(leftovers(tmp.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn preserves_mode() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("run.sh");
        fs::write(&path, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&path, b"#!/bin/sh\necho hi\n").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            0o755
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "#!/bin/sh\necho hi\n");
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.txt");
        let link = tmp.path().join("link.txt");
        fs::write(&real, "old\n").unwrap();
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomic(&link, b"new\n").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new\n");
    }

    #[cfg(unix)]
    #[test]
    fn read_only_directory_fails_and_keeps_the_original() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ro");
        fs::create_dir(&dir).unwrap();
        let path = dir.join("f.txt");
        fs::write(&path, "original\n").unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
        // Root ignores directory permissions; the probe tells us whether
        // this environment enforces them at all.
        let enforced = File::create(dir.join("probe")).is_err();
        let result = write_atomic(&path, b"replaced\n");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        if enforced {
            assert!(result.is_err());
            assert_eq!(fs::read_to_string(&path).unwrap(), "original\n");
            assert!(leftovers(&dir).is_empty());
        }
    }

    #[test]
    fn failed_rename_keeps_the_original_and_removes_the_temp_file() {
        // Renaming a file over a non-empty directory fails for every user,
        // root included.
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("target");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside.txt"), "original\n").unwrap();
        assert!(write_atomic(&path, b"replaced\n").is_err());
        assert_eq!(
            fs::read_to_string(path.join("inside.txt")).unwrap(),
            "original\n"
        );
        assert!(leftovers(tmp.path()).is_empty());
    }
}
