//! Auto-fix (`autoFix`). After an edit, the preferred
//! or only quick fix of an error the edit introduced is applied when a rule
//! allows it, and kept only when the file's errors drop and no error
//! appears; otherwise the file goes back to the exact bytes the edit left.
//! Either way the reply says so.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::{Config, FixRule};
use squiggle::engine::{Engine, FileInput, HeldOthers};
use squiggle::render::AutoFixOutcome;

use super::{PACKAGE_JSON, TS_LIB, TSCONFIG, engine_with};
use crate::support;
use crate::support::fake_server::{FakeServer, squiggle_toml};
use crate::support::scratch::Scratch;

const TS_APP: &str =
    "import { scale } from \"./lib\";\n\nexport const big: number = scale(2, 3);\n";
const TS_IMPORT: &str = "import { scale } from \"./lib\";\n";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[tokio::test]
async fn auto_fix_applies_typescripts_add_import_and_keeps_it() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = support::project(&[PACKAGE_JSON, TSCONFIG, TS_LIB, ("src/app.ts", TS_APP)]);
    let engine = {
        let engine = engine_with(dir.path(), &[]);
        let mut config = engine.config().clone();
        config.auto_fix.rules = vec![FixRule::Title("Add import from *".into())];
        support::engine(dir.path(), config)
    };
    let app = dir.path().join("src/app.ts");
    let result = support::edit_applied(&engine, &app, TS_IMPORT, "").await;
    assert_eq!(result.auto_fixes.len(), 1, "{}", result.text());
    let fix = &result.auto_fixes[0];
    assert_eq!(fix.outcome, AutoFixOutcome::Kept, "{}", result.text());
    assert_eq!(
        (fix.line, fix.message.as_str()),
        (2, "Cannot find name 'scale'.")
    );
    assert!(
        fix.diff.contains("+import { scale } from \"./lib\";"),
        "{}",
        fix.diff
    );
    // The reply is the file as it is now: the fix told, no error left.
    let head = format!(
        "Edit applied successfully.\n\nAuto-fix applied in src/app.ts: {} (for [2:28] Cannot find name 'scale'.)\n",
        fix.title.replace('<', "&lt;").replace('>', "&gt;")
    );
    assert!(result.text().starts_with(&head), "{}", result.text());
    assert!(!result.text().contains("ERROR"), "{}", result.text());
    assert!(result.diagnostics.is_empty(), "{:#?}", result.diagnostics);
    assert!(read(&app).contains("from \"./lib\""), "{}", read(&app));
    engine.shutdown().await;
}

/// A fake server that reports `@error(...)` markers and offers, for any
/// diagnostic, one preferred quick fix replacing `range` of `file` with
/// `new_text`.
pub(super) fn fake_with_fix(file: &Path, range: [u32; 4], new_text: &str, title: &str) -> Value {
    let [l1, c1, l2, c2] = range;
    let canonical = file.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let edit = json!({"changes": {squiggle::uri::from_path(&canonical): [{
        "range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
        "newText": new_text,
    }]}});
    json!({
        "capabilities": {"codeActionProvider": {"codeActionKinds": ["quickfix"]}},
        "responses": {"textDocument/codeAction": [
            {"title": title, "kind": "quickfix", "isPreferred": true, "edit": edit}
        ]},
    })
}

fn fake_engine(root: &Path, script: Value, rules: Vec<FixRule>) -> Arc<Engine> {
    let mut config = Config::default();
    config
        .servers
        .insert("fake-a".into(), FakeServer::new(script).to_override());
    config.auto_fix.rules = rules;
    // A fix line is waited for: the reply's text is compared whole.
    config.fix_wait = std::time::Duration::from_secs(60);
    support::engine(root, config)
}

const BROKEN: &str = "let x = @error(missing thing);\n";

