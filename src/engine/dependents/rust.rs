//! Rust: the modules of the edited file's crate that name its module.
//! Cargo checks a crate whole, but rust-analyzer pulls each open file's own
//! diagnostics, and an opened importer's wait holds for the check, so the
//! files to open are the ones whose code reaches the edited module:
//! - its module path from the crate (`src/a/b.rs` and `src/a/b/mod.rs` are
//!   `a::b`; `src/lib.rs` and `src/main.rs` are the crate root) written
//!   out, `crate::a::b`;
//! - its name as a path segment (`b::`, `super::b`, `use b;`), in the
//!   parent module and below it, where `b` is in scope;
//! - the parent module's file, which declares `mod b;`;
//! - for the crate root, every module that writes `crate::` or whose
//!   parent is the root and writes `super::`: the root's items are used
//!   all over.
//!
//! Outside cargo's layout (no `Cargo.toml`, or not under its `src`) the
//! import-line guess is used instead. Only the crate of the edited file is read (the files under the nearest
//! directory with a `Cargo.toml`); a `pub use` re-export that moves a name
//! elsewhere is not followed, so an importer that only names it through a
//! re-export is found only when it also names the module.

use std::path::{Path, PathBuf};

use super::walk::{Reader, Tree, mentions};

pub(super) fn importers(
    reader: &mut Reader,
    edited: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    // Outside cargo's layout, the import-line guess ([`super::generic`]).
    let Some((src, module)) = crate_dir(edited, root).and_then(|krate| {
        let src = krate.join("src");
        module_path(edited, &src).map(|m| (src, m))
    }) else {
        return super::generic::importers(reader, edited, root, keep);
    };
    let tree = Tree::walk(reader, &src, edited, &[], "rs", keep);
    tree.sources
        .iter()
        .filter(|file| *file != edited)
        .filter(|file| {
            let Some(theirs) = module_path(file, &src) else {
                return false;
            };
            if is_parent(&theirs, &module) {
                return true;
            }
            reader
                .head(file)
                .is_some_and(|head| names(&String::from_utf8_lossy(head), &module, &theirs))
        })
        .cloned()
        .collect()
}

/// The nearest directory from `file` up to `root` holding a `Cargo.toml`.
fn crate_dir(file: &Path, root: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(root))
        .find(|dir| dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// `file`'s module path under the crate's `src` (empty for the crate root;
/// binaries under `src/bin/` count as their own roots). `None` outside
/// `src` or for a file that is not Rust.
fn module_path(file: &Path, src: &Path) -> Option<Vec<String>> {
    let rest = file.strip_prefix(src).ok()?;
    if file.extension()? != "rs" {
        return None;
    }
    let mut parts: Vec<String> = rest
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return Some(Vec::new());
    }
    match parts.last().map(String::as_str) {
        Some("mod") => {
            parts.pop();
        }
        Some("lib" | "main") if parts.len() == 1 => parts.clear(),
        _ => {}
    }
    Some(parts)
}

/// Whether `parent` declares `child` (`mod child;`).
fn is_parent(parent: &[String], child: &[String]) -> bool {
    child.len() == parent.len() + 1 && child.starts_with(parent)
}

/// Whether `text`, the source of module `theirs`, names module `module`.
fn names(text: &str, module: &[String], theirs: &[String]) -> bool {
    let Some(last) = module.last() else {
        // The crate root: `crate::` from anywhere, `super::` from its
        // direct children.
        let mut needles = vec!["crate::".to_string()];
        if theirs.len() == 1 {
            needles.push("super::".to_string());
        }
        return mentions(text.as_bytes(), &needles);
    };
    let full = format!("crate::{}", module.join("::"));
    if mentions(text.as_bytes(), std::slice::from_ref(&full)) && names_whole(text, &full) {
        return true;
    }
    // The bare name is in scope in the parent module and below it.
    let parent = &module[..module.len() - 1];
    theirs.starts_with(parent) && names_segment(text, last)
}

/// Whether `path` appears not followed by more of a name (`crate::parse`
/// is not `crate::parser`).
fn names_whole(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(i, _)| {
        !text[i + path.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether `segment` appears as a path segment: followed by `::`, or
/// `use`d (`use super::b;`, `use b;`).
fn names_segment(text: &str, segment: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(segment).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = &text[i + segment.len()..];
        !before.is_some_and(is_word)
            && (after.starts_with("::") || (after.starts_with(';') && text[..i].contains("use ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn module_paths_follow_the_file_layout() {
        let src = Path::new("/p/src");
        let of = |f: &str| module_path(&src.join(f), src);
        assert_eq!(of("lib.rs"), Some(path(&[])));
        assert_eq!(of("main.rs"), Some(path(&[])));
        assert_eq!(of("bin/tool.rs"), Some(path(&[])));
        assert_eq!(of("parse.rs"), Some(path(&["parse"])));
        assert_eq!(of("a/mod.rs"), Some(path(&["a"])));
        assert_eq!(of("a/lib.rs"), Some(path(&["a", "lib"])));
        assert_eq!(of("a/b.rs"), Some(path(&["a", "b"])));
        assert_eq!(of("notes.md"), None);
    }

    #[test]
    fn a_module_is_named_by_its_path_or_by_its_name_in_scope() {
        let parse = path(&["parse"]);
        assert!(names("use crate::parse::Error;", &parse, &path(&["eval"])));
        assert!(names(
            "let e = super::parse::Error;",
            &parse,
            &path(&["eval"])
        ));
        assert!(names("use super::parse;", &parse, &path(&["eval"])));
        assert!(!names("fn parse(x: u8) {}", &parse, &path(&["eval"])));
        assert!(!names("use crate::parser::X;", &parse, &path(&["eval"])));
        // `b` is in scope under `a`, not beside it.
        let b = path(&["a", "b"]);
        assert!(names("b::thing()", &b, &path(&["a", "c"])));
        assert!(!names("b::thing()", &b, &path(&["other"])));
        assert!(names("crate::a::b::thing()", &b, &path(&["other"])));
    }

    #[test]
    fn the_crate_root_is_named_by_crate_and_by_super_from_its_children() {
        assert!(names("use crate::Version;", &[], &path(&["display"])));
        assert!(names("use super::Version;", &[], &path(&["display"])));
        assert!(!names("use super::Version;", &[], &path(&["a", "b"])));
        assert!(!names("use std::fmt;", &[], &path(&["display"])));
    }
}
