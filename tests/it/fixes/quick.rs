//! A deleted import's error carries its server's
//! fix on a line under it, and `Engine::fix` (behind `squiggle fix`,
//! `squiggle/fix` and MCP `lsp_apply_fix`) applies it for the text now,
//! clearing the error; an id offered for older text is refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use squiggle::config::ServerOverride;
use squiggle::engine::Engine;
use squiggle::engine::fixes::{FixError, Which};
use squiggle::engine::tools::{Mode, ToolResult};

use super::{PACKAGE_JSON, TS_LIB, TSCONFIG, engine_with, fixed};
use crate::support;
use crate::support::scratch::Scratch;

const TS_APP: &str =
    "import { scale } from \"./lib\";\n\nexport const big: number = scale(2, 3);\n";
const TS_IMPORT: &str = "import { scale } from \"./lib\";\n";

/// A TypeScript project whose `src/app.ts` just lost its import, through
/// an engine: the project, the engine, the file and the edit's result.
/// `None` when typescript-language-server is not installed.
async fn ts_import_deleted() -> Option<(tempfile::TempDir, Arc<Engine>, PathBuf, ToolResult)> {
    support::require_program("typescript-language-server")?;
    let dir = support::project(&[PACKAGE_JSON, TSCONFIG, TS_LIB, ("src/app.ts", TS_APP)]);
    let engine = engine_with(dir.path(), &[]);
    let app = dir.path().join("src/app.ts");
    let broken = support::edit_applied(&engine, &app, TS_IMPORT, "").await;
    Some((dir, engine, app, broken))
}

/// The one error of `result` in `file`, with its fix's title and id.
fn offered(result: &ToolResult, file: &str) -> (String, String, String) {
    let errors: Vec<_> = result
        .diagnostics
        .iter()
        .filter(|d| d.file == file && d.new)
        .collect();
    assert_eq!(errors.len(), 1, "{:#?}", result.diagnostics);
    let fix = errors[0]
        .fix
        .clone()
        .unwrap_or_else(|| panic!("no fix offered: {}", result.text()));
    (errors[0].message.clone(), fix.title, fix.id)
}

#[tokio::test]
async fn typescript_deleted_import_gets_a_fix_line_and_the_fix_clears_it() {
    let Some((_dir, engine, app, broken)) = ts_import_deleted().await else {
        return;
    };
    let (message, title, id) = offered(&broken, "src/app.ts");
    assert_eq!(message, "Cannot find name 'scale'.");
    let expected = format!(
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"src/app.ts\">\nERROR [2:28] Cannot find name 'scale'. (2304)\n  fix: {}\n</diagnostics>",
        title.replace('<', "&lt;").replace('>', "&gt;")
    );
    assert_eq!(broken.text(), expected);
    assert!(title.contains("./lib"), "{title}");

    let result = fixed(&engine, &app, Which::Id(id)).await;
    assert_eq!(
        result.text(),
        format!("Fix applied: {title} (changed src/app.ts)")
    );
    let text = std::fs::read_to_string(&app).unwrap_or_default();
    assert!(text.contains("from \"./lib\""), "{text}");
    engine.shutdown().await;
}

