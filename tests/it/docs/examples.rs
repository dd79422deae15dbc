//! README.md's and `docs/`'s ```` ```console NAME ```` blocks, run.
//!
//! Each `$ command` runs through `sh -c` in the example's workspace, its
//! stdout and stderr together (`2>&1`, in the order written), `squiggle`
//! being the binary under test, in process (no daemon outlives the test).
//! The workspace's path prints as `/home/me/proj` and the home's as
//! `/home/me`, as the docs write them; a no-break space (pyright indents
//! with them) compares as a space. Everything else must match exactly.

use std::path::Path;
use std::process::Command;

use super::{Block, blocks, markdown_files};
use crate::support::scratch::Scratch;

/// How each example's workspace is made: files, and the PATH its commands
/// see (`None`: the test's own, where the servers are). `None` from the
/// setup skips the example (a server it needs is missing, under the rule
/// of `support::require`).
type Setup = fn(&Scratch) -> Option<Option<&'static str>>;

const EXAMPLES: &[(&str, Setup)] = &[
    ("readme-edit", |ws| {
        crate::support::require_program("pyright-langserver")?;
        ws.write(
            "app.py",
            "def greet(name: str) -> str:\n    return \"hello \" + name\n\n\nmessage = greet(\"world\")\n",
        );
        Some(None)
    }),
    ("init-claude", |_| Some(Some("/usr/bin:/bin"))),
    ("init-gemini", |_| Some(Some("/usr/bin:/bin"))),
    ("check-unavailable", |ws| {
        ws.write("app.py", "x: int = 1\n");
        Some(Some("/usr/bin:/bin"))
    }),
];

/// The docs' names for the scratch paths.
const ROOT: &str = "/home/me/proj";
const HOME: &str = "/home/me";

#[test]
fn every_console_example_in_the_docs_prints_what_it_shows() {
    let console: Vec<Block> = markdown_files()
        .iter()
        .flat_map(|f| blocks(f))
        .filter(|b| b.info.split_whitespace().next() == Some("console"))
        .collect();
    let mut failures = Vec::new();
    for block in &console {
        let name = block.info.split_whitespace().nth(1).unwrap_or_default();
        let Some((_, setup)) = EXAMPLES.iter().find(|(n, _)| *n == name) else {
            failures.push(format!(
                "{}:{}: a console block named {name:?} has no setup in tests/it/docs/examples.rs",
                block.file.display(),
                block.line
            ));
            continue;
        };
        failures.extend(run(block, *setup));
    }
    for (name, _) in EXAMPLES {
        let used = console
            .iter()
            .any(|b| b.info.split_whitespace().nth(1) == Some(name));
        if !used {
            failures.push(format!("no console block is named {name:?} any more"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Runs one block's commands; a failure for each output that differs.
fn run(block: &Block, setup: Setup) -> Vec<String> {
    let ws = Scratch::with_git_root();
    let Some(path) = setup(&ws) else {
        return Vec::new();
    };
    let bin = ws.outer.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    crate::support::symlink(env!("CARGO_BIN_EXE_squiggle"), bin.join("squiggle"))
        .unwrap_or_else(|e| panic!("{e}"));
    let inherited = std::env::var("PATH").unwrap_or_default();
    let path = format!("{}:{}", bin.display(), path.unwrap_or(&inherited));
    let mut failures = Vec::new();
    for (command, expected) in commands(&block.lines) {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{command} 2>&1"))
            .current_dir(&ws.root)
            .env("PATH", &path)
            .env("HOME", &ws.home)
            .env("XDG_CONFIG_HOME", &ws.config_home)
            .env("XDG_RUNTIME_DIR", &ws.runtime_dir)
            .env("SQUIGGLE_NO_DAEMON", "1")
            .env_remove("RUST_LOG")
            .env_remove("CODEX_HOME")
            .output()
            .unwrap_or_else(|e| panic!("sh -c {command}: {e}"));
        let actual = normalize(&String::from_utf8_lossy(&out.stdout), &ws);
        if actual.trim_end() != expected.trim_end() {
            failures.push(format!(
                "{}:{}: `{command}` prints\n{actual}--- where the doc shows ---\n{expected}",
                block.file.display(),
                block.line
            ));
        }
    }
    failures
}

/// The `$ command` lines of a console block, each with the output lines
/// that follow it.
fn commands(lines: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in lines {
        match (line.strip_prefix("$ "), out.last_mut()) {
            (Some(command), _) => out.push((command.to_string(), String::new())),
            (None, Some((_, expected))) => {
                expected.push_str(line);
                expected.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

fn normalize(text: &str, ws: &Scratch) -> String {
    let shown = |p: &Path| p.display().to_string();
    text.replace(&shown(&ws.root), ROOT)
        .replace(&shown(&ws.home), HOME)
        .replace('\u{a0}', " ")
}
