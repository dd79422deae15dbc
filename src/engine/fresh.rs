//! Which files' diagnostics a change may have made stale: the engine's
//! record of what changed since the servers' diagnostics of each file were
//! taken. A file is stale when its own text changed on disk outside
//! squiggle, or when it imports a file whose text changed (on disk, or
//! through a check that did not re-check its importers). Every other file
//! the servers hold diagnostics for keeps what they said: an edit re-checks
//! only what it can have affected, and waits for nothing else.
//!
//! Marks are counted in generations: a check notes the generation it
//! started at ([`Freshness::now`]) and, once it has taken a file's
//! diagnostics, clears only the marks made before it ([`Freshness::taken`]),
//! so a change seen by a concurrent check while it waited is not lost.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use crate::mutex::lock;

/// Why a file's diagnostics may be stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stale {
    /// Its own text changed on disk: the text sent now is new to the
    /// servers.
    OwnText,
    /// A file it imports changed: its text may be what the servers hold,
    /// and they must answer for it afresh.
    Dependency,
}

#[derive(Debug, Clone, Copy)]
struct Mark {
    at: u64,
    dependency: bool,
}

#[derive(Default)]
struct Inner {
    generation: u64,
    marks: HashMap<PathBuf, Mark>,
    /// The generation from which every file not taken since is stale (a
    /// change whose importers cannot be known: the watch overflowed, a
    /// file no server serves changed, an importer list was cut short).
    everything: Option<u64>,
    /// The generation each file's diagnostics were last taken at.
    taken: HashMap<PathBuf, u64>,
    /// A digest of the text last sent for each file by a check that also
    /// re-checked its importers: that file's change, seen again on disk,
    /// is one the servers already answered for.
    covered: HashMap<PathBuf, u64>,
}

/// The record (see the module comment); shared by an engine and its
/// successors, as the servers are.
#[derive(Default)]
pub(super) struct Freshness {
    inner: std::sync::Mutex<Inner>,
}

/// A digest of a file's text.
pub(super) fn digest(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl Freshness {
    /// The current generation: a check's start.
    pub(super) fn now(&self) -> u64 {
        lock(&self.inner).generation
    }

    /// `changed` changed its own text; `dependents` import a file that
    /// changed.
    pub(super) fn mark(&self, changed: &[PathBuf], dependents: &[PathBuf]) {
        let mut inner = lock(&self.inner);
        inner.generation += 1;
        let at = inner.generation;
        for (paths, dependency) in [(changed, false), (dependents, true)] {
            for path in paths {
                let mark = inner.marks.entry(path.clone()).or_insert(Mark {
                    at,
                    dependency: false,
                });
                mark.at = at;
                mark.dependency |= dependency;
            }
        }
    }

    /// Every file not taken from now on is stale, as if it imported what
    /// changed.
    pub(super) fn mark_everything(&self) {
        let mut inner = lock(&self.inner);
        inner.generation += 1;
        inner.everything = Some(inner.generation);
    }

    /// Whether (and why) `path`'s diagnostics may be stale.
    pub(super) fn stale(&self, path: &Path) -> Option<Stale> {
        let inner = lock(&self.inner);
        if let Some(mark) = inner.marks.get(path) {
            return Some(if mark.dependency {
                Stale::Dependency
            } else {
                Stale::OwnText
            });
        }
        let everything = inner.everything?;
        let taken = inner.taken.get(path).copied().unwrap_or(0);
        (taken < everything).then_some(Stale::Dependency)
    }

    /// `paths`' diagnostics were taken by a check that started at
    /// generation `since`: the marks made before it are cleared.
    pub(super) fn taken<'a>(&self, paths: impl IntoIterator<Item = &'a PathBuf>, since: u64) {
        let mut inner = lock(&self.inner);
        for path in paths {
            if inner.marks.get(path).is_some_and(|m| m.at <= since) {
                inner.marks.remove(path);
            }
            let taken = inner.taken.entry(path.clone()).or_insert(0);
            *taken = (*taken).max(since);
        }
    }

    /// `path` was sent with `text` by a check that re-checks its importers.
    pub(super) fn covered(&self, path: &Path, text: &str) {
        lock(&self.inner)
            .covered
            .insert(path.to_path_buf(), digest(text));
    }

    /// Whether `text`, now on disk at `path`, is what a check that
    /// re-checked its importers last sent.
    pub(super) fn is_covered(&self, path: &Path, text: &str) -> bool {
        lock(&self.inner).covered.get(path) == Some(&digest(text))
    }

    /// `path` is gone or holds text squiggle did not send: its importers'
    /// answers are no longer covered by a check.
    pub(super) fn uncover(&self, path: &Path) {
        lock(&self.inner).covered.remove(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> PathBuf {
        PathBuf::from(format!("/w/{name}"))
    }

    #[test]
    fn a_file_is_stale_until_a_check_that_started_after_its_change_takes_it() {
        let fresh = Freshness::default();
        assert_eq!(fresh.stale(&p("a")), None);
        fresh.mark(&[p("a")], &[p("b")]);
        assert_eq!(fresh.stale(&p("a")), Some(Stale::OwnText));
        assert_eq!(fresh.stale(&p("b")), Some(Stale::Dependency));
        let before = fresh.now() - 1;
        fresh.taken([&p("a"), &p("b")], before);
        assert!(
            fresh.stale(&p("a")).is_some(),
            "taken by a check begun before"
        );
        let since = fresh.now();
        fresh.taken([&p("a"), &p("b")], since);
        assert_eq!(fresh.stale(&p("a")), None);
        assert_eq!(fresh.stale(&p("b")), None);
    }

    #[test]
    fn everything_is_stale_after_an_unknowable_change_until_taken() {
        let fresh = Freshness::default();
        fresh.mark_everything();
        assert_eq!(fresh.stale(&p("x")), Some(Stale::Dependency));
        fresh.taken([&p("x")], fresh.now());
        assert_eq!(fresh.stale(&p("x")), None);
        assert_eq!(fresh.stale(&p("y")), Some(Stale::Dependency));
    }

    #[test]
    fn a_covered_text_is_known_by_its_digest() {
        let fresh = Freshness::default();
        fresh.covered(&p("a"), "one");
        assert!(fresh.is_covered(&p("a"), "one"));
        assert!(!fresh.is_covered(&p("a"), "two"));
        fresh.uncover(&p("a"));
        assert!(!fresh.is_covered(&p("a"), "one"));
    }
}
