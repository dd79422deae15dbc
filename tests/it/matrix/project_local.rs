//! A server the project installed for itself wins over squiggle's own:
//! pyright in the project's `node_modules` and ruff in its
//! `.venv` are the ones started (seen in the process list), and `squiggle
//! status` shows their paths. The lookup is `registry::detect`'s, for every
//! server alike.

use crate::support;

use std::path::Path;
use std::process::Command;

use crate::support::matrix::*;
use serde_json::Value;

const MAIN: &str = "app/main.py";
const CALL: &str = "total = area(width, height)";

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
        .unwrap_or_default()
}

fn link(target: &Path, at: &Path) {
    std::fs::create_dir_all(at.parent().unwrap_or(at)).unwrap_or_else(|e| panic!("{e}"));
    crate::support::symlink(target, at).unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn project_local_pyright_and_venv_ruff_are_chosen_over_squiggles_own() {
    let (Some(pyright), Some(ruff)) = (
        support::require_program("pyright-langserver"),
        support::require_program("ruff"),
    ) else {
        return;
    };
    let dir = fixture("python");
    let local_pyright = dir.path().join("node_modules/.bin/pyright-langserver");
    let local_ruff = dir.path().join(".venv/bin/ruff");
    link(&pyright, &local_pyright);
    link(&ruff, &local_ruff);

    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);
    let broken = edit(&engine, &main, CALL, "total = aera(width, height)").await;
    assert_merged(&broken, &["pyright", "ruff"]);

    let statuses = engine.pool().statuses();
    let pid = |id: &str| {
        statuses
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.server_pid)
            .unwrap_or_else(|| panic!("no live {id}"))
    };
    // Started through the project's own paths, though PATH has both too.
    let pyright_line = cmdline(pid("pyright"));
    assert!(
        pyright_line.contains(&local_pyright.display().to_string()),
        "{pyright_line}"
    );
    let ruff_line = cmdline(pid("ruff"));
    assert!(
        ruff_line.starts_with(&local_ruff.display().to_string()),
        "{ruff_line}"
    );
    let fixed = edit(&engine, &main, "total = aera(width, height)", CALL).await;
    assert_fixed(&fixed, EDITED, "aera");
    engine.shutdown().await;

    let out = Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .args(["status", "--json", "--root"])
        .arg(dir.path())
        .env_remove("RUST_LOG")
        .env("XDG_RUNTIME_DIR", dir.path())
        .output()
        .unwrap_or_else(|e| panic!("squiggle status: {e}"));
    let status: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let path_of = |id: &str| {
        status["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["id"] == id)
            .map(|s| s["command"].clone())
            .unwrap_or_default()
    };
    assert_eq!(path_of("pyright"), local_pyright.display().to_string());
    assert_eq!(path_of("ruff"), local_ruff.display().to_string());
}
