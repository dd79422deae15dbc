//! Impact before an edit: who uses a symbol, a file's exported symbols, or
//! the symbols a diff changes. Uses come from the language servers'
//! references (semantic, not text search), grouped by file, test files
//! apart; the files that import the declaring file come from squiggle's
//! own importer resolution (`engine::dependents`), so an importer the
//! server found no use in (a wildcard import, a dynamic access) is still
//! named. Bounded: at most [`MAX_SYMBOLS`] symbols asked about, each
//! request under the navigation deadlines, and the whole call under one
//! time bound ([`Bounds::time`]); what was cut says so.

mod diff;
mod render;
mod select;
mod tests_paths;
mod uses;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

pub use diff::changed_lines;
use select::{by_name_path, changed_symbols, exported};
pub use tests_paths::is_test_path;
use uses::{add_importers, uses};

use crate::engine::Engine;
use crate::navigation::{NavError, PositionArgs, Symbol, document_symbols};

/// At most this many symbols are asked about in one call (a file's
/// exported symbols, a diff's changed ones).
pub const MAX_SYMBOLS: usize = 30;
/// At most this many uses are listed per symbol (all are counted).
pub const MAX_LISTED_USES: usize = 200;

/// How long and how much one impact call may take.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The whole call; symbols not reached by then are named as cut.
    pub time: Duration,
    pub symbols: usize,
}

impl Bounds {
    /// The configuration's: the first-touch deadline twice over (a cold
    /// server must load the project before it can answer references).
    pub fn for_engine(engine: &Engine) -> Bounds {
        Bounds {
            time: engine.config().first_touch_timeout * 2,
            symbols: MAX_SYMBOLS,
        }
    }
}

/// The uses in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileUses {
    pub path: String,
    /// A test file (by its path: `tests/`, `test_*.py`, `*.test.ts`, …).
    pub test: bool,
    /// The 1-based lines of the uses, one entry per use.
    pub lines: Vec<u32>,
}

/// One symbol and who uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolImpact {
    pub name: String,
    /// `function`, `class`, `method`, …
    pub kind: String,
    /// Where it is declared (`path:line:column`).
    pub declared: String,
    /// Every use the server found, the declaration not counted.
    pub uses: usize,
    /// How many of them are in test files.
    pub test_uses: usize,
    /// By file: non-test files first, then tests; each in path order.
    pub files: Vec<FileUses>,
    /// The server answered more uses than are listed ([`MAX_LISTED_USES`]).
    pub truncated: bool,
}

/// A file that imports the declaring file, by squiggle's resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Importer {
    pub path: String,
    pub test: bool,
    /// None of the listed symbols' uses is in it.
    pub no_use_found: bool,
}

/// What `lsp_impact` and `squiggle impact` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactResult {
    /// `symbol`, `file` or `diff`.
    pub target: String,
    /// The server that answered the references.
    pub server: String,
    pub symbols: Vec<SymbolImpact>,
    /// The files importing each file the symbols are declared in.
    pub importers: Vec<Importer>,
    /// What was cut or could not be asked.
    pub notes: Vec<String>,
}

/// A symbol to ask about: where it is declared, as a position.
struct Asked {
    name: String,
    kind: String,
    at: PositionArgs,
    declared: String,
}

/// `path` as every answer names a file: workspace-relative when inside
/// it (the command line passes absolute paths), else as given.
fn shown(engine: &Engine, path: &str) -> String {
    match engine.workspace().classify(Path::new(path)) {
        crate::workspace::PathClass::Inside { relative, .. } => relative,
        _ => path.to_string(),
    }
}

impl Asked {
    /// The symbol `s` of the file at `path`, declared where `shown`
    /// (the path as answers name it) says.
    fn of(path: &str, shown: &str, s: &Symbol) -> Asked {
        Asked {
            name: s.name.clone(),
            kind: s.kind.clone(),
            at: PositionArgs {
                path: path.to_string(),
                line: Some(s.location.line),
                column: Some(s.location.column),
                symbol: None,
            },
            declared: format!("{shown}:{}:{}", s.location.line, s.location.column),
        }
    }
}

