//! One session's state: each file's text on disk when the session opened
//! (with its sha256, for commit's "changed on disk?"), its text now, and
//! what the servers said of the disk's state then (the baseline every
//! evaluation is measured against). Edits change only this state; nothing
//! here talks to a server or writes a file.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::SessionError;
use super::wire::{Edit, SessionFile};
use crate::diagnostic::Diagnostic;
use crate::edit::{PlannedChange, Replace, parse_patch, plan_patch, replace_exact};

/// One file a session holds.
#[derive(Debug, Clone)]
pub struct File {
    pub relative: String,
    /// The disk's text when the session opened (`None`: no such file).
    pub base: Option<Arc<str>>,
    /// sha256 of the disk's bytes then (`None`: no such file).
    pub digest: Option<[u8; 32]>,
    /// The session's text (`None`: not created yet).
    pub text: Option<Arc<str>>,
}

impl File {
    pub fn changed(&self) -> bool {
        self.text != self.base
    }

    fn state(&self) -> SessionFile {
        SessionFile {
            path: self.relative.clone(),
            changed: self.changed(),
            created: self.base.is_none() && self.text.is_some(),
            bytes: self.text.as_ref().map_or(0, |t| t.len()),
        }
    }
}

#[derive(Debug)]
pub struct Session {
    pub id: String,
    /// By canonical path.
    pub files: BTreeMap<PathBuf, File>,
    /// Diagnostics per workspace-relative file when the session opened:
    /// its files' and their importers'.
    pub baseline: HashMap<String, Vec<Diagnostic>>,
    /// Set, under the session's lock, when a commit or discard ends it: a
    /// call that waited for the lock meanwhile is refused, not applied to
    /// a session nobody will commit.
    pub closed: Option<&'static str>,
}

/// The bytes one file holds in memory with `text` as its session text:
/// the text, and the disk's text it opened with when that is a second
/// copy (an unchanged file shares one).
fn held(file: &File, text: Option<&Arc<str>>) -> usize {
    let text_len = text.map_or(0, |t| t.len());
    match (&file.base, text) {
        (Some(base), Some(text)) if Arc::ptr_eq(base, text) => text_len,
        (Some(base), _) => text_len + base.len(),
        (None, _) => text_len,
    }
}

/// sha256 of `bytes`.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

impl Session {
    /// Refused when a commit or discard ended the session while the
    /// caller waited for it.
    pub fn usable(&self) -> Result<(), SessionError> {
        match self.closed {
            Some(how) => Err(SessionError::Closed {
                session: self.id.clone(),
                how,
            }),
            None => Ok(()),
        }
    }

    pub fn states(&self) -> Vec<SessionFile> {
        self.files.values().map(File::state).collect()
    }

    /// Bytes of text the session holds.
    pub fn bytes(&self) -> usize {
        self.files.values().map(|f| held(f, f.text.as_ref())).sum()
    }

    /// What the session would hold with `texts` as its files' texts.
    pub fn bytes_with(&self, texts: &BTreeMap<PathBuf, Option<Arc<str>>>) -> usize {
        self.files
            .iter()
            .map(|(p, f)| held(f, texts.get(p).unwrap_or(&f.text).as_ref()))
            .sum()
    }

    /// The file at `canonical`, or why the session does not hold it.
    fn file(&self, canonical: &Path, asked: &str) -> Result<&File, SessionError> {
        self.files
            .get(canonical)
            .ok_or_else(|| SessionError::NotInSession {
                session: self.id.clone(),
                path: asked.to_string(),
                held: self.files.values().map(|f| f.relative.clone()).collect(),
            })
    }

    /// The texts after `edits`, all or none: each edit sees the ones before
    /// it. `resolve` turns a path as given into its canonical path.
    pub fn apply(
        &self,
        edits: &[Edit],
        resolve: &dyn Fn(&str) -> Result<PathBuf, SessionError>,
    ) -> Result<BTreeMap<PathBuf, Option<Arc<str>>>, SessionError> {
        let mut texts: BTreeMap<PathBuf, Option<Arc<str>>> = self
            .files
            .iter()
            .map(|(p, f)| (p.clone(), f.text.clone()))
            .collect();
        for edit in edits {
            match edit {
                Edit::Replace {
                    path,
                    old,
                    new,
                    all,
                } => {
                    let canonical = resolve(path)?;
                    self.file(&canonical, path)?;
                    let Some(Some(text)) = texts.get(&canonical) else {
                        return Err(SessionError::Edit(format!(
                            "{path} does not exist in the session; write it whole first"
                        )));
                    };
                    let replace = if *all { Replace::All } else { Replace::Once };
                    let replaced = replace_exact(text, old, new, replace)
                        .map_err(|e| SessionError::Edit(format!("{path}: {e}")))?;
                    texts.insert(canonical, Some(Arc::from(replaced.content)));
                }
                Edit::Write { path, content } => {
                    let canonical = resolve(path)?;
                    self.file(&canonical, path)?;
                    texts.insert(canonical, Some(Arc::from(content.as_str())));
                }
                Edit::Patch { patch } => self.apply_patch(patch, resolve, &mut texts)?,
            }
        }
        Ok(texts)
    }

    fn apply_patch(
        &self,
        patch: &str,
        resolve: &dyn Fn(&str) -> Result<PathBuf, SessionError>,
        texts: &mut BTreeMap<PathBuf, Option<Arc<str>>>,
    ) -> Result<(), SessionError> {
        let parsed = parse_patch(patch).map_err(|e| SessionError::Edit(e.to_string()))?;
        let mut resolved: HashMap<String, PathBuf> = HashMap::new();
        for path in parsed.paths() {
            let canonical = resolve(path)?;
            self.file(&canonical, path)?;
            resolved.insert(path.to_string(), canonical);
        }
        let planned = plan_patch(&parsed, |p| {
            let text = resolved
                .get(p)
                .and_then(|c| texts.get(c))
                .cloned()
                .flatten();
            text.map(|t| t.to_string())
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, p.to_string()))
        })
        .map_err(|e| SessionError::Edit(e.to_string()))?;
        for change in planned {
            match change {
                PlannedChange::Write { path, content, .. } => {
                    let canonical = resolved.get(&path).cloned().ok_or_else(|| {
                        SessionError::Edit(format!(
                            "the patch planner named {path}, which the patch did not"
                        ))
                    })?;
                    texts.insert(canonical, Some(Arc::from(content)));
                }
                PlannedChange::Delete { path } | PlannedChange::Rename { from: path, .. } => {
                    return Err(SessionError::Edit(format!(
                        "{path}: a session cannot delete or rename files (the servers cannot be shown that without the disk); apply such a patch with apply_patch"
                    )));
                }
            }
        }
        Ok(())
    }
}