#[tokio::test]
async fn auto_fix_reverting_a_fix_that_adds_an_error() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    // The fix replaces the error's marker with another error: the file's
    // errors do not drop, and one appears that was not there.
    let script = fake_with_fix(
        &file,
        [0, 8, 0, 29],
        "@error(made by the fix)",
        "Fill in the thing",
    );
    let engine = fake_engine(dir.path(), script, vec![FixRule::Kind("quickfix".into())]);
    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert_eq!(result.auto_fixes.len(), 1, "{}", result.text());
    let fix = &result.auto_fixes[0];
    assert_eq!(fix.outcome, AutoFixOutcome::Reverted, "{}", result.text());
    assert_eq!(fix.reason, "it added an error: a.fk [1:9] made by the fix");
    // The exact bytes the edit left, and the reply about them.
    assert_eq!(std::fs::read(&file).unwrap_or_default(), BROKEN.as_bytes());
    assert_eq!(
        result.text(),
        "Edit applied successfully.\n\n\
         Auto-fix tried and reverted in a.fk: Fill in the thing (for [1:9] missing thing): it added an error: a.fk [1:9] made by the fix\n\n\
         LSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:9] missing thing\n  fix: Fill in the thing\n</diagnostics>"
    );
    // The servers hold the reverted text too: a check of the disk agrees.
    let again = engine
        .check_files(vec![FileInput::on_disk(&file)], HeldOthers::Skip)
        .await;
    let messages: Vec<&str> = again.files[0]
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages, ["missing thing"]);
    engine.shutdown().await;
}

