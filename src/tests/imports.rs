//! Reading the library's files as a graph of imports: which file names
//! which (see the parent module for what counts), and the circles in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file of the library under `dir`, with its module path
/// (`src/engine/check.rs` is `["engine", "check"]`; `mod.rs` names its
/// directory; `lib.rs` is the root). The binaries (`main.rs`, `bin/`) are
/// crates of their own.
pub(super) fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path != src.join("bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path == src.join("main.rs") {
                continue;
            }
            let Ok(relative) = path.strip_prefix(src) else {
                continue;
            };
            let mut module: Vec<String> = relative
                .iter()
                .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// The text of `source` without comments and string literals (their
/// contents could look like code).
pub(super) fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    match (escaped, c) {
                        (false, '\\') => escaped = true,
                        (false, '"') => break,
                        _ => escaped = false,
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// `code` without its inline modules (`mod tests { … }`): their `use`
/// statements speak for another module.
pub(super) fn without_inline_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = find_inline_module(rest) {
        out.push_str(&rest[..at]);
        let body = &rest[at..];
        let open = body.find('{').unwrap_or(0);
        let mut depth = 0;
        let mut end = body.len();
        for (i, c) in body[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// Where the next `mod NAME {` of `code` starts.
fn find_inline_module(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = code[from..].find("mod ") {
        let at = from + found;
        let starts_word =
            at == 0 || !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let after = code[at + 4..].trim_start();
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if starts_word && name_len > 0 && after[name_len..].trim_start().starts_with('{') {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// The paths of every non-`pub` `use` statement in `code`, braces
/// expanded (`use super::{a::X, b};` gives `super::a::X` and `super::b`),
/// and `code` without its `use` statements.
pub(super) fn use_paths(code: &str) -> (Vec<String>, String) {
    let mut paths = Vec::new();
    let mut rest = String::with_capacity(code.len());
    for statement in code.split(';') {
        let trimmed = statement.trim();
        let Some(at) = trimmed.rfind("use ") else {
            rest.push_str(statement);
            rest.push(';');
            continue;
        };
        let before = trimmed[..at].trim_end();
        let head = before
            .rsplit(['\n', '}', '{', ']'])
            .next()
            .unwrap_or("")
            .trim();
        let starts_statement = at == 0
            || before.ends_with(['\n', '}', '{', ']'])
            || head.is_empty()
            || head.starts_with("#[")
            || head.starts_with("pub");
        if !starts_statement {
            rest.push_str(statement);
            rest.push(';');
            continue;
        }
        rest.push_str(&trimmed[..at]);
        rest.push(';');
        if head.starts_with("pub") {
            continue;
        }
        let tree: String = without_renames(&trimmed[at + 4..])
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        expand("", &tree, &mut paths);
    }
    (paths, rest)
}

/// The paths written in `code` outside `use` statements that start at
/// `crate::`, `super::` or `self::` (`super::python::import_lines`).
pub(super) fn expression_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(start) {
            let at = from + found;
            from = at + start.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(path.trim_end_matches(':').to_string());
        }
    }
    paths
}

/// A use tree without its renames (`d as e` is `d`).
fn without_renames(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut out = String::new();
    let mut skip = false;
    for word in words {
        if skip {
            // The new name, up to what follows it (`e},` keeps `},`).
            let rest = word.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
            out.push_str(rest);
            skip = false;
        } else if word == "as" {
            skip = true;
        } else {
            out.push(' ');
            out.push_str(word);
        }
    }
    out
}

/// Expands one use tree (`a::{b,c::{d,e}}`) under `prefix`.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        out.push(format!("{prefix}{tree}"));
        return;
    };
    let base = format!("{prefix}{}", &tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&base, &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < inner.len() {
        expand(&base, &inner[start..], out);
    }
}

/// The module a `use` path of the file at `module` names, as the longest
/// prefix that is a file of the library; `None` outside it.
fn target(
    module: &[String],
    path: &str,
    files: &BTreeMap<Vec<String>, PathBuf>,
    children: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    // `self` in a file module is the module itself; `super` its parent.
    let mut at: Vec<String> = match segments.first().copied() {
        Some("crate") => {
            segments.remove(0);
            Vec::new()
        }
        Some("self") => {
            segments.remove(0);
            module.to_vec()
        }
        Some("super") => {
            let mut at = module.to_vec();
            while segments.first() == Some(&"super") {
                segments.remove(0);
                at.pop();
            }
            at
        }
        Some(first) if children.contains(first) => module.to_vec(),
        _ => return None,
    };
    let mut found = files.contains_key(&at).then(|| at.clone());
    for segment in segments {
        at.push(segment.to_string());
        if files.contains_key(&at) {
            found = Some(at.clone());
        } else {
            break;
        }
    }
    found
}

/// The `mod NAME;` declarations of `code`.
fn declared(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.split("mod ").nth(1)?;
            let name = rest.strip_suffix(';')?;
            let is_decl = line.starts_with("mod ")
                || line.starts_with("pub mod ")
                || line.starts_with("pub(crate) mod ")
                || line.starts_with("pub(super) mod ");
            is_decl.then(|| name.trim().to_string())
        })
        .collect()
}

/// Every file's imports of other files.
pub(super) fn graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files = modules(src);
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, path) in &files {
        let source = std::fs::read_to_string(path).unwrap_or_default();
        let code = without_inline_modules(&code_only(&source));
        let children = declared(&code);
        let out = edges.entry(path.clone()).or_default();
        let (used, rest) = use_paths(&code);
        for used in used.into_iter().chain(expression_paths(&rest)) {
            if let Some(to) = target(module, &used, &files, &children)
                && !module.starts_with(&to)
                && let Some(file) = files.get(&to)
            {
                out.insert(file.clone());
            }
        }
    }
    edges
}

/// The import circles of `edges`, each as the files around it.
pub(super) fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let mut found: Vec<Vec<PathBuf>> = Vec::new();
    let mut done: BTreeSet<&PathBuf> = BTreeSet::new();
    for start in edges.keys() {
        let mut stack: Vec<(&PathBuf, Vec<&PathBuf>)> = vec![(start, vec![start])];
        let mut seen: BTreeSet<&PathBuf> = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for next in edges.get(at).into_iter().flatten() {
                if next == start {
                    let mut circle: Vec<PathBuf> = trail.iter().map(|p| (*p).clone()).collect();
                    let first = circle.iter().min().cloned().unwrap_or_default();
                    while circle.first() != Some(&first) {
                        circle.rotate_left(1);
                    }
                    if !found.contains(&circle) {
                        found.push(circle);
                    }
                } else if !done.contains(next) && seen.insert(next) {
                    let mut trail = trail.clone();
                    trail.push(next);
                    stack.push((next, trail));
                }
            }
        }
        done.insert(start);
    }
    found
}
