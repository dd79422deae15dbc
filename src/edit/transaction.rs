//! Several file changes made all or nothing, for patches that touch many
//! files. [`plan_patch`](super::plan_patch) already refuses a patch whose
//! hunks do not all apply; this module covers what planning cannot see: a
//! file that cannot be written (immutable, a directory in the way, a full
//! disk) after others already were.
//!
//! Every new content is first staged in a temporary file next to its target
//! and flushed. Only then are the targets replaced one by one, each after a
//! hard link (or, where links are not possible, a copy) of the old file is
//! kept as a backup. If any step fails, the steps already taken are undone in
//! reverse order from the backups, and every temporary file goes.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::atomic::{create_temp, resolve_symlink, stage, sync_dir};

/// One change of a transaction.
#[derive(Debug, Clone, Copy)]
pub enum FileOp<'a> {
    /// Replace or create the file (parent directories are created).
    Write { path: &'a Path, content: &'a [u8] },
    /// Remove the file.
    Remove { path: &'a Path },
}

impl FileOp<'_> {
    fn path(&self) -> &Path {
        match self {
            FileOp::Write { path, .. } | FileOp::Remove { path } => path,
        }
    }
}

/// Why a transaction failed: the index of the operation and the error. When
/// this is returned, every file is as it was before.
#[derive(Debug)]
pub struct TransactionError {
    pub index: usize,
    pub source: io::Error,
}

/// A step taken, and how to take it back.
struct Done {
    target: PathBuf,
    backup: Option<PathBuf>,
}

/// Applies `ops` in order, all or nothing (see the module doc).
pub fn apply_all(ops: &[FileOp<'_>]) -> Result<(), TransactionError> {
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut staged: Vec<Option<(PathBuf, PathBuf)>> = Vec::with_capacity(ops.len());
    let fail = |index: usize| move |source: io::Error| TransactionError { index, source };

    // Stage every write: nothing visible has changed yet.
    for (index, op) in ops.iter().enumerate() {
        let result = match op {
            FileOp::Write { path, content } => {
                stage(path, content, &mut created_dirs).map(|(target, temp)| Some((target, temp)))
            }
            FileOp::Remove { path } => resolve_symlink(path).map(|_| None),
        };
        match result {
            Ok(s) => staged.push(s),
            Err(e) => {
                discard(&staged, &created_dirs);
                return Err(fail(index)(e));
            }
        }
    }

    // Commit one by one, keeping a backup of each old file.
    let mut done: Vec<Done> = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let step = match (op, &staged[index]) {
            (FileOp::Write { .. }, Some((target, temp))) => {
                commit_write(target, temp).map(|backup| Done {
                    target: target.clone(),
                    backup,
                })
            }
            (op, _) => commit_remove(op.path()).map(|(target, backup)| Done {
                target,
                backup: Some(backup),
            }),
        };
        match step {
            Ok(d) => done.push(d),
            Err(e) => {
                roll_back(&done);
                discard(&staged[index..], &created_dirs);
                return Err(fail(index)(e));
            }
        }
    }
    for d in &done {
        if let Some(backup) = &d.backup {
            let _ = fs::remove_file(backup);
        }
        if let Some(dir) = d.target.parent() {
            sync_dir(dir);
        }
    }
    Ok(())
}

/// Keeps the old file (if any) as a backup, then renames the temp file over
/// the target. On failure the target is as before.
fn commit_write(target: &Path, temp: &Path) -> io::Result<Option<PathBuf>> {
    let backup = match fs::symlink_metadata(target) {
        Ok(_) => Some(backup_of(target)?),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Err(e) = crate::platform::replace::rename_over(temp, target) {
        if let Some(backup) = &backup {
            let _ = fs::remove_file(backup);
        }
        return Err(e);
    }
    Ok(backup)
}

/// Keeps a backup of the file, then removes it; `(target, backup)`.
fn commit_remove(path: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let target = resolve_symlink(path)?;
    let backup = backup_of(&target)?;
    if let Err(e) = fs::remove_file(&target) {
        let _ = fs::remove_file(&backup);
        return Err(e);
    }
    Ok((target, backup))
}

/// A second name for `target`'s current content: a hard link where the file
/// system allows it, else a copy. An unreadable file fails here, before it
/// is touched.
fn backup_of(target: &Path) -> io::Result<PathBuf> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let (backup, file) = create_temp(dir, target)?;
    drop(file);
    fs::remove_file(&backup)?;
    // Some file systems (and immutable files) refuse links but not copies.
    if fs::hard_link(target, &backup).is_err()
        && let Err(e) = fs::copy(target, &backup)
    {
        let _ = fs::remove_file(&backup);
        return Err(e);
    }
    Ok(backup)
}