#[tokio::test]
async fn auto_fix_keeps_a_fix_that_clears_the_error_and_only_what_a_rule_allows() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    let script = fake_with_fix(&file, [0, 8, 0, 29], "2", "Fill in the thing");
    // A rule that does not match the title: nothing is applied.
    let engine = fake_engine(
        dir.path(),
        script.clone(),
        vec![FixRule::Title("Add *".into())],
    );
    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert!(result.auto_fixes.is_empty(), "{}", result.text());
    assert_eq!(read(&file), BROKEN);
    engine.shutdown().await;

    std::fs::write(&file, "let x = 1;\n").unwrap_or_else(|e| panic!("{e}"));
    let rules = vec![FixRule::Title("Fill in *".into())];
    let engine = fake_engine(dir.path(), script, rules);
    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert_eq!(result.auto_fixes.len(), 1, "{}", result.text());
    assert_eq!(result.auto_fixes[0].outcome, AutoFixOutcome::Kept);
    assert_eq!(read(&file), "let x = 2;\n");
    assert_eq!(
        result.text(),
        "Edit applied successfully.\n\n\
         Auto-fix applied in a.fk: Fill in the thing (for [1:9] missing thing)\n  @@ -1 +1 @@\n  -let x = @error(missing thing);\n  +let x = 2;"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn auto_fix_never_edits_a_file_the_edit_did_not_touch() {
    let dir = support::project(&[("a.fk", "let x = 1;\n"), ("b.fk", "let y = 1;\n")]);
    let (file, other) = (dir.path().join("a.fk"), dir.path().join("b.fk"));
    let script = fake_with_fix(&other, [0, 8, 0, 9], "2", "Fill in the thing");
    let engine = fake_engine(dir.path(), script, vec![FixRule::Kind("quickfix".into())]);
    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert_eq!(result.auto_fixes.len(), 1, "{}", result.text());
    let fix = &result.auto_fixes[0];
    assert_eq!(fix.outcome, AutoFixOutcome::Skipped);
    assert_eq!(fix.reason, "it edits b.fk, which the edit did not touch");
    assert_eq!(read(&other), "let y = 1;\n");
    assert_eq!(read(&file), BROKEN);
    engine.shutdown().await;
}

/// A value auto-fix cannot honour stops the binary, naming the file and
/// the key (exit 2), before anything is edited.
#[test]
fn a_bad_auto_fix_value_exits_2_naming_the_key() {
    let cases = [
        (
            "[lsp]\nautoFix = [\"source.fixAll\"]\n",
            "lsp.autoFix[0]: auto-fix applies quick fixes only",
        ),
        (
            "[lsp]\nautoFixMax = 100\n",
            "lsp.autoFixMax: expected an integer from 1 to 20, found 100",
        ),
    ];
    for (toml, expected) in cases {
        let ws = Scratch::bare();
        ws.write_all(&[(".squiggle.toml", toml), ("a.txt", "one\n")]);
        let out = ws
            .command(&[
                "edit",
                "a.txt",
                "--old-string",
                "one",
                "--new-string",
                "two",
            ])
            .output()
            .unwrap_or_else(|e| panic!("squiggle edit: {e}"));
        assert_eq!(out.status.code(), Some(2), "{}", support::both(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(".squiggle.toml"), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(read(&ws.root.join("a.txt")), "one\n");
    }
}

/// An error that was there before the edit is never auto-fixed, even on
/// the first edit of a file squiggle has not checked before (report =
/// "all": its text before is checked for the baseline).
#[tokio::test]
async fn auto_fix_leaves_an_error_from_before_the_edit_alone() {
    let dir = support::project(&[("a.fk", "@error(old one)\nlet x = 1;\n")]);
    let file = dir.path().join("a.fk");
    // The server offers its fix for any diagnostic: for the old one too.
    let script = fake_with_fix(&file, [1, 8, 1, 29], "2", "Fill in the thing");
    let engine = fake_engine(dir.path(), script, vec![FixRule::Kind("quickfix".into())]);
    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    let tried: Vec<&str> = result
        .auto_fixes
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(tried, ["missing thing"], "{}", result.text());
    assert_eq!(result.auto_fixes[0].outcome, AutoFixOutcome::Kept);
    assert_eq!(read(&file), "@error(old one)\nlet x = 2;\n");
    assert!(
        result.text().contains("ERROR [1:1] old one"),
        "{}",
        result.text()
    );
    engine.shutdown().await;
}

/// `squiggle edit --json` through the workspace's daemon (`squiggle/edit`):
/// the result carries `autoFixes` in the same shape as the engine's, and
/// the text the fix left is on disk.
#[test]
fn the_cli_and_the_daemon_carry_auto_fixes() {
    let ws = Scratch::bare();
    let file = ws.write("a.fk", "let x = 1;\n");
    let script = fake_with_fix(&file, [0, 8, 0, 29], "2", "Fill in the thing");
    let toml = squiggle_toml("autoFix = [\"Fill in *\"]", &FakeServer::new(script));
    ws.write(".squiggle.toml", &toml);
    let out = ws
        .command(&[
            "edit",
            "--trust-workspace",
            "a.fk",
            "--old-string",
            "1;",
            "--new-string",
            "@error(missing thing);",
            "--json",
        ])
        .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
        .env_remove("SQUIGGLE_NO_DAEMON")
        .output()
        .unwrap_or_else(|e| panic!("squiggle edit: {e}"));
    // The trusted daemon is a daemon of its own.
    ws.daemon(&["stop", "--trust-workspace"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result: squiggle::engine::tools::ToolResult =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(result.auto_fixes.len(), 1, "{stdout}");
    assert_eq!(result.auto_fixes[0].outcome, AutoFixOutcome::Kept);
    assert_eq!(result.auto_fixes[0].title, "Fill in the thing");
    assert!(
        result
            .feedback
            .starts_with("Auto-fix applied in a.fk: Fill in the thing"),
        "{stdout}"
    );
    assert_eq!(read(&file), "let x = 2;\n");
}

/// A revert puts back only what auto-fix wrote: another writer that
/// changed the file while the fix was being checked keeps its text (the
/// revert wrote the edit's bytes over it), and the reply says so.
#[tokio::test]
async fn auto_fix_never_reverts_over_another_writer() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    let mut script = fake_with_fix(
        &file,
        [0, 8, 0, 29],
        "@error(made by the fix)",
        "Fill in the thing",
    );
    // Room for the other writer while the fix's check waits.
    script["publishDelayMs"] = json!(500);
    let engine = fake_engine(dir.path(), script, vec![FixRule::Kind("quickfix".into())]);
    let theirs = "let x = 2; // someone else's\n";
    let writer = {
        let file = file.clone();
        std::thread::spawn(move || {
            support::poll_until(Duration::from_secs(60), || {
                read(&file).contains("made by the fix")
            });
            std::fs::write(&file, theirs).unwrap_or_else(|e| panic!("{e}"));
        })
    };
    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    writer
        .join()
        .unwrap_or_else(|_| panic!("the other writer panicked"));
    assert_eq!(read(&file), theirs, "{}", result.text());
    assert_eq!(result.auto_fixes.len(), 1, "{}", result.text());
    let fix = &result.auto_fixes[0];
    assert_ne!(fix.outcome, AutoFixOutcome::Reverted, "{}", result.text());
    engine.shutdown().await;
}
