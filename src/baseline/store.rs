//! The snapshot store: each file's text and diagnostics as squiggle last
//! checked it, kept by the engine that checked it (the daemon's for every
//! hook and wrapped tool of a workspace). A snapshot is the "before" of the
//! file's next edit — and only when the caller's account of that edit
//! allows it ([`Before`]): a snapshot another agent's check took after this
//! edit had landed would make this edit's errors look old.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::diagnostic::Diagnostic;
use crate::mutex::lock;

/// How many files' snapshots are kept. A document closed in its server is
/// reopened from disk, but a snapshot dropped is lost, so these outlive
/// documents; the count bounds memory over a long session touching
/// thousands of files.
pub const MAX_SNAPSHOTS: usize = 1024;

/// A file's text and diagnostics as last checked.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub text: Arc<str>,
    pub diagnostics: Vec<Diagnostic>,
    /// When it was taken: past [`MAX_SNAPSHOTS`] the oldest is dropped.
    pub taken: Instant,
}

/// What the caller knows of a file's text right before the change it
/// reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// The text before the change: the wrapped tools read it under the
    /// file's lock; a hook takes it from the agent's payload.
    Text(Arc<str>),
    /// The change created the file: everything in it is the change's.
    Absent,
    /// Nobody says (a shell command changed the file; a payload that does
    /// not tell): squiggle's last look at the file is the best "before".
    Unknown,
}

/// Every file's last snapshot, by canonical path.
#[derive(Debug, Default)]
pub struct History {
    snapshots: Mutex<HashMap<PathBuf, Snapshot>>,
}

impl History {
    /// The snapshot that may serve as the state before a change of `path`
    /// that `before` describes: the one whose text is exactly the text
    /// before ([`Before::Text`]), the last one when nobody says
    /// ([`Before::Unknown`]), none for a created file.
    pub fn baseline(&self, path: &Path, before: &Before) -> Option<Snapshot> {
        let last = lock(&self.snapshots).get(path).cloned()?;
        match before {
            Before::Text(text) => (last.text == *text).then_some(last),
            Before::Absent => None,
            Before::Unknown => Some(last),
        }
    }

    /// Records `path`'s text and diagnostics as checked now, dropping the
    /// oldest snapshot when the store is full.
    pub fn record(&self, path: &Path, text: Arc<str>, diagnostics: Vec<Diagnostic>) {
        let mut snapshots = lock(&self.snapshots);
        if snapshots.len() >= MAX_SNAPSHOTS && !snapshots.contains_key(path) {
            let oldest = snapshots
                .iter()
                .min_by_key(|(_, s)| s.taken)
                .map(|(p, _)| p.clone());
            if let Some(oldest) = oldest {
                snapshots.remove(&oldest);
            }
        }
        let snapshot = Snapshot {
            text,
            diagnostics,
            taken: Instant::now(),
        };
        snapshots.insert(path.to_path_buf(), snapshot);
    }

    /// Forgets `path` (removed by a patch).
    pub fn forget(&self, path: &Path) {
        lock(&self.snapshots).remove(path);
    }

    /// How many files have a snapshot.
    pub fn len(&self) -> usize {
        lock(&self.snapshots).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_serves_only_the_change_it_precedes() {
        let history = History::default();
        let path = Path::new("/ws/a.py");
        history.record(path, Arc::from("one\n"), Vec::new());
        let text = |t: &str| Before::Text(Arc::from(t));
        assert!(history.baseline(path, &text("one\n")).is_some());
        assert!(history.baseline(path, &text("two\n")).is_none());
        assert!(history.baseline(path, &Before::Absent).is_none());
        assert!(history.baseline(path, &Before::Unknown).is_some());
        assert!(
            history
                .baseline(Path::new("/ws/b.py"), &Before::Unknown)
                .is_none()
        );
        history.forget(path);
        assert!(history.is_empty());
    }

    #[test]
    fn the_oldest_snapshot_goes_first() {
        let history = History::default();
        for i in 0..=MAX_SNAPSHOTS {
            history.record(
                &PathBuf::from(format!("/ws/{i}.py")),
                Arc::from(""),
                Vec::new(),
            );
        }
        assert_eq!(history.len(), MAX_SNAPSHOTS);
        assert!(
            history
                .baseline(Path::new("/ws/0.py"), &Before::Unknown)
                .is_none()
        );
        let newest = format!("/ws/{MAX_SNAPSHOTS}.py");
        assert!(
            history
                .baseline(Path::new(&newest), &Before::Unknown)
                .is_some()
        );
    }
}
