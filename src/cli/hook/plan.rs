//! What a hook payload asks for: nothing (and why), or a check of the
//! files it names with what it tells of their text before.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::before::Told;
use super::payload::event_cwd;
use crate::engine::Mutation;

/// What a hook payload asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Nothing to check (another tool, a notebook, a failed call), and why.
    Skip(&'static str),
    /// Check `files` (absolute, or relative to `cwd`); a whole-file write
    /// may break its importers, which `otherFiles` decides on. `told`: what
    /// the payload says of some files' text before the tool ran.
    Check {
        cwd: PathBuf,
        files: Vec<PathBuf>,
        mutation: Mutation,
        told: BTreeMap<PathBuf, Told>,
    },
}

impl Plan {
    /// Check the one file an event names, `path` relative to the event's
    /// `cwd` (Claude Code and Gemini CLI report one file per tool call).
    pub(super) fn one_file(
        payload: &Value,
        fallback_cwd: &Path,
        path: &str,
        mutation: Mutation,
        told: Option<Told>,
    ) -> Plan {
        let cwd = event_cwd(payload, fallback_cwd);
        Plan::files(cwd, [(path, told)], mutation, "no file")
    }

    /// Check `paths` (relative to `cwd`; each once, in order, with what the
    /// payload tells of it), or skip them for `why_none` when there are
    /// none. A file named twice (two edits in one batch) is told of by
    /// both, first to last.
    pub(super) fn files<P: AsRef<Path>>(
        cwd: PathBuf,
        paths: impl IntoIterator<Item = (P, Option<Told>)>,
        mutation: Mutation,
        why_none: &'static str,
    ) -> Plan {
        let mut files: Vec<PathBuf> = Vec::new();
        let mut told: BTreeMap<PathBuf, Told> = BTreeMap::new();
        for (path, this) in paths {
            let path = cwd.join(path);
            if !files.contains(&path) {
                files.push(path.clone());
                told.extend(this.map(|t| (path, t)));
            } else if let Some(earlier) = told.remove(&path) {
                told.extend(earlier.then(this).map(|t| (path, t)));
            }
        }
        if files.is_empty() {
            return Plan::Skip(why_none);
        }
        Plan::Check {
            cwd,
            files,
            mutation,
            told,
        }
    }
}
