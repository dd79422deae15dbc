//! The project's compiler checks the project: a project with
//! TypeScript 7 in its `node_modules` is checked by that TypeScript's own
//! `tsc --lsp --stdio`, with no typescript-language-server started; a
//! project with its own TypeScript 6 is checked by typescript-language-
//! server on that TypeScript's `tsserver.js`, not on squiggle's; and
//! `squiggle status` names the compiler and its version.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::matrix::*;
use serde_json::Value;

const MAIN: &str = "src/main.ts";
const CALL: &str = "const total = area(width, height);";
const WRONG: &str = "const total = area(\"wide\", height);";

/// The `node_modules` of the pinned npm servers (`.tools/npm`), where
/// `scripts/install-servers.sh` put TypeScript 6 (`typescript`) and 7
/// (`typescript-7`).
fn tools_node_modules() -> Option<PathBuf> {
    let server = support::require_program("typescript-language-server")?;
    let modules = server.parent()?.parent()?.to_path_buf();
    let seven = modules.join("typescript-7");
    support::require(
        seven.is_dir().then_some(seven),
        "typescript-7 (npm, in .tools/npm)",
    )?;
    Some(modules)
}

/// The TypeScript error of `WRONG` at line 4, whichever server reports it.
fn assert_wrong_argument(result: &squiggle::engine::tools::ToolResult) {
    assert_error(
        result,
        &Expect {
            file: MAIN,
            line: 4,
            column: 22,
            code: Some("2345"),
            words: &["Argument of type 'string'", "parameter of type 'number'"],
        },
    );
}

/// The pid of the one live instance of `id` the engine runs.
fn server_pid(engine: &squiggle::engine::Engine, id: &str) -> u32 {
    let statuses = engine.pool().statuses();
    let ids: Vec<&str> = statuses.iter().map(|s| s.id.as_str()).collect();
    statuses
        .iter()
        .find(|s| s.id == id)
        .and_then(|s| s.server_pid)
        .unwrap_or_else(|| panic!("no live {id}; instances: {ids:?}"))
}

/// The command lines of `pid` and every process below it.
fn process_tree(pid: u32) -> Vec<(u32, String)> {
    let mut tree = vec![(pid, cmdline(pid))];
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at].0;
        let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
            .unwrap_or_default();
        for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
            tree.push((child, cmdline(child)));
        }
        at += 1;
    }
    tree
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
        .unwrap_or_default()
}

