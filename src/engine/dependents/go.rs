//! Go importers: the edited file's own package (the other files of its
//! directory with the same `package` clause, which need no import), and
//! every file importing the package's import path — the `module` path of
//! the nearest `go.mod` plus the directory below it. When a `go.work` sits
//! above the module, the other modules it `use`s are scanned too. Only the
//! prologue is parsed (package clause and import declarations); it ends at
//! the first other top-level declaration.

use std::path::{Path, PathBuf};

use super::walk::{Needles, Reader, Tree, normalize};

pub(super) fn importers(
    reader: &mut Reader,
    edited: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let Some(dir) = edited.parent() else {
        return Vec::new();
    };
    let mut tree = Tree::walk(reader, root, edited, &[], "go", keep);
    let package = reader
        .head(edited)
        .and_then(|head| prologue(&String::from_utf8_lossy(head)).package);
    let import_path = module_of(dir).map(|(module_dir, module)| {
        for member in workspace_members(&module_dir) {
            if !member.starts_with(root) {
                let tree = std::sync::Arc::make_mut(&mut tree);
                tree.add(reader, &member, &[], keep);
                tree.sources.sort();
                tree.sources.dedup();
            }
        }
        match dir.strip_prefix(&module_dir) {
            Ok(rel) if rel.as_os_str().is_empty() => module,
            Ok(rel) => format!("{module}/{}", rel.to_string_lossy().replace('\\', "/")),
            Err(_) => module,
        }
    });
    let needles: Vec<String> = import_path.iter().map(|p| format!("\"{p}\"")).collect();
    let needles = Needles::new(&needles);
    let mut same = Vec::new();
    let mut other = Vec::new();
    for file in &tree.sources {
        if file == edited {
            continue;
        }
        let Some(head) = reader.head(file) else {
            continue;
        };
        let local = file.parent() == Some(dir);
        if !local && !needles.any_in(head) {
            continue;
        }
        let head = prologue(&String::from_utf8_lossy(head));
        if local && package.is_some() && head.package == package {
            same.push(file.clone());
        } else if import_path
            .as_ref()
            .is_some_and(|p| head.imports.contains(p))
        {
            other.push(file.clone());
        }
    }
    same.extend(other);
    same
}

/// A Go file's package clause and imported paths.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Prologue {
    pub package: Option<String>,
    pub imports: Vec<String>,
}

pub(super) fn prologue(text: &str) -> Prologue {
    let mut head = Prologue::default();
    let mut in_block = false;
    let mut in_comment = false;
    for line in text.lines() {
        let mut line = line.trim();
        if in_comment {
            match line.find("*/") {
                Some(end) => {
                    in_comment = false;
                    line = line[end + 2..].trim();
                }
                None => continue,
            }
        }
        if line.starts_with("/*") && !line.contains("*/") {
            in_comment = true;
            continue;
        }
        if line.is_empty() || line.starts_with("//") || line.starts_with("/*") {
            continue;
        }
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else {
                head.imports.extend(import_spec(line));
            }
        } else if let Some(name) = line.strip_prefix("package ") {
            let name = name.split(|c: char| c.is_whitespace() || c == ';' || c == '/');
            head.package = name.into_iter().next().map(str::to_string);
        } else if let Some(rest) = line.strip_prefix("import") {
            let rest = rest.trim_start();
            if let Some(inner) = rest.strip_prefix('(') {
                in_block = !inner.contains(')');
                head.imports.extend(import_spec(inner));
            } else {
                head.imports.extend(import_spec(rest));
            }
        } else if head.package.is_some() {
            break;
        }
    }
    head
}

/// The path of one import spec (`alias "path"`, `"path"`, `_ "path"`).
fn import_spec(line: &str) -> Option<String> {
    let start = line.find(['"', '`'])?;
    let quote = line[start..].chars().next()?;
    let body = &line[start + 1..];
    Some(body[..body.find(quote)?].to_string())
}

/// The nearest `go.mod` at or above `dir`: its directory and module path.
fn module_of(dir: &Path) -> Option<(PathBuf, String)> {
    dir.ancestors().find_map(|d| {
        let text = super::walk::read_config(&d.join("go.mod"))?;
        let module = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("module "))?;
        let module = module.split("//").next()?.trim().trim_matches('"');
        Some((d.to_path_buf(), module.to_string()))
    })
}

/// The module directories of the nearest `go.work` at or above `dir`.
fn workspace_members(dir: &Path) -> Vec<PathBuf> {
    let Some((work_dir, text)) = dir.ancestors().find_map(|d| {
        Some((
            d.to_path_buf(),
            super::walk::read_config(&d.join("go.work"))?,
        ))
    }) else {
        return Vec::new();
    };
    let mut members = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        let entry = if in_block {
            if line.starts_with(')') {
                in_block = false;
                continue;
            }
            line
        } else if let Some(rest) = line.strip_prefix("use") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_block = true;
                continue;
            }
            rest
        } else {
            continue;
        };
        let entry = entry.trim_matches('"');
        if !entry.is_empty() {
            members.push(normalize(&work_dir.join(entry)));
        }
    }
    members
}
