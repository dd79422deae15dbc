//! The diff a check is measured against (`--staged`, `--diff REV`): which
//! files changed, and their changed lines when the filter needs them. The
//! files to check default to the changed ones, and staged files are checked
//! with their staged content rather than what is on disk.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::{DiffSource, FileChanges, FilterMode, filter, select};
use crate::baseline::git;
use crate::engine::{Engine, FileInput};

/// The changed files and, per file, the changed lines.
pub struct Changes {
    pub source: DiffSource,
    pub files: Vec<String>,
    pub lines: HashMap<String, FileChanges>,
}

/// Asks git what `source` changed; the line ranges only when `filter` needs them.
pub fn changes(root: &Path, source: DiffSource, filter: FilterMode) -> Result<Changes, String> {
    let files = git::changed_files(root, &source)?;
    let lines = if filter.needs_lines() {
        filter::parse_unified(&git::unified_diff(root, &source)?)
    } else {
        files
            .iter()
            .map(|f| (f.clone(), FileChanges::default()))
            .collect()
    };
    Ok(Changes {
        source,
        files,
        lines,
    })
}

/// The engine's inputs for the selected (workspace-relative) files: on disk,
/// except a staged file, which is read from the index.
pub fn inputs(
    engine: &Engine,
    selected: &[String],
    changes: Option<&Changes>,
) -> Result<Vec<FileInput>, String> {
    let root = engine.workspace().root();
    let mut inputs = Vec::with_capacity(selected.len());
    for relative in selected {
        let mut input = FileInput::on_disk(select::absolute(engine, relative));
        if let Some(changes) = changes
            && changes.source == DiffSource::Staged
            && changes.files.contains(relative)
        {
            input.content = Some(Arc::from(git::staged_content(root, relative)?));
        }
        inputs.push(input);
    }
    Ok(inputs)
}
