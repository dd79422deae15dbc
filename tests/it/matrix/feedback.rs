//! The product against real servers: the text an agent sees after an edit.
//! pyright: an edit introducing a type error yields the block, the fix yields
//! none. typescript-language-server: a `write` changing an exported
//! function's signature reports the error in the importing file under
//! "other files".

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use squiggle::config::Config;
use squiggle::engine::Engine;
use squiggle::engine::tools::Mode;

use crate::support;

fn engine(root: &Path) -> Arc<Engine> {
    let config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(20),
        ..Config::default()
    };
    support::engine(root, config)
}

#[tokio::test]
async fn pyright_edit_reports_the_error_and_the_fix_is_silent() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = support::project(&[
        (
            "pyproject.toml",
            "[project]\nname = \"demo\"\nversion = \"0\"\n",
        ),
        (
            "app.py",
            "def greet(name: str) -> str:\n    return \"hello \" + name\n\n\nmessage = greet(\"world\")\n",
        ),
    ]);
    let engine = engine(dir.path());
    let file = dir.path().join("app.py");
    let broken = support::edit_applied(&engine, &file, "greet(\"world\")", "greet(42)").await;
    let text = broken.text();
    assert!(text.starts_with("Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"app.py\">\nERROR [5:17] Argument of type \"Literal[42]\""), "{text}");
    assert!(text.contains("(reportArgumentType)"), "{text}");
    let fixed = support::edit_applied(&engine, &file, "greet(42)", "greet(str(42))").await;
    assert_eq!(fixed.text(), "Edit applied successfully.");
    assert_eq!(
        std::fs::read_to_string(&file)
            .unwrap_or_default()
            .lines()
            .last(),
        Some("message = greet(str(42))")
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn typescript_write_reports_the_broken_importer_under_other_files() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = support::project(&[
        (
            "package.json",
            "{\"name\": \"demo\", \"version\": \"0.0.0\", \"private\": true}\n",
        ),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2022\", \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"noEmit\": true}, \"include\": [\"src\"]}\n",
        ),
        (
            "src/math.ts",
            "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
        ),
        (
            "src/main.ts",
            "import { add } from \"./math\";\n\nexport const total: number = add(1, 2);\n",
        ),
    ]);
    let engine = engine(dir.path());
    let math = dir.path().join("src/math.ts");
    let result = engine
        .write(
            &math,
            "export function add(a: number): number {\n  return a;\n}\n",
            Mode::Apply,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let text = result.text();
    let expected = "File written successfully.\n\nLSP errors detected in other files:\n<diagnostics file=\"src/main.ts\">\nERROR [3:37] Expected 1 arguments, but got 2. (2554)\n</diagnostics>";
    assert_eq!(text, expected, "outcomes: {:#?}", result.outcomes);
    engine.shutdown().await;
}
