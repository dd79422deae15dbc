//! A file a change touched: its path, what is known of its text before
//! the change, and its text after.

use std::path::PathBuf;
use std::sync::Arc;

use crate::baseline::Before;

/// One file a change touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub path: PathBuf,
    /// What the caller knows of its text right before the change.
    pub before: Before,
    /// Its text after; `None`: the text on disk.
    pub after: Option<Arc<str>>,
}

impl Touched {
    /// A file squiggle wrote: its path, its text before (`None`: it was
    /// created) and the text written.
    pub(crate) fn written(path: PathBuf, before: Option<&str>, after: &str) -> Touched {
        Touched {
            path,
            before: before.map_or(Before::Absent, |b| Before::Text(Arc::from(b))),
            after: Some(Arc::from(after)),
        }
    }

    /// Its text before, when the caller knew it.
    pub(crate) fn before_text(&self) -> Option<&Arc<str>> {
        match &self.before {
            Before::Text(text) => Some(text),
            Before::Absent | Before::Unknown => None,
        }
    }
}
