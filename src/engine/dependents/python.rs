//! Python importers: `import a.b.c`, `from a.b import c` (where `c` may be
//! a module), and relative `from . import x` / `from ..pkg.mod import y`,
//! resolved the way pyright resolves them: a relative import from the
//! importing file's package; an absolute one from the importing file's own
//! directory first, then the import roots — the root implied by the edited
//! file's package chain (the directory above its topmost `__init__.py`),
//! `src/` when the project has one, and the project root. The first root
//! where the module exists wins, so a same-named module elsewhere does not
//! count. A package's `__init__.py` is imported by the package's name.
//! Imports may sit anywhere in a file; the first 64 KiB are read.

use std::path::{Path, PathBuf};

use super::walk::{Needles, Reader, Tree};

pub(super) fn importers(
    reader: &mut Reader,
    edited: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let tree = Tree::walk(reader, root, edited, &[], "py", keep);
    let roots = import_roots(edited, root, &tree);
    let Some(needles) = needles(edited) else {
        return Vec::new();
    };
    let needles = Needles::new(&needles);
    let mut found = Vec::new();
    for file in &tree.sources {
        if file == edited {
            continue;
        }
        let Some(head) = reader.head(file).filter(|h| needles.any_in(h)) else {
            continue;
        };
        let Some(dir) = file.parent() else {
            continue;
        };
        let text = String::from_utf8_lossy(head);
        if statements(&text)
            .iter()
            .any(|s| names_edited(s, dir, &roots, &tree, edited))
        {
            found.push(file.clone());
        }
    }
    found
}

/// The module's own name (the package's for `__init__`); relative imports
/// of a package's `__init__` may name nothing but dots.
fn needles(edited: &Path) -> Option<Vec<String>> {
    let stem = edited.file_stem()?.to_str()?;
    if stem == "__init__" {
        let package = edited.parent()?.file_name()?.to_str()?;
        return Some(vec![package.to_string(), "from .".to_string()]);
    }
    Some(vec![stem.to_string()])
}

/// Absolute-import roots in the order they are tried (after the importing
/// file's own directory).
fn import_roots(edited: &Path, root: &Path, tree: &Tree) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let mut top = edited.parent();
    while let Some(dir) = top {
        let is_package = ["__init__.py", "__init__.pyi"]
            .iter()
            .any(|n| tree.exists(&dir.join(n)));
        if !is_package || !dir.starts_with(root) || dir == root {
            break;
        }
        top = dir.parent();
    }
    roots.extend(top.map(Path::to_path_buf));
    let src = root.join("src");
    if tree.dirs.contains(&src) {
        roots.push(src);
    }
    roots.push(root.to_path_buf());
    roots.dedup();
    roots
}

/// One import statement: how many leading dots, the dotted module, and the
/// names a `from` import takes from it.
#[derive(Debug, PartialEq)]
pub(super) struct Import<'a> {
    pub level: usize,
    pub module: Vec<&'a str>,
    pub names: Vec<&'a str>,
}

/// The import statements of a file (also indented ones, and `from x import
/// (a,\n b)` over several lines).
pub(super) fn statements(text: &str) -> Vec<Import<'_>> {
    statements_and_lines(text, &mut |_| {})
}

/// The lines of `text` that [`statements`] reads, each ended by a newline:
/// `statements` finds the same imports in them as in the whole text. What
/// the scan cache keeps of a Python file.
pub(super) fn import_lines(text: &str) -> String {
    let mut kept = String::new();
    statements_and_lines(text, &mut |line| {
        kept.push_str(line);
        kept.push('\n');
    });
    kept
}

/// [`statements`], handing every line a statement spans to `read`.
fn statements_and_lines<'a>(text: &'a str, read: &mut dyn FnMut(&'a str)) -> Vec<Import<'a>> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(raw) = lines.next() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(rest) = line.strip_prefix("import ") {
            read(raw);
            for item in rest.trim_end_matches('\\').split(',') {
                let module = item.split_whitespace().next().unwrap_or("");
                if !module.is_empty() {
                    out.push(Import {
                        level: 0,
                        module: module.split('.').collect(),
                        names: Vec::new(),
                    });
                }
            }
        } else if let Some(rest) = line.strip_prefix("from ") {
            let Some((module, names)) = rest.split_once(" import") else {
                continue;
            };
            read(raw);
            let mut names: Vec<&str> = names_of(names);
            // A parenthesised or continued list goes on over the next lines.
            let open = line.contains('(') && !line.contains(')');
            let mut more = open || line.ends_with('\\');
            for next in lines.by_ref().take(if more { 100 } else { 0 }) {
                read(next);
                let next = next.split('#').next().unwrap_or("");
                names.extend(names_of(next));
                more = if open {
                    !next.contains(')')
                } else {
                    next.trim_end().ends_with('\\')
                };
                if !more {
                    break;
                }
            }
            let module = module.trim();
            let level = module.len() - module.trim_start_matches('.').len();
            let dotted = &module[level..];
            out.push(Import {
                level,
                module: dotted.split('.').filter(|p| !p.is_empty()).collect(),
                names,
            });
        }
    }
    out
}

/// The imported names of a `from` list fragment (`a, b as c, (d`).
fn names_of(list: &str) -> Vec<&str> {
    list.split(',')
        .filter_map(|item| {
            let item = item.trim_matches(|c: char| c.is_whitespace() || "()\\".contains(c));
            item.split_whitespace().next()
        })
        .filter(|n| *n != "*")
        .collect()
}

/// Whether `import` (in a file in `dir`) brings in `edited`.
fn names_edited(
    import: &Import,
    dir: &Path,
    roots: &[PathBuf],
    tree: &Tree,
    edited: &Path,
) -> bool {
    let base = if import.level > 0 {
        let Some(package) = dir.ancestors().nth(import.level - 1) else {
            return false;
        };
        Some(join(package, &import.module))
    } else {
        std::iter::once(dir)
            .chain(roots.iter().map(PathBuf::as_path))
            .map(|r| join(r, &import.module))
            .find(|m| module_file(m, tree).is_some() || tree.dirs.contains(m))
    };
    let Some(base) = base else {
        return false;
    };
    // Every file the import may mean starts with `base` (`base.py`,
    // `base/__init__.py`, `base/name.py`): a cheap test that spares the
    // lookups for the many imports of other modules (a package's
    // `__init__` names each of its modules).
    if !edited
        .as_os_str()
        .as_encoded_bytes()
        .starts_with(base.as_os_str().as_encoded_bytes())
    {
        return false;
    }
    let submodule = |n: &&str| {
        let path = base.join(n);
        module_file(&path, tree).is_some() || tree.dirs.contains(&path)
    };
    // The package's `__init__` counts when the import takes something
    // other than submodules from it (or the whole package).
    if module_file(&base, tree).as_deref() == Some(edited)
        && (import.names.is_empty() || !import.names.iter().all(submodule))
    {
        return true;
    }
    import
        .names
        .iter()
        .any(|n| module_file(&base.join(n), tree).as_deref() == Some(edited))
}

fn join(root: &Path, module: &[&str]) -> PathBuf {
    let mut path = root.to_path_buf();
    path.extend(module);
    path
}

/// The file a module path (`root/a/b` for `a.b`) names, if listed.
fn module_file(module: &Path, tree: &Tree) -> Option<PathBuf> {
    let text = module.to_string_lossy();
    [".py", ".pyi"]
        .iter()
        .map(|e| PathBuf::from(format!("{text}{e}")))
        .chain(
            ["__init__.py", "__init__.pyi"]
                .iter()
                .map(|n| module.join(n)),
        )
        .find(|p| tree.exists(p))
}
