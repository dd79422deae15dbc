//! `squiggle write` of a file named `lib.ts`, through the real binary and
//! the real typescript-language-server: the importer found by resolving
//! `./lib` (a stem heuristic took `lib` to mean its directory's name and
//! found nobody) is opened, and its new error is in the rendered feedback.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn write_of_lib_ts_reports_the_broken_call_in_app_ts() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let config_home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let files = [
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
        (".squiggle.toml", "[lsp]\ndiagnosticTimeout = 20000\n"),
    ];
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(dir.path())).ok();
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .args(["write", "src/lib.ts", "--root"])
        .arg(dir.path())
        .arg("--trust-workspace")
        .current_dir(dir.path())
        .env("XDG_CONFIG_HOME", config_home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut input) = child.stdin.take() {
        input
            .write_all(b"export function scale(x: number): number {\n  return x;\n}\n")
            .ok();
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("LSP errors detected in other files:\n<diagnostics file=\"src/app.ts\">\nERROR [3:37] Expected 1 arguments, but got 2. (2554)"),
        "{text}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