/// Who uses the symbol at a position, or named by `symbol` (a name path
/// such as `Shape.area` is looked up in the file's outline).
pub async fn symbol_impact(
    engine: &Arc<Engine>,
    args: &PositionArgs,
    bounds: Bounds,
) -> Result<(ImpactResult, String), NavError> {
    let deadline = Instant::now() + bounds.time;
    let asked = match (&args.symbol, args.line) {
        (Some(path_name), None) if path_name.contains('.') => {
            let outline = outline(engine, &args.path).await?;
            let shown = shown(engine, &args.path);
            let found = by_name_path(&outline, path_name)
                .ok_or_else(|| NavError(format!("no symbol {path_name} is declared in {shown}")))?;
            Asked::of(&args.path, &shown, found)
        }
        _ => {
            let name = args.symbol.clone().unwrap_or_default();
            Asked {
                name: name.clone(),
                kind: String::new(),
                at: args.clone(),
                declared: String::new(),
            }
        }
    };
    let mut result = ImpactResult {
        target: "symbol".into(),
        server: String::new(),
        symbols: Vec::new(),
        importers: Vec::new(),
        notes: Vec::new(),
    };
    let found = uses(engine, &asked, deadline, bounds.time).await?;
    result.server = found.0;
    result.symbols.push(found.1);
    add_importers(engine, std::slice::from_ref(&args.path), &mut result).await;
    let text = render::render(&result);
    Ok((result, text))
}

/// A file's exported symbols, each with who uses it, and who imports it.
pub async fn file_impact(
    engine: &Arc<Engine>,
    path: &str,
    bounds: Bounds,
) -> Result<(ImpactResult, String), NavError> {
    let deadline = Instant::now() + bounds.time;
    let outline = outline(engine, path).await?;
    let exported: Vec<&Symbol> = outline.iter().filter(|s| exported(path, s)).collect();
    let named = shown(engine, path);
    let asked: Vec<Asked> = exported
        .iter()
        .map(|s| Asked::of(path, &named, s))
        .collect();
    let mut result = ImpactResult {
        target: "file".into(),
        server: String::new(),
        symbols: Vec::new(),
        importers: Vec::new(),
        notes: Vec::new(),
    };
    ask_all(engine, &asked, bounds, deadline, &mut result).await;
    add_importers(engine, &[path.to_string()], &mut result).await;
    let text = render::render(&result);
    Ok((result, text))
}

/// The symbols a unified diff changes (those whose span holds a changed
/// line of the new text, innermost first) and who uses each.
pub async fn diff_impact(
    engine: &Arc<Engine>,
    diff: &str,
    bounds: Bounds,
) -> Result<(ImpactResult, String), NavError> {
    let deadline = Instant::now() + bounds.time;
    let changed = changed_lines(diff, engine.workspace().root())
        .map_err(|e| NavError(format!("cannot read the diff: {e}")))?;
    let mut result = ImpactResult {
        target: "diff".into(),
        server: String::new(),
        symbols: Vec::new(),
        importers: Vec::new(),
        notes: Vec::new(),
    };
    let mut asked = Vec::new();
    let mut files = Vec::new();
    for file in &changed {
        let Some(lines) = &file.lines else {
            result.notes.push(format!(
                "{} was deleted: its users are not resolved",
                file.path
            ));
            continue;
        };
        let outline = match outline(engine, &file.path).await {
            Ok(outline) => outline,
            Err(e) => {
                result.notes.push(format!("{}: {e}", file.path));
                continue;
            }
        };
        let before = asked.len();
        for symbol in changed_symbols(&outline, lines) {
            asked.push(Asked::of(&file.path, &file.path, symbol));
        }
        if asked.len() > before {
            files.push(file.path.clone());
        }
    }
    ask_all(engine, &asked, bounds, deadline, &mut result).await;
    add_importers(engine, &files, &mut result).await;
    let text = render::render(&result);
    Ok((result, text))
}

/// Asks about each symbol in turn until the bounds are reached.
async fn ask_all(
    engine: &Arc<Engine>,
    asked: &[Asked],
    bounds: Bounds,
    deadline: Instant,
    result: &mut ImpactResult,
) {
    for (index, one) in asked.iter().enumerate() {
        if index >= bounds.symbols {
            result.notes.push(format!(
                "{} more symbol(s) not asked about: at most {} per call",
                asked.len() - index,
                bounds.symbols
            ));
            break;
        }
        if Instant::now() >= deadline {
            let left: Vec<&str> = asked[index..].iter().map(|a| a.name.as_str()).collect();
            result.notes.push(format!(
                "the time bound ({}) ran out before {}",
                bound_words(bounds.time),
                left.join(", ")
            ));
            break;
        }
        match uses(engine, one, deadline, bounds.time).await {
            Ok((server, impact)) => {
                result.server = server;
                result.symbols.push(impact);
            }
            Err(e) => result.notes.push(format!("{}: {e}", one.name)),
        }
    }
}

/// A bound as a person reads it: `500 ms`, `60 s`.
fn bound_words(bound: Duration) -> String {
    if bound.subsec_millis() == 0 && bound.as_secs() > 0 {
        format!("{} s", bound.as_secs())
    } else {
        format!("{} ms", bound.as_millis())
    }
}

/// The file's whole outline.
async fn outline(engine: &Arc<Engine>, path: &str) -> Result<Vec<Symbol>, NavError> {
    Ok(document_symbols(engine, path, usize::MAX).await?.0.symbols)
}
