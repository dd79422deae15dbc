//! Importers in a language squiggle does not resolve (a custom server's):
//! files of the same extension whose first lines carry an import word
//! followed, as a whole word, by the edited file's stem. A guess, kept only
//! where nothing better is known; the families squiggle resolves never use it.

use std::path::{Path, PathBuf};

use super::walk::{Reader, Tree};

/// Words that start an import line in most languages.
const IMPORT_WORDS: &[&str] = &[
    "import", "from", "require", "include", "use", "pub use", "mod", "pub mod", "load",
];

pub(super) fn importers(
    reader: &mut Reader,
    edited: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let Some(stem) = edited.file_stem().and_then(|s| s.to_str()) else {
        return Vec::new();
    };
    let extension = edited.extension();
    let same_kind = |p: &Path| p.extension() == extension && keep(p);
    let tree = Tree::walk(reader, root, edited, &[], "ext", &same_kind);
    tree.sources
        .iter()
        .filter(|file| {
            *file != edited
                && reader
                    .head(file)
                    .is_some_and(|head| imports(&String::from_utf8_lossy(head), stem))
        })
        .cloned()
        .collect()
}

/// Whether a line starting with an import word names `stem` as a word.
fn imports(text: &str, stem: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start().trim_start_matches('#');
        IMPORT_WORDS.iter().any(|w| line.starts_with(w)) && has_word(line, stem)
    })
}

fn has_word(haystack: &str, word: &str) -> bool {
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
    fn an_import_line_naming_the_stem_as_a_word() {
        assert!(imports("import util\n@error(x)\n", "util"));
        assert!(imports("  from util use thing\n", "util"));
        assert!(!imports("import utility\n", "util"));
        assert!(!imports("call util()\n", "util"));
    }
}
