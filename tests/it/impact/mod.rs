//! Impact before an edit on `tests/fixtures/impact`:
//! real pyright (`py/`) and typescript-language-server (`ts/`). Each count
//! below is what a plain text search finds (`grep -row NAME`, quoted in the
//! test), less the declaration, with every hit read and confirmed a use:
//! the fixtures hold no comment, string or other name containing them.

mod bounds;
mod cli;
mod python;
mod typescript;

use squiggle::impact::{FileUses, ImpactResult, SymbolImpact};

/// `(path, test, lines)` of each file's uses.
pub fn by_file(s: &SymbolImpact) -> Vec<(&str, bool, Vec<u32>)> {
    s.files
        .iter()
        .map(|FileUses { path, test, lines }| (path.as_str(), *test, lines.clone()))
        .collect()
}

/// `(name, uses, test uses)` of every symbol.
pub fn counts(r: &ImpactResult) -> Vec<(&str, usize, usize)> {
    r.symbols
        .iter()
        .map(|s| (s.name.as_str(), s.uses, s.test_uses))
        .collect()
}

/// `(path, test, no use found)` of every importer.
pub fn importers(r: &ImpactResult) -> Vec<(&str, bool, bool)> {
    r.importers
        .iter()
        .map(|i| (i.path.as_str(), i.test, i.no_use_found))
        .collect()
}
