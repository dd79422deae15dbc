//! The path a new user follows through the README and `docs/`: one install
//! hint on every surface.

use super::{stderr, stdout};
use crate::support::both;
use crate::support::scratch::{Scratch, write_under};

/// A workspace with a Python file and a `.zz` file served by `my-lint`, a
/// custom server whose program does not exist; `squiggle ARGS…` runs with
/// a PATH that holds no language server and an empty servers directory.
fn missing_servers() -> (Scratch, impl Fn(&[&str]) -> std::process::Output) {
    let ws = Scratch::with_git_root();
    let config =
        "[lsp.servers.my-lint]\ncommand = \"squiggle-no-such-lint\"\nextensions = [\".zz\"]\n";
    write_under(&ws.config_home, "squiggle/config.toml", config.as_bytes());
    ws.write("a.py", "x = 1\n");
    ws.write("b.zz", "b\n");
    let servers = ws.outer.join("servers");
    let (config_home, runtime, root) = (
        ws.config_home.clone(),
        ws.runtime_dir.clone(),
        ws.root.clone(),
    );
    let run = move |args: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_squiggle"));
        command
            .args(args)
            .current_dir(&root)
            .env("XDG_CONFIG_HOME", &config_home)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("SQUIGGLE_SERVERS_DIR", &servers)
            .env("SQUIGGLE_NO_DAEMON", "1")
            .env("PATH", "/usr/bin:/bin")
            .env_remove("RUST_LOG");
        super::bounded(&mut command, b"")
    };
    (ws, run)
}

/// `status` said ``squiggle install ruff (or: uv tool install
/// ruff)``, `check` ``install it with `uv tool install ruff` ``, a custom
/// server's warning ``install it with `install `my-lint` (configured in
/// …)` ``, and `squiggle install --missing` said a server was missing and
/// then that every server was found. Every surface gives one remedy per
/// server, and `install --missing` never contradicts itself.
#[test]
fn install_hints_agree_on_every_surface() {
    let (ws, run) = missing_servers();
    // With the platform's separators, as squiggle names the file
    // (`…\squiggle\config.toml` on Windows, not `…\squiggle/config.toml`).
    let user = squiggle::platform::paths::join_slashed(&ws.config_home, "squiggle/config.toml");
    let python = "install it with `squiggle install pyright` (or `npm i -g pyright`)";
    let custom = format!(
        "squiggle-no-such-lint not found on PATH, in {}; put it on PATH, or correct `command` in {}",
        squiggle::platform::paths::project_bin_dirs_shown(),
        user.display()
    );

    let status = stdout(&run(&["status"]));
    let check = run(&["check", "a.py", "b.zz"]);
    let check = stderr(&check);
    let doctor = run(&["doctor", "--only", "pyright,my-lint"]);
    assert!(doctor.status.success(), "{}", both(&doctor));
    let doctor = stdout(&doctor);
    for (surface, text) in [("status", &status), ("check", &check), ("doctor", &doctor)] {
        assert!(text.contains(python), "{surface}: {text}");
        let remedy = custom.split("; ").nth(1).unwrap_or_default();
        assert!(text.contains(remedy), "{surface}: {text}");
        assert!(!text.contains("(or: "), "{surface}: {text}");
        assert!(!text.contains("install `"), "{surface}: {text}");
    }
    assert!(status.contains(&custom), "{status}");
    assert!(check.contains(&custom), "{check}");

    // Only the custom server is missing here: squiggle cannot install it,
    // says so once with the same remedy, and fails.
    std::fs::remove_file(ws.root.join("a.py")).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&["install", "--missing"]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    let text = stderr(&out);
    let remedy = custom.split("; ").nth(1).unwrap_or_default();
    assert!(
        text.contains(&format!(
            "my-lint is missing and squiggle cannot install it: {remedy}"
        )),
        "{text}"
    );
    assert!(!text.contains("every server"), "{text}");
}

/// A usage error names every way to say what is wanted: `fix` takes
/// `--id` or `--line`, `install` server ids or `--missing`; neither asks
/// for one alone as if the other did not exist.
#[test]
fn usage_errors_name_the_alternative() {
    let (_ws, run) = missing_servers();
    let fix = run(&["fix", "a.py"]);
    assert_eq!(fix.status.code(), Some(2));
    let said = stderr(&fix);
    assert!(said.contains("--id") && said.contains("--line"), "{said}");
    let install = run(&["install"]);
    assert_eq!(install.status.code(), Some(2));
    let said = stderr(&install);
    assert!(said.contains("--missing"), "{said}");
}
