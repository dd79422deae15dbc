//! Which other files an edit may break. Language servers report errors an
//! edit causes elsewhere only for files they have open (or index on their
//! own), and a one-shot CLI or a fresh daemon has nothing open. So after a
//! `write` squiggle opens the files most likely to import the written one —
//! found by a bounded scan of the project for import lines naming its module
//! — and asks for their diagnostics too. A heuristic, deliberately cheap: at
//! most `MAX_SCANNED` files read, `MAX_DEPENDENTS` returned.

use std::path::{Path, PathBuf};

use crate::workspace::IGNORED_DIRS;

const MAX_SCANNED: usize = 2_000;
const MAX_FILE_BYTES: u64 = 256 * 1024;
pub const MAX_DEPENDENTS: usize = 20;

/// Words that start an import in the languages squiggle serves.
const IMPORT_WORDS: &[&str] = &[
    "import", "from", "require", "#include", "use", "mod", "export",
];

/// Files under `project_root` (same extension family as `edited`) whose
/// import lines name `edited`'s module; Go files of the same package
/// (directory) always count, since Go needs no import within a package.
pub fn likely_dependents(
    edited: &Path,
    project_root: &Path,
    serves: impl Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let Some(stem) = edited.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    // `index.ts` / `__init__.py` / `mod.rs` are imported by their directory's name.
    let module = match stem.as_str() {
        "index" | "__init__" | "mod" | "lib" => edited
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or(stem),
        _ => stem,
    };
    let is_go = edited.extension().is_some_and(|e| e == "go");
    let mut found = Vec::new();
    let mut scanned = 0usize;
    let mut stack = vec![project_root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !IGNORED_DIRS.contains(&name.as_ref()) && !name.starts_with('.') {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() || path == edited || !serves(&path) {
                continue;
            }
            scanned += 1;
            if scanned > MAX_SCANNED || found.len() >= MAX_DEPENDENTS {
                return found;
            }
            if is_go
                && path.extension().is_some_and(|e| e == "go")
                && path.parent() == edited.parent()
            {
                found.push(path);
                continue;
            }
            if entry.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if imports(&text, &module) {
                found.push(path);
            }
        }
    }
    found
}

/// Whether some line both starts like an import and names `module` as a word.
fn imports(text: &str, module: &str) -> bool {
    text.lines().any(|line| {
        let trimmed = line.trim_start();
        IMPORT_WORDS.iter().any(|w| trimmed.starts_with(w)) && contains_word(trimmed, module)
    })
}

fn contains_word(haystack: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    haystack.match_indices(word).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_importers_by_module_name_across_languages() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(root)).ok();
            std::fs::write(p, text).ok();
        };
        write("src/utils.ts", "export function f() {}\n");
        write("src/main.ts", "import { f } from './utils';\nf();\n");
        write(
            "src/other.ts",
            "const utilsLike = 1; // mentions utils but imports nothing\n",
        );
        write("src/re.ts", "export * from \"./utils\";\n");
        write(
            "node_modules/x/index.ts",
            "import { f } from '../../src/utils';\n",
        );
        write("app/helpers.py", "def g(): ...\n");
        write("app/main.py", "from app.helpers import g\n");
        write("app/unrelated.py", "import helpers_extra\n");
        let ts = likely_dependents(&root.join("src/utils.ts"), root, |p| {
            p.extension().is_some_and(|e| e == "ts")
        });
        let names: Vec<_> = ts
            .iter()
            .filter_map(|p| p.strip_prefix(root).ok())
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(names, ["src/main.ts", "src/re.ts"]);
        let py = likely_dependents(&root.join("app/helpers.py"), root, |p| {
            p.extension().is_some_and(|e| e == "py")
        });
        assert_eq!(py, [root.join("app/main.py")]);
    }

    #[test]
    fn go_files_of_the_same_package_are_dependents() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::write(root.join("a.go"), "package m\n").ok();
        std::fs::write(root.join("b.go"), "package m\n").ok();
        let found = likely_dependents(&root.join("a.go"), root, |p| {
            p.extension().is_some_and(|e| e == "go")
        });
        assert_eq!(found, [root.join("b.go")]);
    }

    #[test]
    fn word_matching_is_whole_word() {
        assert!(contains_word("from app.helpers import g", "helpers"));
        assert!(!contains_word("import helpers_extra", "helpers"));
        assert!(contains_word("#include \"util.h\"", "util"));
    }
}
