//! The workspace root and the boundary around it.
//!
//! Every path an agent hands squiggle is resolved here before any server sees
//! it: symlinks are followed and `..` is settled, so a file is served only
//! when it really lives under the root (OpenCode #7227 started servers for
//! whatever directory a stray path pointed into). Dependency and build
//! directories inside the root are classified as ignored, so nobody indexes
//! `node_modules`. The per-server project root (`tsconfig.json`, `go.work`,
//! a Cargo workspace, a declared monorepo root) is found in [`roots`], never
//! above the workspace root.

mod declared;
mod roots;
#[cfg(test)]
mod tests;
pub mod watch;

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::platform::paths::canonicalize;

pub use declared::{Declaration, declared_root};
pub use roots::{RootSearch, names_marker, project_root, server_root};

/// Directories whose files are never sent to a server.
pub const IGNORED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "vendor",
    ".venv",
    "__pycache__",
    "dist",
    "build",
];

/// Whether a walk of the workspace enters a directory named `name`: not a
/// dot-directory, not one of [`IGNORED_DIRS`]. The one rule of every walk
/// the engine makes (the disk watch, the importer scan, the survey).
pub fn walked_dir(name: &str) -> bool {
    !name.starts_with('.') && !IGNORED_DIRS.contains(&name)
}

/// How many symlinks one path may pass through before it counts as a loop.
const MAX_SYMLINKS: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

/// Where a path is, once symlinks and `..` are resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathClass {
    Inside {
        canonical: PathBuf,
        /// `/`-separated, relative to the root.
        relative: String,
    },
    /// Outside the root, or not resolvable safely (`..` under a directory
    /// that does not exist, a symlink loop); `canonical` is as far as
    /// resolution got.
    Outside { canonical: PathBuf },
    Ignored {
        canonical: PathBuf,
        relative: String,
        /// The ignored directory it is under (`node_modules`).
        dir: String,
    },
}

impl PathClass {
    /// Inside the root, ignored or not: its canonical path and its name
    /// relative to the root; outside: the canonical path as far as it
    /// resolved.
    pub fn within(self) -> Result<(PathBuf, String), PathBuf> {
        match self {
            PathClass::Inside {
                canonical,
                relative,
            }
            | PathClass::Ignored {
                canonical,
                relative,
                ..
            } => Ok((canonical, relative)),
            PathClass::Outside { canonical } => Err(canonical),
        }
    }
}

impl Workspace {
    /// The root is `explicit` (a CLI flag or service parameter, relative to
    /// `cwd`), else the nearest ancestor of `cwd` holding a `.git` directory or
    /// file (a worktree or submodule), else `cwd`. Git itself is not run.
    pub fn discover(explicit: Option<&Path>, cwd: &Path) -> io::Result<Workspace> {
        let root = match explicit {
            Some(dir) => canonicalize(&cwd.join(dir))?,
            None => {
                let cwd = canonicalize(cwd)?;
                cwd.ancestors()
                    .find(|dir| dir.join(".git").exists())
                    .unwrap_or(&cwd)
                    .to_path_buf()
            }
        };
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("workspace root {} is not a directory", root.display()),
            ));
        }
        Ok(Workspace { root })
    }

    /// Canonical, so comparisons with other canonical paths are exact.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `path` (relative paths against the root) and says whether it
    /// is inside, outside or under an ignored directory. The file need not
    /// exist: the nearest existing ancestor is canonicalized and the rest
    /// appended, but a `..` in that rest makes the path outside.
    pub fn classify(&self, path: &Path) -> PathClass {
        let canonical = match resolve(&self.root.join(path)) {
            Ok(canonical) => canonical,
            Err(partial) => return PathClass::Outside { canonical: partial },
        };
        let Some(relative) = self.relative(&canonical) else {
            return PathClass::Outside { canonical };
        };
        let ignored = relative
            .split('/')
            .rev()
            .skip(1)
            .find(|part| IGNORED_DIRS.contains(part))
            .map(str::to_string);
        match ignored {
            Some(dir) => PathClass::Ignored {
                canonical,
                relative,
                dir,
            },
            None => PathClass::Inside {
                canonical,
                relative,
            },
        }
    }

    /// The `/`-separated path of `canonical` relative to the root (`""` for
    /// the root itself); `None` when it is not under the root. Non-UTF-8
    /// names are rendered lossily, so use `canonical` to open files.
    pub fn relative(&self, canonical: &Path) -> Option<String> {
        let rest = canonical.strip_prefix(&self.root).ok()?;
        Some(crate::platform::paths::slashed(rest))
    }
}

/// Canonicalizes an absolute path that may not exist yet. On failure returns
/// what was resolved so far, for the caller to report.
fn resolve(path: &Path) -> Result<PathBuf, PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_SYMLINKS {
        // The nearest ancestor that exists, canonicalized.
        let (mut resolved, rest) = path
            .ancestors()
            .find_map(|dir| Some((canonicalize(dir).ok()?, path.strip_prefix(dir).ok()?)))
            .ok_or_else(|| path.clone())?;
        let mut rest = rest.components();
        let mut relink = None;
        for component in rest.by_ref() {
            match component {
                Component::Normal(name) => resolved.push(name),
                Component::CurDir => continue,
                // `..` under a directory that does not exist cannot be
                // settled without guessing.
                _ => return Err(resolved),
            }
            // The ancestor search stopped here, so this name does not exist
            // — unless it is a dangling symlink, whose target a write would
            // create. Follow it.
            if let Ok(target) = std::fs::read_link(&resolved) {
                resolved.pop();
                relink = Some(resolved.join(target));
                break;
            }
        }
        match relink {
            None => return Ok(resolved),
            Some(target) => path = target.join(rest.as_path()),
        }
    }
    Err(path)
}
