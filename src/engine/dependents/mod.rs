//! Which other files an edit may break. Language servers report errors an
//! edit causes elsewhere only for files they have open (or index on their
//! own), and a one-shot CLI or a fresh daemon has nothing open. So after a
//! `write` squiggle opens the files that import the written one and asks for
//! their diagnostics too.
//!
//! "Import" is resolved the way each language's own tools resolve it, one
//! module per family: TS/JS specifiers with extensions, `index` files and
//! tsconfig `paths` ([`ts`]); Python absolute and relative imports from the
//! project's import roots ([`python`]); C/C++ `#include` against the
//! including directory and the `-I` directories of the compile flags
//! ([`c`]); Go's package and every package importing its import path
//! ([`go`]); Rust modules of the same crate that name the edited module's
//! path ([`rust`]). The scan is
//! bounded: at most [`MAX_LISTED`] files listed, [`MAX_HEAD_BYTES`] read per
//! file, [`MAX_DEPENDENTS`] returned. A long-lived engine keeps the listing
//! and the heads between writes ([`ScanCache`]). See `docs/dependents.md`.

mod c;
mod cache;
mod generic;
mod go;
mod python;
mod rust;
mod ts;
mod tsconfig;
mod walk;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub use cache::{
    MAX_ANSWERS, MAX_CACHED_BYTES, MAX_CACHED_HEADS, MAX_CACHED_LISTED, MAX_ROOTS, MAX_TREES,
    ScanCache,
};
pub use walk::{MAX_HEAD_BYTES, MAX_LISTED};

use walk::Reader;

/// At most this many importers are returned (and opened).
pub const MAX_DEPENDENTS: usize = 20;

/// The language families whose imports are resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Ts,
    Python,
    C,
    Go,
    Rust,
}

impl Family {
    /// Whether the scan cache may keep the family's answers (see `cache`):
    /// the resolver reads the listing, the files' heads (the edited file's
    /// own for its exports at most, which the cache keys the answer by) and
    /// at most configuration files it reports to the [`Reader`]. The others also
    /// read files (go.mod and go.work above the root, compile flags,
    /// Cargo.toml) without saying so.
    fn answers_may_be_kept(self) -> bool {
        matches!(self, Family::Python | Family::Ts)
    }

    /// Cuts a head down to what the family's resolver reads, which is what
    /// a cache then holds: a Python file's import statements (about a tenth
    /// of a typical module); other families keep the whole head.
    fn digest(path: &Path, head: &mut Vec<u8>) {
        if Family::of(path) == Some(Family::Python) {
            *head = python::import_lines(&String::from_utf8_lossy(head)).into_bytes();
        }
    }

    /// What a kept answer for `edited` is kept by beyond the servers, for
    /// the families whose answer depends on more than the listing: a
    /// TypeScript answer names the edited file's exports first
    /// (`ts::naming_exports_first`), so it is kept by them.
    fn answer_key(reader: &mut Reader, edited: &Path) -> Option<String> {
        match Family::of(edited)? {
            Family::Ts => Some(ts::edited_exports(reader, edited).join(",")),
            Family::Python | Family::C | Family::Go | Family::Rust => None,
        }
    }

    fn of(path: &Path) -> Option<Family> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            // Vue and Svelte components are imported by their file names.
            "ts" | "tsx" | "js" | "jsx" | "mts" | "cts" | "mjs" | "cjs" | "vue" | "svelte" => {
                Family::Ts
            }
            "py" | "pyi" => Family::Python,
            "c" | "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "inl"
            | "ipp" | "tpp" | "m" | "mm" => Family::C,
            "go" => Family::Go,
            "rs" => Family::Rust,
            _ => return None,
        })
    }
}

/// The files under `project_root` that the server (`serves`) handles and
/// that import `edited`, nearest kind first and otherwise in path order, at
/// most [`MAX_DEPENDENTS`]. For a language squiggle does not resolve, a
/// guess from import lines naming the file's stem ([`generic`]).
pub fn likely_dependents(
    edited: &Path,
    project_root: &Path,
    serves: impl Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    scan(&mut Reader::disk(), edited, project_root, &serves)
}

/// [`likely_dependents`], reading through `reader`.
fn scan(
    reader: &mut Reader,
    edited: &Path,
    project_root: &Path,
    serves: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let edited =
        crate::platform::paths::canonicalize(edited).unwrap_or_else(|_| edited.to_path_buf());
    let root = crate::platform::paths::canonicalize(project_root)
        .unwrap_or_else(|_| project_root.to_path_buf());
    // The resolvers' filters depend on the edited file's kind.
    reader.qualify(&format!("{:?}", edited.extension()));
    let Some(family) = Family::of(&edited) else {
        // Languages squiggle does not resolve: the files whose import
        // lines name the file's stem.
        let mut found = generic::importers(reader, &edited, &root, serves);
        found.truncate(MAX_DEPENDENTS);
        return found;
    };
    let in_family = |p: &Path| Family::of(p) == Some(family) && serves(p);
    let mut found = match family {
        Family::Ts => ts::importers(reader, &edited, &root, &in_family),
        Family::Python => python::importers(reader, &edited, &root, &in_family),
        Family::C => c::importers(reader, &edited, &root, &in_family),
        Family::Go => go::importers(reader, &edited, &root, &in_family),
        Family::Rust => rust::importers(reader, &edited, &root, &in_family),
    };
    let mut seen = std::collections::HashSet::new();
    found.retain(|p| *p != edited && seen.insert(p.clone()));
    found.truncate(MAX_DEPENDENTS);
    found
}
