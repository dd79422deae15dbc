//! Shared helpers for the MCP tests: the tools installed by
//! `scripts/install-servers.sh` under `.tools/`, a fresh copy of the fixture
//! projects, and the Python SDK's scripts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools")
}

/// `path` when it exists, under the rule of `support::require`.
pub fn require(path: PathBuf, what: &str) -> Option<PathBuf> {
    let what = format!("{what} ({})", path.display());
    crate::support::require(path.exists().then_some(path), &what)
}

/// PATH with the installed servers first.
pub fn path_with_tools() -> OsString {
    let mut dirs = vec![
        tools().join("npm/node_modules/.bin"),
        tools().join("venv/bin"),
    ];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// `PYTHON tests/clients/python/SCRIPT SQUIGGLE ROOT`: one of the Python SDK's scripts
/// driving `squiggle mcp` on `root`, with `config_home` as the user config.
pub fn sdk_script(python: &Path, script: &str, root: &Path, config_home: &Path) -> Command {
    let mut command = Command::new(python);
    command
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/clients/python")
                .join(script),
        )
        .arg(env!("CARGO_BIN_EXE_squiggle"))
        .arg(root)
        .env("XDG_CONFIG_HOME", config_home);
    command
}

/// Runs `command` (an [`sdk_script`]); it must exit 0 having printed "all
/// checks passed". Its stdout.
pub fn passes(mut command: Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("run python for {what}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("all checks passed"),
        "{what} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
}

/// A temporary copy of `tests/fixtures/mcp`, with an empty user config.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub config_home: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let root = dir.path().join("ws");
        crate::support::copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp"),
            &root,
        );
        let root = root.canonicalize().unwrap_or(root);
        let config_home = dir.path().join("config");
        std::fs::create_dir_all(&config_home).ok();
        Fixture {
            dir,
            root,
            config_home,
        }
    }
}
