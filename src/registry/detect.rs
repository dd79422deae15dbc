//! Finding a language server's binary on disk.
//!
//! Language servers are often installed per project rather than globally:
//! `npm i -D pyright` puts `pyright-langserver` in `node_modules/.bin`, and
//! `uv add --dev ruff` puts `ruff` in `.venv/bin`. An editor finds those
//! because the user opened the project; squiggle must look for them itself,
//! before falling back to the `PATH`, so that the project's pinned version
//! wins over whatever happens to be installed globally.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::{CommandCandidate, ServerSpec};
use crate::platform::process::is_executable;

/// Finds a program: an absolute path is taken as is; otherwise
/// `node_modules/.bin` in each directory from `start_dir` up to and including
/// `stop_at` (the workspace root), then `<stop_at>/.venv/bin` and
/// `.venv/bin` in the ancestors of `start_dir` below `stop_at`, then each
/// directory of `path_var`, then the servers `squiggle install` installed
/// (`install::bin_dirs`). A relative path with a separator
/// (`tools/server`) is taken relative to `stop_at`. Only regular executable
/// files count; symlinks to them do.
pub fn find_program(
    program: &str,
    start_dir: &Path,
    stop_at: &Path,
    path_var: Option<&OsStr>,
) -> Option<PathBuf> {
    let as_path = Path::new(program);
    // Rooted counts as absolute: on Windows `\\tools\\x.exe` (no drive)
    // names the current drive's file, as a shell reads it.
    if as_path.has_root() {
        return is_executable(as_path).then(|| as_path.to_path_buf());
    }
    if as_path.components().count() > 1 {
        let candidate = stop_at.join(as_path);
        return is_executable(&candidate).then_some(candidate);
    }
    let project_dirs = project_dirs(start_dir, stop_at);
    let node_bins = project_dirs.iter().map(|dir| dir.join("node_modules/.bin"));
    let venv_bins = std::iter::once(stop_at)
        .chain(project_dirs.iter().copied().filter(|dir| *dir != stop_at))
        .map(|dir| dir.join(".venv").join(crate::platform::paths::VENV_BIN));
    let path_dirs = path_var.into_iter().flat_map(std::env::split_paths);
    // Last: what `squiggle install` put in squiggle's servers directory.
    let installed = crate::install::bin_dirs();
    node_bins
        .chain(venv_bins)
        .chain(path_dirs)
        .chain(installed)
        .find_map(|dir| crate::platform::process::find_in_dir(&dir, program))
}

/// The first of `spec`'s commands whose program is found, with the path
/// found, searched as [`find_program`] does.
pub fn find_command<'a>(
    spec: &'a ServerSpec,
    start_dir: &Path,
    stop_at: &Path,
    path_var: Option<&OsStr>,
) -> Option<(PathBuf, &'a CommandCandidate)> {
    spec.commands.iter().find_map(|command| {
        find_program(&command.program, start_dir, stop_at, path_var).map(|path| (path, command))
    })
}