#[tokio::test]
async fn a_fix_offered_for_older_text_is_refused() {
    let Some((_dir, engine, app, broken)) = ts_import_deleted().await else {
        return;
    };
    let (_, _, id) = offered(&broken, "src/app.ts");
    // The text changes after the offer (a comment at the end): the id's
    // diagnostic is still there, at the same place, but the text is not
    // the one the fix was computed for.
    support::edit_applied(&engine, &app, "scale(2, 3);\n", "scale(2, 3);\n// later\n").await;
    let before = std::fs::read_to_string(&app).unwrap_or_default();
    let refusal = match engine.fix(&app, &Which::Id(id.clone()), Mode::Apply).await {
        Err(FixError::Refused(reason)) => reason,
        other => panic!("not refused: {other:?}"),
    };
    assert_eq!(
        refusal,
        format!(
            "src/app.ts has changed since fix {id} was offered; check it again for the fixes offered now"
        )
    );
    assert_eq!(std::fs::read_to_string(&app).unwrap_or_default(), before);
    // By place, the fix offered for the text now applies.
    let result = fixed(
        &engine,
        &app,
        Which::At {
            line: 2,
            column: None,
        },
    )
    .await;
    assert!(
        result.text().starts_with("Fix applied: "),
        "{}",
        result.text()
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn basedpyright_deleted_import_gets_a_fix_line_and_the_fix_clears_it() {
    if support::require_program("basedpyright-langserver").is_none() {
        return;
    }
    let dir = support::project(&[
        (
            "pyproject.toml",
            "[project]\nname = \"demo\"\nversion = \"0\"\n",
        ),
        (
            "lib.py",
            "def scale(x: int, by: int) -> int:\n    return x * by\n",
        ),
        ("app.py", "from lib import scale\n\nbig = scale(2, 3)\n"),
    ]);
    let basedpyright = ServerOverride {
        enabled: Some(true),
        ..ServerOverride::default()
    };
    let off = ServerOverride {
        enabled: Some(false),
        ..ServerOverride::default()
    };
    let engine = engine_with(
        dir.path(),
        &[
            ("basedpyright", basedpyright),
            ("pyright", off.clone()),
            ("ruff", off),
        ],
    );
    let app = dir.path().join("app.py");
    let broken = support::edit_applied(&engine, &app, "from lib import scale\n", "").await;
    let (message, title, id) = offered(&broken, "app.py");
    assert!(message.contains("\"scale\" is not defined"), "{message}");
    assert!(
        broken.text().contains(&format!("\n  fix: {title}\n")),
        "{}",
        broken.text()
    );
    let result = fixed(&engine, &app, Which::Id(id)).await;
    assert_eq!(
        result.text(),
        format!("Fix applied: {title} (changed app.py)")
    );
    engine.shutdown().await;
}

/// `squiggle edit --json` then `squiggle fix --id`, both through the
/// workspace's daemon (`squiggle/fix`): the fix clears the error, and a
/// second use of the same id is refused (the text changed), exit 1.
#[test]
fn squiggle_fix_through_the_daemon_clears_the_error() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let ws = Scratch::real_project(&[PACKAGE_JSON, TSCONFIG, TS_LIB, ("src/app.ts", TS_APP)]);
    // The edit's reply waits for its fix line (typescript-language-server
    // holds code actions while it has diagnostics pending).
    ws.write(
        ".squiggle.toml",
        "[lsp]\ndiagnosticTimeout = 20000\nfirstTouchTimeout = 60000\nfixWaitMs = 60000\n",
    );
    let run = |args: &[&str]| {
        let out = ws
            .command(args)
            .env("SQUIGGLE_DAEMON_IDLE_MS", "120000")
            .env_remove("SQUIGGLE_NO_DAEMON")
            .output()
            .unwrap_or_else(|e| panic!("squiggle {args:?}: {e}"));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out,
        )
    };
    let (code, stdout, out) = run(&[
        "edit",
        "src/app.ts",
        "--old-string",
        TS_IMPORT,
        "--new-string",
        "",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{}", support::both(&out));
    let result: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let id = result["diagnostics"][0]["fix"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no fix id: {result:#}"))
        .to_string();
    let title = result["diagnostics"][0]["fix"]["title"]
        .as_str()
        .unwrap_or_default()
        .to_string();

    let (code, stdout, out) = run(&["fix", "src/app.ts", "--id", &id]);
    assert_eq!(code, Some(0), "{}", support::both(&out));
    assert_eq!(
        stdout,
        format!("Fix applied: {title} (changed src/app.ts)\n")
    );

    let (code, _, out) = run(&["fix", "src/app.ts", "--id", &id]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code, Some(1), "{}", support::both(&out));
    assert!(
        stderr.contains(&format!(
            "src/app.ts has changed since fix {id} was offered"
        )),
        "{stderr}"
    );
    let _ = ws.daemon(&["stop"]);
}

/// TypeScript 7's own `tsc --lsp` (the project's TypeScript, chosen by
/// the registry): the deleted import's error carries its fix line too, and
/// the fix clears it.
#[tokio::test]
async fn typescript_7_deleted_import_gets_a_fix_line_and_the_fix_clears_it() {
    let Some(server) = support::require_program("typescript-language-server") else {
        return;
    };
    let Some(modules) = server.parent().and_then(Path::parent) else {
        return;
    };
    let seven = modules.join("typescript-7");
    if support::require(
        seven.is_dir().then_some(seven.clone()),
        "typescript-7 (npm, in .tools/npm)",
    )
    .is_none()
    {
        return;
    }
    let dir = support::project(&[PACKAGE_JSON, TSCONFIG, TS_LIB, ("src/app.ts", TS_APP)]);
    std::fs::create_dir(dir.path().join("node_modules")).unwrap_or_else(|e| panic!("{e}"));
    support::symlink(seven, dir.path().join("node_modules/typescript"))
        .unwrap_or_else(|e| panic!("{e}"));
    let engine = engine_with(dir.path(), &[]);
    let app = dir.path().join("src/app.ts");
    let broken = support::edit_applied(&engine, &app, TS_IMPORT, "").await;
    let servers: Vec<&str> = broken
        .diagnostics
        .iter()
        .map(|d| d.server.as_str())
        .collect();
    assert_eq!(servers, ["tsgo"], "{}", broken.text());
    let (message, title, id) = offered(&broken, "src/app.ts");
    assert_eq!(message, "Cannot find name 'scale'.");
    assert!(
        broken.text().contains(&format!("\n  fix: {title}\n")),
        "{}",
        broken.text()
    );
    let result = fixed(&engine, &app, Which::Id(id)).await;
    assert_eq!(
        result.text(),
        format!("Fix applied: {title} (changed src/app.ts)")
    );
    engine.shutdown().await;
}