/// Undoes committed steps, last first.
fn roll_back(done: &[Done]) {
    for d in done.iter().rev() {
        let restored = match &d.backup {
            Some(backup) => crate::platform::replace::rename_over(backup, &d.target),
            None => fs::remove_file(&d.target),
        };
        if let Err(e) = restored {
            tracing::error!(path = %d.target.display(), "could not undo a partial patch: {e}");
        }
    }
}

/// Removes staged temp files and the directories staging created (only if
/// they are empty again).
fn discard(staged: &[Option<(PathBuf, PathBuf)>], created_dirs: &[PathBuf]) {
    for (_, temp) in staged.iter().flatten() {
        let _ = fs::remove_file(temp);
    }
    for dir in created_dirs {
        let _ = fs::remove_dir(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A target that cannot be replaced by anyone, root included: a
    /// non-empty directory.
    fn blocker(dir: &Path) -> PathBuf {
        let path = dir.join("blocked");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside"), "x").unwrap();
        path
    }

    #[test]
    fn writes_and_removes_all() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("n/c"),
        );
        fs::write(&a, "a").unwrap();
        fs::write(&b, "b").unwrap();
        apply_all(&[
            FileOp::Write {
                path: &a,
                content: b"A",
            },
            FileOp::Remove { path: &b },
            FileOp::Write {
                path: &c,
                content: b"C",
            },
        ])
        .unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "A");
        assert!(!b.exists());
        assert_eq!(fs::read_to_string(&c).unwrap(), "C");
        assert_eq!(names(tmp.path()), ["a", "n"]);
    }

    #[test]
    fn a_late_failure_undoes_every_earlier_step() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, new) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("d/new"),
        );
        fs::write(&a, "a").unwrap();
        fs::write(&b, "b").unwrap();
        let blocked = blocker(tmp.path());
        let err = apply_all(&[
            FileOp::Write {
                path: &a,
                content: b"A",
            },
            FileOp::Remove { path: &b },
            FileOp::Write {
                path: &new,
                content: b"new",
            },
            FileOp::Write {
                path: &blocked,
                content: b"x",
            },
        ])
        .unwrap_err();
        assert_eq!(err.index, 3);
        assert_eq!(fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "b");
        assert!(!new.exists());
        assert_eq!(names(tmp.path()), ["a", "b", "blocked"], "leftovers");
    }

    #[test]
    fn removing_a_missing_file_fails_before_anything_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        fs::write(&a, "a").unwrap();
        let missing = tmp.path().join("missing");
        let err = apply_all(&[
            FileOp::Write {
                path: &a,
                content: b"A",
            },
            FileOp::Remove { path: &missing },
        ])
        .unwrap_err();
        assert_eq!((err.index, err.source.kind()), (1, io::ErrorKind::NotFound));
        assert_eq!(fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(names(tmp.path()), ["a"]);
    }

    #[test]
    fn write_then_remove_of_one_path_rolls_back_to_the_original() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        fs::write(&a, "original").unwrap();
        let blocked = blocker(tmp.path());
        let err = apply_all(&[
            FileOp::Write {
                path: &a,
                content: b"changed",
            },
            FileOp::Remove { path: &a },
            FileOp::Write {
                path: &blocked,
                content: b"x",
            },
        ])
        .unwrap_err();
        assert_eq!(err.index, 2);
        assert_eq!(fs::read_to_string(&a).unwrap(), "original");
        assert_eq!(names(tmp.path()), ["a", "blocked"]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_modes_and_writes_through_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.sh");
        let link = tmp.path().join("link.sh");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("real.sh", &link).unwrap();
        apply_all(&[FileOp::Write {
            path: &link,
            content: b"new",
        }])
        .unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o755
        );
    }

    /// An immutable file (`chattr +i`, which binds root too) refuses the
    /// rename over it; the earlier write is undone. Skipped where chattr
    /// does not work.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_immutable_file_undoes_the_earlier_write() {
        use std::process::Command;
        let chattr = |flag: &str, path: &Path| {
            Command::new("chattr")
                .arg(flag)
                .arg(path)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        fs::write(&a, "a").unwrap();
        fs::write(&b, "b").unwrap();
        if !chattr("+i", &b) {
            eprintln!("skipping: chattr +i is not available here");
            return;
        }
        let result = apply_all(&[
            FileOp::Write {
                path: &a,
                content: b"A",
            },
            FileOp::Write {
                path: &b,
                content: b"B",
            },
        ]);
        chattr("-i", &b);
        assert_eq!(result.unwrap_err().index, 1);
        assert_eq!(fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "b");
        assert_eq!(names(tmp.path()), ["a", "b"]);
    }
}
