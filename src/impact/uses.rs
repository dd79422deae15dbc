//! A symbol's uses as its server reports them, grouped by file, and the
//! files that import the declaring files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{
    Asked, FileUses, ImpactResult, Importer, MAX_LISTED_USES, SymbolImpact, bound_words,
    is_test_path,
};
use crate::engine::{Engine, FileInput};
use crate::navigation::{Location, NavError, references};

/// The server's references to `asked`, grouped by file, by `deadline`
/// (the end of the call's time bound, `bound`).
pub(super) async fn uses(
    engine: &Arc<Engine>,
    asked: &Asked,
    deadline: Instant,
    bound: Duration,
) -> Result<(String, SymbolImpact), NavError> {
    let request = references(engine, &asked.at, false, MAX_LISTED_USES);
    // The caller names the symbol (a note is `NAME: …`).
    let (found, _) = tokio::time::timeout_at(deadline, request)
        .await
        .map_err(|_| {
            NavError(format!(
                "no answer within the time bound ({})",
                bound_words(bound)
            ))
        })??;
    let name = if asked.name.is_empty() {
        word_at(engine.workspace().root(), &found.origin)
    } else {
        asked.name.clone()
    };
    let declared = if asked.declared.is_empty() {
        format!(
            "{}:{}:{}",
            found.origin.path, found.origin.line, found.origin.column
        )
    } else {
        asked.declared.clone()
    };
    let mut files: Vec<FileUses> = Vec::new();
    for location in &found.locations {
        match files.iter_mut().find(|f| f.path == location.path) {
            Some(f) => f.lines.push(location.line),
            None => files.push(FileUses {
                path: location.path.clone(),
                test: is_test_path(&location.path),
                lines: vec![location.line],
            }),
        }
    }
    files.sort_by(|a, b| (a.test, &a.path).cmp(&(b.test, &b.path)));
    let test_uses = files.iter().filter(|f| f.test).map(|f| f.lines.len()).sum();
    let impact = SymbolImpact {
        name,
        kind: asked.kind.clone(),
        declared,
        uses: found.total,
        test_uses,
        files,
        truncated: found.total > found.locations.len(),
    };
    Ok((found.server, impact))
}

/// The identifier at a location, read from the file.
fn word_at(root: &Path, at: &Location) -> String {
    let Ok(text) =
        crate::edit::read_regular_string(&absolute(root, &at.path), crate::edit::MAX_READ_BYTES)
    else {
        return String::new();
    };
    let Some(line) = text.lines().nth((at.line as usize).saturating_sub(1)) else {
        return String::new();
    };
    let chars: Vec<char> = line.chars().collect();
    let column = (at.column as usize).saturating_sub(1).min(chars.len());
    let word = |c: &char| c.is_alphanumeric() || *c == '_' || *c == '$';
    let start = chars[..column]
        .iter()
        .rposition(|c| !word(c))
        .map_or(0, |i| i + 1);
    let end = chars[column..]
        .iter()
        .position(|c| !word(c))
        .map_or(chars.len(), |i| column + i);
    chars[start..end].iter().collect()
}

/// The files importing `paths` (squiggle's resolution), marked when none
/// of the symbols' uses is in them.
pub(super) async fn add_importers(
    engine: &Arc<Engine>,
    paths: &[String],
    result: &mut ImpactResult,
) {
    let root = engine.workspace().root().to_path_buf();
    let inputs: Vec<FileInput> = paths
        .iter()
        .map(|p| FileInput::on_disk(absolute(&root, p)))
        .collect();
    let found = engine.importers(&inputs).await.unwrap_or_default();
    let used: Vec<&str> = result
        .symbols
        .iter()
        .flat_map(|s| s.files.iter().map(|f| f.path.as_str()))
        .collect();
    for path in found {
        let Some(relative) = engine.workspace().relative(&path) else {
            continue;
        };
        result.importers.push(Importer {
            test: is_test_path(&relative),
            no_use_found: !used.contains(&relative.as_str()),
            path: relative,
        });
    }
    result
        .importers
        .sort_by(|a, b| (a.test, &a.path).cmp(&(b.test, &b.path)));
}

fn absolute(root: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}
