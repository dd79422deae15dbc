//! All-or-nothing patch planning: every file's new content is computed in
//! memory before anything touches the disk, so a patch whose fifth hunk does
//! not apply changes nothing at all.
//!
//! Files are read through an overlay, so a patch may touch the same path
//! twice (two sections for one file, a move onto a path added earlier) and
//! each step sees the result of the ones before it.

use std::collections::HashMap;
use std::io;

use super::hunk::apply_hunks;
use super::{EditError, FilePatch, Patch};

/// One step of a planned patch. Applying the steps in order gives the
/// patched tree; a later step may supersede an earlier one for the same path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlannedChange {
    /// Write `content` to `path`; `created` when the path did not exist.
    Write {
        path: String,
        content: String,
        created: bool,
    },
    Delete {
        path: String,
    },
    /// Write `content` to `to` and remove `from`.
    Rename {
        from: String,
        to: String,
        content: String,
    },
}

/// Applies every file's hunks in memory, all-or-nothing. `read` returns the
/// current content of a path as written in the patch; a `NotFound` error
/// means the file does not exist. Nothing is written here.
///
/// Adding an existing file replaces it (`created: false`), as Codex does.
/// Updating or deleting a missing file is [`EditError::Missing`]; a hunk that
/// does not apply is [`EditError::HunkFailed`], naming the file and hunk.
pub fn plan_patch(
    patch: &Patch,
    read: impl FnMut(&str) -> io::Result<String>,
) -> Result<Vec<PlannedChange>, EditError> {
    let mut tree = Overlay {
        read,
        files: HashMap::new(),
    };
    let mut changes = Vec::with_capacity(patch.files.len());
    for file in &patch.files {
        match file {
            FilePatch::Add { path, content } => {
                let created = !tree.exists(path);
                tree.files.insert(path.clone(), Some(content.clone()));
                changes.push(PlannedChange::Write {
                    path: path.clone(),
                    content: content.clone(),
                    created,
                });
            }
            FilePatch::Delete { path } => {
                if !tree.exists(path) {
                    return Err(EditError::Missing { path: path.clone() });
                }
                tree.files.insert(path.clone(), None);
                changes.push(PlannedChange::Delete { path: path.clone() });
            }
            FilePatch::Update {
                path,
                move_to,
                hunks,
            } => {
                let old = tree.content(path)?;
                let new = apply_hunks(path, &old, hunks)?;
                match move_to {
                    Some(to) if to != path => {
                        tree.files.insert(path.clone(), None);
                        tree.files.insert(to.clone(), Some(new.clone()));
                        changes.push(PlannedChange::Rename {
                            from: path.clone(),
                            to: to.clone(),
                            content: new,
                        });
                    }
                    _ => {
                        tree.files.insert(path.clone(), Some(new.clone()));
                        changes.push(PlannedChange::Write {
                            path: path.clone(),
                            content: new,
                            created: false,
                        });
                    }
                }
            }
        }
    }
    Ok(changes)
}

/// The tree as the patch has changed it so far: planned contents (`None` for
/// removed) over whatever `read` reports.
struct Overlay<R> {
    read: R,
    files: HashMap<String, Option<String>>,
}

impl<R: FnMut(&str) -> io::Result<String>> Overlay<R> {
    fn exists(&mut self, path: &str) -> bool {
        match self.files.get(path) {
            Some(planned) => planned.is_some(),
            // Unreadable (binary, permissions) still exists.
            None => !matches!((self.read)(path), Err(err) if err.kind() == io::ErrorKind::NotFound),
        }
    }

    fn content(&mut self, path: &str) -> Result<String, EditError> {
        if let Some(planned) = self.files.get(path) {
            return planned.clone().ok_or_else(|| EditError::Missing {
                path: path.to_string(),
            });
        }
        match (self.read)(path) {
            Ok(content) => Ok(content),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Err(EditError::Missing {
                path: path.to_string(),
            }),
            Err(source) => Err(EditError::Read {
                path: path.to_string(),
                source,
            }),
        }
    }
}
