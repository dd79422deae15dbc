//! `squiggle write` of files named `lib.ts`, `lib.py` and `lib.h`, through
//! the real binary and the real servers: the importer found by resolving the
//! import (a stem heuristic took `lib` to mean its directory's name and found
//! nobody) is opened, and its new error is in the rendered feedback and in
//! the structured result.

use std::process::Output;

use crate::support;
use crate::support::both;
use crate::support::scratch::Scratch;

/// A project in which `importer` calls what `written` declares: writing
/// `narrowed` over it breaks that call.
struct Case {
    /// The server that must be on PATH.
    program: &'static str,
    files: &'static [(&'static str, &'static str)],
    written: &'static str,
    narrowed: &'static str,
    importer: &'static str,
    /// How the importer's row in the other-files block starts.
    row: &'static str,
}

const TS: Case = Case {
    program: "typescript-language-server",
    files: &[
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
    ],
    written: "src/lib.ts",
    narrowed: "export function scale(x: number): number {\n  return x;\n}\n",
    importer: "src/app.ts",
    row: "ERROR [3:37] Expected 1 arguments, but got 2. (2554)",
};

const PYTHON: Case = Case {
    program: "pyright-langserver",
    files: &[
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
    ],
    written: "src/demo/lib.py",
    narrowed: "def scale(x: int) -> int:\n    return x\n",
    importer: "src/demo/app.py",
    row: "ERROR [3:",
};

const C: Case = Case {
    program: "clangd",
    files: &[
        ("compile_flags.txt", "-Iinclude\n"),
        ("include/lib.h", "int scale(int x, int by);\n"),
        (
            "src/app.c",
            "#include \"lib.h\"\n\nint big(void) { return scale(2, 3); }\n",
        ),
    ],
    written: "include/lib.h",
    narrowed: "int scale(int x);\n",
    importer: "src/app.c",
    row: "ERROR [3:",
};

const RUST: Case = Case {
    program: "rust-analyzer",
    files: &[
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
    ],
    written: "src/lib.rs",
    narrowed: "mod app;\n\npub fn scale(x: i32) -> i32 {\n    x\n}\n",
    importer: "src/app.rs",
    row: "ERROR [4:",
};

/// `squiggle write` of the case's narrowed file in a fresh workspace, with
/// `args`; `None` (skip) when its server is missing.
fn write(case: &Case, args: &[&str]) -> Option<Output> {
    support::require_program(case.program)?;
    let ws = Scratch::real_project(case.files);
    Some(ws.squiggle_write(case.written, args, case.narrowed))
}

/// The rendered feedback has an other-files block for the case's importer,
/// starting with its row.
fn reports_the_importer(case: &Case) {
    let Some(out) = write(case, &[]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let block = format!(
        "LSP errors detected in other files:\n<diagnostics file=\"{}\">\n{}",
        case.importer, case.row
    );
    assert!(stdout.contains(&block), "{}", both(&out));
}

#[test]
fn write_of_lib_ts_reports_the_broken_call_in_app_ts() {
    reports_the_importer(&TS);
}

#[test]
fn the_json_of_that_write_carries_the_importers_error() {
    let Some(out) = write(&TS, &["--json"]) else {
        return;
    };
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", both(&out)));
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
    reports_the_importer(&PYTHON);
}

#[test]
fn write_of_lib_h_reports_the_broken_call_in_its_includer() {
    reports_the_importer(&C);
}

#[test]
fn write_of_lib_rs_reports_the_broken_call_in_another_module() {
    reports_the_importer(&RUST);
}
