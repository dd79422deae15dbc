//! Which directory a language server should be started in for a given file.
//!
//! A monorepo holds many projects, and a server started at the wrong root
//! sees the wrong `tsconfig.json` or none. Each server names its marker files;
//! the search walks from the file's directory up to the workspace root and
//! never above it, so a stray marker in a home directory cannot widen what a
//! server indexes. A root the project declares for a group of packages
//! ([`declared`](super::declared)) comes first when the server accepts it.

use std::path::{Path, PathBuf};

use super::declared::{Declaration, declared_root};

/// How to choose among the directories holding a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootSearch {
    /// The nearest directory holding any marker (`package.json`).
    Nearest,
    /// The enclosing Cargo workspace (when `Cargo.toml` is a marker): the
    /// nearest directory whose `Cargo.toml` declares `[workspace]`, else the
    /// nearest marker, so a member crate is served from its workspace root.
    /// Nearest, not outermost, as Cargo does: a crate that declares its own
    /// `[workspace]` to leave the enclosing one stays on its own.
    Outermost,
    /// Markers in priority order: the nearest `markers[0]` anywhere on the
    /// way up beats a nearer `markers[1]` (`go.work` over `go.mod`).
    PreferFirstMarker,
}

/// The project root for `file`: the nearest root declaring a package that
/// holds `file` by one of `declared` (see [`declared_root`]), else
/// [`project_root`] by `markers` and `strategy`.
pub fn server_root(
    file: &Path,
    workspace_root: &Path,
    markers: &[String],
    strategy: RootSearch,
    declared: &[Declaration],
) -> PathBuf {
    declared_root(file, workspace_root, declared)
        .unwrap_or_else(|| project_root(file, workspace_root, markers, strategy))
}

/// The project root for `file` by `markers` (plain file or directory names,
/// or `*.ext` to match any file with that extension). Falls back to
/// `workspace_root` when no marker is found or `file` is not under it. Both
/// paths should be canonical.
pub fn project_root(
    file: &Path,
    workspace_root: &Path,
    markers: &[String],
    strategy: RootSearch,
) -> PathBuf {
    let start = if file.is_dir() {
        file
    } else {
        file.parent().unwrap_or(file)
    };
    if !start.starts_with(workspace_root) {
        return workspace_root.to_path_buf();
    }
    // From the file's directory up to and including the workspace root.
    let chain: Vec<&Path> = start
        .ancestors()
        .take_while(|dir| dir.starts_with(workspace_root))
        .collect();
    let any_marker = |dir: &Path| markers.iter().any(|m| has_marker(dir, m));
    let cargo = markers.iter().any(|m| m == "Cargo.toml");
    let found = match strategy {
        RootSearch::Nearest => chain.iter().copied().find(|dir| any_marker(dir)),
        RootSearch::Outermost => chain
            .iter()
            .copied()
            .find(|dir| cargo && declares_cargo_workspace(dir))
            .or_else(|| chain.iter().copied().find(|dir| any_marker(dir))),
        RootSearch::PreferFirstMarker => markers
            .iter()
            .find_map(|m| chain.iter().copied().find(|dir| has_marker(dir, m))),
    };
    found.unwrap_or(workspace_root).to_path_buf()
}

fn has_marker(dir: &Path, marker: &str) -> bool {
    match marker.strip_prefix('*') {
        Some(_) => std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| names_marker(&e.file_name().to_string_lossy(), marker))
        }),
        None => dir.join(marker).exists(),
    }
}

/// Whether a file named `name` is the root marker `marker` (`*.sln`
/// matches any name ending in `.sln`).
pub fn names_marker(name: &str, marker: &str) -> bool {
    match marker.strip_prefix('*') {
        Some(suffix) => name.ends_with(suffix),
        None => name == marker,
    }
}

/// Whether `dir/Cargo.toml` has a `workspace` table (`[workspace]` or any
/// `[workspace.*]`). An unreadable or malformed file does not.
fn declares_cargo_workspace(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|table| table.get("workspace").is_some_and(toml::Value::is_table))
}