/// `start_dir` and its ancestors up to and including `stop_at`; all the way
/// to the filesystem root when `start_dir` is not inside `stop_at`.
fn project_dirs<'a>(start_dir: &'a Path, stop_at: &Path) -> Vec<&'a Path> {
    let mut dirs = Vec::new();
    for dir in start_dir.ancestors() {
        dirs.push(dir);
        if dir == stop_at {
            break;
        }
    }
    dirs
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::platform::paths::VENV_BIN;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    struct Tree {
        dir: tempfile::TempDir,
    }

    impl Tree {
        fn new() -> Tree {
            Tree {
                dir: tempfile::tempdir().unwrap(),
            }
        }

        fn path(&self, relative: &str) -> PathBuf {
            self.dir.path().join(relative)
        }

        fn file(&self, relative: &str, mode: u32) -> PathBuf {
            let path = self.path(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, "#!/bin/sh\n").unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            path
        }

        fn dir(&self, relative: &str) -> PathBuf {
            let path = self.path(relative);
            fs::create_dir_all(&path).unwrap();
            path
        }
    }

    fn find(tree: &Tree, program: &str, start: &str, path_var: &[PathBuf]) -> Option<PathBuf> {
        let path_var = std::env::join_paths(path_var).unwrap();
        find_program(
            program,
            &tree.path(start),
            &tree.path("ws"),
            Some(&path_var),
        )
    }

    #[test]
    fn nearest_node_modules_bin_wins() {
        let tree = Tree::new();
        tree.dir("ws/packages/app/src");
        tree.file("ws/node_modules/.bin/tsls", 0o755);
        let nearest = tree.file("ws/packages/app/node_modules/.bin/tsls", 0o755);
        assert_eq!(
            find(&tree, "tsls", "ws/packages/app/src", &[]),
            Some(nearest)
        );
    }

    #[test]
    fn node_modules_at_the_workspace_root_counts_but_not_above_it() {
        let tree = Tree::new();
        tree.dir("ws/src");
        let root = tree.file("ws/node_modules/.bin/eslint", 0o755);
        tree.file("node_modules/.bin/above", 0o755);
        assert_eq!(find(&tree, "eslint", "ws/src", &[]), Some(root));
        assert_eq!(find(&tree, "above", "ws/src", &[]), None);
    }

    #[test]
    fn venv_bin_comes_after_node_modules_and_before_path() {
        let tree = Tree::new();
        tree.dir("ws/pkg");
        let venv = tree.file(&format!("ws/.venv/{VENV_BIN}/ruff"), 0o755);
        let global = tree.file("global/bin/ruff", 0o755);
        let global_dir = global.parent().unwrap().to_path_buf();
        assert_eq!(
            find(&tree, "ruff", "ws/pkg", std::slice::from_ref(&global_dir)),
            Some(venv)
        );

        let node = tree.file("ws/pkg/node_modules/.bin/ruff", 0o755);
        assert_eq!(find(&tree, "ruff", "ws/pkg", &[global_dir]), Some(node));
    }

    #[test]
    fn nested_venv_is_found_below_the_root() {
        let tree = Tree::new();
        tree.dir("ws/svc/src");
        let nested = tree.file(&format!("ws/svc/.venv/{VENV_BIN}/pylsp"), 0o755);
        assert_eq!(find(&tree, "pylsp", "ws/svc/src", &[]), Some(nested));
    }

    #[test]
    fn path_directories_are_searched_in_order() {
        let tree = Tree::new();
        tree.dir("ws");
        let empty = tree.dir("empty");
        let first = tree.file("first/gopls", 0o755);
        let second = tree.file("second/gopls", 0o755);
        let dirs = [
            empty,
            first.parent().unwrap().into(),
            second.parent().unwrap().into(),
        ];
        assert_eq!(find(&tree, "gopls", "ws", &dirs), Some(first));
    }

    #[test]
    fn non_executable_files_and_directories_do_not_count() {
        let tree = Tree::new();
        tree.dir("ws");
        tree.file("ws/node_modules/.bin/decoy", 0o644);
        tree.dir(&format!("ws/.venv/{VENV_BIN}/decoy"));
        let real = tree.file("bin/decoy", 0o755);
        let dirs = [real.parent().unwrap().to_path_buf()];
        assert_eq!(find(&tree, "decoy", "ws", &dirs), Some(real));
        assert_eq!(find(&tree, "decoy", "ws", &[]), None);
    }

    #[test]
    fn symlinks_to_executables_count() {
        let tree = Tree::new();
        let target = tree.file("ws/node_modules/pyright/index.js", 0o755);
        let link = tree.path("ws/node_modules/.bin/pyright-langserver");
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(find(&tree, "pyright-langserver", "ws", &[]), Some(link));
    }

    #[test]
    fn absolute_and_relative_paths() {
        let tree = Tree::new();
        tree.dir("ws");
        let absolute = tree.file("opt/clangd", 0o755);
        let decoy = tree.file("opt/decoy", 0o600);
        let relative = tree.file("ws/tools/server", 0o755);
        assert_eq!(
            find(&tree, absolute.to_str().unwrap(), "ws", &[]),
            Some(absolute)
        );
        assert_eq!(find(&tree, decoy.to_str().unwrap(), "ws", &[]), None);
        assert_eq!(find(&tree, "tools/server", "ws", &[]), Some(relative));
    }

    #[test]
    fn missing_path_variable_is_fine() {
        let tree = Tree::new();
        tree.dir("ws");
        assert_eq!(
            find_program("nothing", &tree.path("ws"), &tree.path("ws"), None),
            None
        );
    }

    #[test]
    fn find_command_takes_the_first_candidate_found() {
        let tree = Tree::new();
        tree.dir("ws");
        tree.file(&format!("ws/.venv/{VENV_BIN}/second"), 0o755);
        let mut spec = crate::registry::builtin_servers().remove(0);
        spec.commands = vec![
            CommandCandidate::new("first", &[]),
            CommandCandidate::new("second", &["--stdio"]),
        ];
        let (path, command) =
            find_command(&spec, &tree.path("ws"), &tree.path("ws"), None).unwrap();
        assert_eq!(path, tree.path("ws/.venv/bin/second"));
        assert_eq!(command.args, ["--stdio"]);
    }
}
