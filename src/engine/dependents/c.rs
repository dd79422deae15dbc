//! C and C++ importers: the files whose `#include "…"` (or `<…>`) resolves
//! to the edited header the way the compiler resolves it: a quoted include
//! from the including file's directory, then the `-iquote` directories,
//! then the `-I` (and `-isystem`) directories; an angled one from the `-I`
//! and `-isystem` directories only. The directories come from every
//! `compile_flags.txt` and `compile_commands.json` in the project (and
//! `build/compile_commands.json`), relative to the file or the entry's
//! `directory`, united for all files: per-file flags would be exact, but a
//! header has no entry of its own and clangd infers one from a neighbour.
//!
//! Includes are followed backwards through headers up to
//! [`INCLUDE_DEPTH`] levels: a prototype changed in `a.h`, included by
//! `b.h`, breaks the `.c` file including `b.h`, and clangd reports it only
//! in that translation unit. Direct includers come first.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::walk::{Reader, Tree, normalize};

const CONFIG_NAMES: &[&str] = &["compile_flags.txt", "compile_commands.json"];

/// Levels of includers followed: 1 is direct includers only.
pub const INCLUDE_DEPTH: usize = 3;

const HEADER_EXTENSIONS: &[&str] = &["h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tpp"];

/// The include search directories the compile flags name.
#[derive(Default, Debug)]
struct SearchDirs {
    quote: Vec<PathBuf>,
    angled: Vec<PathBuf>,
}

pub(super) fn importers(
    reader: &mut Reader,
    edited: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut tree = Tree::walk(reader, root, edited, CONFIG_NAMES, "c", keep);
    let build_db = root.join("build/compile_commands.json");
    if build_db.is_file() {
        std::sync::Arc::make_mut(&mut tree).configs.push(build_db);
    }
    let dirs = search_dirs(&tree.configs);
    let mut includes: Vec<(PathBuf, Vec<(String, bool)>)> = Vec::new();
    for file in &tree.sources {
        if let Some(head) = reader.head(file) {
            let found = directives(&String::from_utf8_lossy(head));
            if !found.is_empty() {
                includes.push((file.clone(), found));
            }
        }
    }
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::from([edited.to_path_buf()]);
    let mut targets = vec![edited.to_path_buf()];
    for _ in 0..INCLUDE_DEPTH {
        let names: HashSet<&str> = targets
            .iter()
            .filter_map(|t| t.file_name()?.to_str())
            .collect();
        let mut level: Vec<PathBuf> = Vec::new();
        for (file, specs) in &includes {
            if seen.contains(file) {
                continue;
            }
            let hit = specs.iter().any(|(spec, angled)| {
                let name = spec.rsplit('/').next().unwrap_or(spec);
                names.contains(name)
                    && resolve(spec, *angled, file, &dirs, &tree)
                        .is_some_and(|r| targets.contains(&r))
            });
            if hit {
                level.push(file.clone());
            }
        }
        seen.extend(level.iter().cloned());
        targets = level.iter().filter(|f| is_header(f)).cloned().collect();
        found.extend(level);
        if targets.is_empty() || found.len() >= super::MAX_DEPENDENTS {
            break;
        }
    }
    found
}

fn is_header(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| HEADER_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The `#include` (and `#import`) directives of a file: `(path, angled)`.
pub(super) fn directives(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = ["include_next", "include", "import"]
            .iter()
            .find_map(|w| rest.strip_prefix(w))
        else {
            continue;
        };
        let rest = rest.trim_start();
        let (close, angled) = match rest.chars().next() {
            Some('"') => ('"', false),
            Some('<') => ('>', true),
            _ => continue,
        };
        if let Some(end) = rest[1..].find(close) {
            out.push((rest[1..1 + end].to_string(), angled));
        }
    }
    out
}

/// The file an include names from `file`, if it lies in the listing.
fn resolve(
    spec: &str,
    angled: bool,
    file: &Path,
    dirs: &SearchDirs,
    tree: &Tree,
) -> Option<PathBuf> {
    let own = file.parent().filter(|_| !angled);
    let quote = if angled { &[][..] } else { &dirs.quote[..] };
    own.into_iter()
        .chain(quote.iter().map(PathBuf::as_path))
        .chain(dirs.angled.iter().map(PathBuf::as_path))
        .map(|d| normalize(&d.join(spec)))
        .find(|p| tree.exists(p))
}

fn search_dirs(configs: &[PathBuf]) -> SearchDirs {
    let mut dirs = SearchDirs::default();
    for config in configs {
        let Some(dir) = config.parent() else {
            continue;
        };
        let Some(text) = super::walk::read_config(config) else {
            continue;
        };
        if config.extension().is_some_and(|e| e == "txt") {
            let args: Vec<String> = text.lines().map(|l| l.trim().to_string()).collect();
            add_flags(&args, dir, &mut dirs);
        } else if let Ok(serde_json::Value::Array(entries)) = serde_json::from_str(&text) {
            for entry in &entries {
                let base = entry
                    .get("directory")
                    .and_then(|d| d.as_str())
                    .map_or(dir.to_path_buf(), |d| dir.join(d));
                let args: Vec<String> = match entry.get("arguments").and_then(|a| a.as_array()) {
                    Some(list) => list
                        .iter()
                        .filter_map(|a| a.as_str())
                        .map(String::from)
                        .collect(),
                    None => {
                        split_command(entry.get("command").and_then(|c| c.as_str()).unwrap_or(""))
                    }
                };
                add_flags(&args, &base, &mut dirs);
            }
        }
    }
    dirs
}

/// Adds the `-I`, `-iquote` and `-isystem` directories of `args`, relative
/// to `base`, once each.
fn add_flags(args: &[String], base: &Path, dirs: &mut SearchDirs) {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        for (flag, quote) in [("-iquote", true), ("-isystem", false), ("-I", false)] {
            let Some(value) = arg.strip_prefix(flag) else {
                continue;
            };
            let value = if value.is_empty() {
                args.next().map(String::as_str).unwrap_or("")
            } else {
                value.trim_start_matches('=')
            };
            if !value.is_empty() {
                let path = normalize(&base.join(value));
                let list = if quote {
                    &mut dirs.quote
                } else {
                    &mut dirs.angled
                };
                if !list.contains(&path) {
                    list.push(path);
                }
            }
            break;
        }
    }
}

/// A compile command split into words (double and single quotes group).
fn split_command(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}
