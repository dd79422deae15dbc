//! `squiggle write` of files named `lib.ts`, `lib.py` and `lib.h`, through
//! the real binary and the real servers: the importer found by resolving the
//! import (a stem heuristic took `lib` to mean its directory's name and found
//! nobody) is opened, and its new error is in the rendered feedback and in
//! the structured result.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Lays out `files` in a fresh workspace and runs `squiggle write WRITTEN
/// [--json]` with `content` on stdin.
fn write(files: &[(&str, &str)], written: &str, content: &str, json: bool) -> Output {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let config_home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(dir.path())).ok();
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(
        dir.path().join(".squiggle.toml"),
        "[lsp]\ndiagnosticTimeout = 20000\nfirstTouchTimeout = 60000\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_squiggle"));
    command.args(["write", written, "--root"]).arg(dir.path());
    if json {
        command.arg("--json");
    }
    let mut child = command
        .current_dir(dir.path())
        .env("XDG_CONFIG_HOME", config_home.path())
        .env("SQUIGGLE_NO_DAEMON", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut input) = child.stdin.take() {
        input.write_all(content.as_bytes()).ok();
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    out
}

fn text(out: &Output) -> String {
    format!(
        "{}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The other-files block for `file` starts with `row`.
fn assert_other_file(out: &Output, file: &str, row: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let block =
        format!("LSP errors detected in other files:\n<diagnostics file=\"{file}\">\n{row}");
    assert!(stdout.contains(&block), "{}", text(out));
}

const TS_FILES: &[(&str, &str)] = &[
    ("package.json", "{\"name\": \"demo\", \"private\": true}\n"),
    (
        "tsconfig.json",
        "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2022\", \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"noEmit\": true}, \"include\": [\"src\"]}\n",
    ),
    (
        "src/lib.ts",
        "export function scale(x: number, by: number): number {\n  return x * by;\n}\n",
    ),
    (
        "src/app.ts",
        "import { scale } from \"./lib\";\n\nexport const big: number = scale(2, 3);\n",
    ),
];
const TS_NARROWED: &str = "export function scale(x: number): number {\n  return x;\n}\n";

#[test]
fn write_of_lib_ts_reports_the_broken_call_in_app_ts() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let out = write(TS_FILES, "src/lib.ts", TS_NARROWED, false);
    assert_other_file(
        &out,
        "src/app.ts",
        "ERROR [3:37] Expected 1 arguments, but got 2. (2554)",
    );
}

#[test]
fn the_json_of_that_write_carries_the_importers_error() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let out = write(TS_FILES, "src/lib.ts", TS_NARROWED, true);
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!(json["classification"], "new_errors", "{json:#}");
    assert_eq!(
        json["otherFiles"],
        serde_json::json!(["src/app.ts"]),
        "{json:#}"
    );
    let found = json["diagnostics"].as_array().is_some_and(|all| {
        all.iter()
            .any(|d| d["file"] == "src/app.ts" && d["line"] == 3 && d["severity"] == "error")
    });
    assert!(found, "{json:#}");
    let outcomes = json["outcomes"]["src/app.ts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !outcomes.is_empty(),
        "no outcome for the importer: {json:#}"
    );
}

#[test]
fn write_of_lib_py_reports_the_broken_call_in_its_importer() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let files = [
        ("pyproject.toml", "[project]\nname = \"demo\"\n"),
        ("src/demo/__init__.py", ""),
        (
            "src/demo/lib.py",
            "def scale(x: int, by: int) -> int:\n    return x * by\n",
        ),
        (
            "src/demo/app.py",
            "from demo.lib import scale\n\nbig = scale(2, 3)\n",
        ),
    ];
    let out = write(
        &files,
        "src/demo/lib.py",
        "def scale(x: int) -> int:\n    return x\n",
        false,
    );
    assert_other_file(&out, "src/demo/app.py", "ERROR [3:");
}

#[test]
fn write_of_lib_h_reports_the_broken_call_in_its_includer() {
    if support::require_program("clangd").is_none() {
        return;
    }
    let files = [
        ("compile_flags.txt", "-Iinclude\n"),
        ("include/lib.h", "int scale(int x, int by);\n"),
        (
            "src/app.c",
            "#include \"lib.h\"\n\nint big(void) { return scale(2, 3); }\n",
        ),
    ];
    let out = write(&files, "include/lib.h", "int scale(int x);\n", false);
    assert_other_file(&out, "src/app.c", "ERROR [3:");
}

#[test]
fn write_of_lib_rs_reports_the_broken_call_in_another_module() {
    if support::require_program("rust-analyzer").is_none() {
        return;
    }
    let files = [
        (
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "src/lib.rs",
            "mod app;\n\npub fn scale(x: i32, by: i32) -> i32 {\n    x * by\n}\n",
        ),
        (
            "src/app.rs",
            "use crate::scale;\n\npub fn big() -> i32 {\n    scale(2, 3)\n}\n",
        ),
    ];
    let narrowed = "mod app;\n\npub fn scale(x: i32) -> i32 {\n    x\n}\n";
    let out = write(&files, "src/lib.rs", narrowed, false);
    assert_other_file(&out, "src/app.rs", "ERROR [4:");
}
