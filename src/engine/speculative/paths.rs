//! Where a session's files stand on disk: a path as given resolved inside
//! the workspace, each file read within the session's bound when the
//! session opens, and the check right before a commit writes that the
//! path still leads to the file the session read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::Engine;
use crate::sessions::SessionError;
use crate::sessions::session::{File, digest};

impl Engine {
    /// Each of `paths` as it is on disk now (`None`: not there yet, to be
    /// created), keyed by its canonical path.
    pub(super) fn read_files(
        &self,
        id: &str,
        paths: &[String],
    ) -> Result<BTreeMap<PathBuf, File>, SessionError> {
        let mut files = BTreeMap::new();
        // Each file is read within the session's bound, before it is read
        // whole: a larger one is refused without its bytes in memory.
        let max = self.sessions().limits().max_bytes as u64;
        for path in paths {
            let (canonical, relative) = self.session_path(path)?;
            let size = std::fs::metadata(&canonical).map_or(0, |m| m.len());
            if size > max {
                return Err(SessionError::TooLarge {
                    session: id.to_string(),
                    bytes: usize::try_from(size).unwrap_or(usize::MAX),
                    max: self.sessions().limits().max_bytes,
                });
            }
            let bytes = match crate::edit::read_regular(&canonical, max) {
                Ok(bytes) => Some(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    return Err(SessionError::Read {
                        path: relative,
                        reason: e.to_string(),
                    });
                }
            };
            let digest = bytes.as_deref().map(digest);
            let base = match bytes {
                Some(b) => Some(Arc::<str>::from(String::from_utf8(b).map_err(|_| {
                    SessionError::Read {
                        path: relative.clone(),
                        reason: "it is not valid UTF-8 text".into(),
                    }
                })?)),
                None => None,
            };
            let file = File {
                relative,
                digest,
                text: base.clone(),
                base,
            };
            files.insert(canonical, file);
        }
        Ok(files)
    }

    /// Refuses a commit when `relative` no longer leads to `canonical`
    /// inside the workspace: a directory or the file itself swapped for a
    /// symbolic link since the session opened. Checked the way a patch's
    /// paths are, right before anything is written.
    pub(super) fn still_at(
        &self,
        id: &str,
        canonical: &Path,
        relative: &str,
    ) -> Result<(), SessionError> {
        let moved = match self.workspace().classify(Path::new(relative)).within() {
            Ok((now, _)) => now != canonical,
            Err(_) => true,
        };
        if moved {
            return Err(SessionError::Moved {
                session: id.to_string(),
                path: relative.to_string(),
            });
        }
        crate::edit::vet_path(canonical, relative).map_err(|e| SessionError::Read {
            path: relative.to_string(),
            reason: e.to_string(),
        })
    }

    /// A path as given, resolved: canonical and workspace-relative.
    pub(super) fn session_path(&self, path: &str) -> Result<(PathBuf, String), SessionError> {
        let class = self.workspace().classify(std::path::Path::new(path));
        class.within().map_err(|canonical| SessionError::Outside {
            path: canonical.display().to_string(),
            root: self.workspace().root().display().to_string(),
        })
    }
}