/// `squiggle status --json` for the workspace `root`: the row of `id`.
fn status_row(root: &Path, id: &str) -> (Value, String) {
    let run = |json: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_squiggle"));
        command.arg("status").arg("--root").arg(root);
        if json {
            command.arg("--json");
        }
        let out = command
            .env_remove("RUST_LOG")
            .env("XDG_RUNTIME_DIR", root)
            .output()
            .unwrap_or_else(|e| panic!("squiggle status: {e}"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let all: Value = serde_json::from_str(&run(true)).unwrap_or_default();
    let row = all["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no {id} in status: {all:#}"));
    (row, run(false))
}

#[tokio::test]
async fn a_typescript_7_project_is_checked_by_its_own_tsc_lsp() {
    let Some(modules) = tools_node_modules() else {
        return;
    };
    let dir = fixture("typescript/app");
    std::fs::create_dir(dir.path().join("node_modules")).unwrap_or_else(|e| panic!("{e}"));
    crate::support::symlink(
        modules.join("typescript-7"),
        dir.path().join("node_modules/typescript"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // No switch: the defaults choose by the project's TypeScript.
    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);
    let broken = edit(&engine, &main, CALL, WRONG).await;
    assert_eq!(servers_of(&broken), ["tsgo"]);
    assert_wrong_argument(&broken);
    assert!(
        broken
            .outcomes
            .values()
            .flatten()
            .all(|o| o.outcome == squiggle::diagnostic::Outcome::Pulled),
        "{:#?}",
        broken.outcomes
    );

    // The process is the project's TypeScript 7 (its platform build, which
    // its `bin/tsc` would run), serving LSP.
    let pid = server_pid(&engine, "tsgo");
    let exe = std::fs::canonicalize(format!("/proc/{pid}/exe")).unwrap_or_else(|e| panic!("{e}"));
    let native = modules.join("@typescript/typescript-linux-x64/lib/tsc");
    assert_eq!(
        exe,
        native.canonicalize().unwrap_or(native),
        "{}",
        cmdline(pid)
    );
    assert!(cmdline(pid).contains("--lsp"), "{}", cmdline(pid));
    let running: Vec<_> = engine.pool().statuses().into_iter().map(|s| s.id).collect();
    assert_eq!(running, ["tsgo"], "no typescript-language-server may run");

    let fixed = edit(&engine, &main, WRONG, CALL).await;
    assert_fixed(&fixed, EDITED, "Argument of type");

    let (tsgo, text) = status_row(dir.path(), "tsgo");
    assert_eq!(tsgo["compiler"]["package"], "typescript");
    assert_eq!(tsgo["compiler"]["version"], "7.0.2");
    assert_eq!(tsgo["compiler"]["used"], true);
    assert!(
        text.contains("compiler: typescript 7.0.2 (project: "),
        "{text}"
    );
    let (tsls, _) = status_row(dir.path(), "typescript-language-server");
    assert_eq!(tsls["compiler"]["used"], false, "{tsls:#}");
    engine.shutdown().await;
}

/// Copies the directory `from` to `to`, links as links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap_or_else(|e| panic!("{e}"));
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_symlink() {
            let link = std::fs::read_link(entry.path()).unwrap_or_else(|e| panic!("{e}"));
            crate::support::symlink(link, &target).unwrap_or_else(|e| panic!("{e}"));
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[tokio::test]
async fn a_typescript_6_project_is_checked_by_its_own_typescript() {
    let Some(modules) = tools_node_modules() else {
        return;
    };
    // A monorepo whose TypeScript is installed once at its top, the app a
    // package below it (typescript-language-server's root is the app's).
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let app = fixture("typescript/app");
    copy_tree(app.path(), &dir.path().join("packages/app"));
    std::fs::write(
        dir.path().join("package.json"),
        "{ \"name\": \"mono\", \"private\": true }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let own = dir.path().join("node_modules/typescript");
    copy_tree(&modules.join("typescript"), &own);

    let engine = engine(dir.path(), &[]);
    let main = dir.path().join("packages/app").join(MAIN);
    let broken = edit(&engine, &main, CALL, WRONG).await;
    assert_eq!(servers_of(&broken), ["typescript-language-server"]);
    assert_error(
        &broken,
        &Expect {
            file: "packages/app/src/main.ts",
            line: 4,
            column: 22,
            code: Some("2345"),
            words: &["Argument of type 'string'"],
        },
    );
    // The tsserver under it runs the project's copy, not squiggle's.
    let pid = server_pid(&engine, "typescript-language-server");
    let tree = process_tree(pid);
    let tsservers: Vec<&String> = tree
        .iter()
        .map(|(_, line)| line)
        .filter(|line| line.contains("tsserver"))
        .collect();
    assert!(!tsservers.is_empty(), "no tsserver under {tree:#?}");
    let expected = own.join("lib/tsserver.js").display().to_string();
    assert!(
        tsservers.iter().all(|line| line.contains(&expected)),
        "expected {expected} in {tsservers:#?}"
    );

    let (tsls, text) = status_row(dir.path(), "typescript-language-server");
    assert_eq!(tsls["compiler"]["version"], "6.0.3");
    assert_eq!(tsls["compiler"]["origin"], "project");
    assert_eq!(tsls["compiler"]["used"], true);
    assert!(
        text.contains("compiler: typescript 6.0.3 (project: "),
        "{text}"
    );
    engine.shutdown().await;
}
