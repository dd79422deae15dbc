//! `squiggle install`: pyright from the npm registry (this test reaches it,
//! like the install scripts) into a temporary servers directory, with no
//! pyright on PATH, first as what `--missing` finds the workspace needs, then
//! by name (replacing it); afterwards `squiggle check` finds it there and
//! reports pyright's error, and `--missing` finds nothing left. Also: a wrong name refuses the whole command, and a
//! server that ships elsewhere gets the command to run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support;

/// A PATH with node and npm but no language server: `bin/` in `tmp` holding
/// links to the two (their own directories may hold servers: the project's
/// `.tools` puts node beside pyright) and the system's directories.
fn bare_path(tmp: &Path) -> Option<String> {
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("mkdir bin: {e}"));
    for name in ["node", "npm"] {
        let found = support::require_program(name)?;
        let real = found.canonicalize().unwrap_or(found);
        crate::support::symlink(&real, bin.join(name))
            .unwrap_or_else(|e| panic!("link {name}: {e}"));
    }
    let dirs = [bin, PathBuf::from("/usr/bin"), PathBuf::from("/bin")];
    std::env::join_paths(dirs)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

fn squiggle(tmp: &Path, path: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .args(args)
        .env("PATH", path)
        .env("HOME", tmp)
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("XDG_CONFIG_HOME", tmp.join("config"))
        .env("XDG_RUNTIME_DIR", tmp.join("run"))
        .env("npm_config_cache", tmp.join("npm-cache"))
        .env_remove("SQUIGGLE_SERVERS_DIR")
        .output()
        .unwrap_or_else(|e| panic!("run squiggle {args:?}: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn install_pyright_then_check_reports_its_error() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let tmp = tmp.path();
    let Some(path) = bare_path(tmp) else { return };
    let ws = tmp.join("ws");
    std::fs::create_dir_all(ws.join(".git")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::create_dir_all(tmp.join("config/squiggle")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(
        tmp.join("config/squiggle/config.toml"),
        "[lsp]\nfirstTouchTimeout = 60000\ndiagnosticTimeout = 20000\n",
    )
    .unwrap_or_else(|e| panic!("write config: {e}"));
    // ruff (a PyPI server) off: this test installs only from npm.
    std::fs::write(
        ws.join(".squiggle.toml"),
        "[lsp.servers.ruff]\nenabled = false\n",
    )
    .unwrap_or_else(|e| panic!("write .squiggle.toml: {e}"));
    let app = ws.join("app.py");
    std::fs::write(
        &app,
        "def greet(name: str) -> str:\n    return name\n\n\ngreet(42)\n",
    )
    .unwrap_or_else(|e| panic!("write app.py: {e}"));
    let root = ws.display().to_string();
    let file = app.display().to_string();

    // Before: pyright is nowhere to be found, so nothing is reported.
    let before = squiggle(tmp, &path, &["check", "--root", &root, &file]);
    assert!(
        !text(&before).contains("reportArgumentType"),
        "{}",
        text(&before)
    );

    let install = squiggle(tmp, &path, &["install", "--missing", "--root", &root]);
    assert_eq!(
        install.status.code(),
        Some(0),
        "install --missing failed:\n{}",
        text(&install)
    );
    assert!(
        text(&install).contains("installing pyright"),
        "{}",
        text(&install)
    );
    let install = squiggle(tmp, &path, &["install", "pyright"]);
    assert_eq!(
        install.status.code(),
        Some(0),
        "install failed:\n{}",
        text(&install)
    );
    let servers = tmp.join("data/squiggle/servers");
    assert!(
        servers
            .join("pyright/node_modules/.bin/pyright-langserver")
            .exists(),
        "no pyright-langserver under {}",
        servers.display()
    );
    let leftovers: Vec<_> = std::fs::read_dir(&servers)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(
        leftovers,
        vec![std::ffi::OsString::from("pyright")],
        "staging left behind"
    );

    let after = squiggle(tmp, &path, &["check", "--root", &root, &file]);
    assert_eq!(after.status.code(), Some(1), "{}", text(&after));
    assert!(
        text(&after).contains("reportArgumentType"),
        "{}",
        text(&after)
    );
}

#[test]
fn a_wrong_name_installs_nothing_and_other_channels_get_their_command() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let path = std::env::var("PATH").unwrap_or_default();
    let out = squiggle(tmp.path(), &path, &["install", "pyright", "pyrite"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("unknown server pyrite"),
        "{}",
        text(&out)
    );
    assert!(
        !tmp.path().join("data/squiggle/servers").exists(),
        "installed despite the error"
    );

    let out = squiggle(tmp.path(), &path, &["install", "rust-analyzer"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("squiggle does not install rust-analyzer; install it with `rustup component add rust-analyzer`"),
        "{}",
        text(&out)
    );
}
