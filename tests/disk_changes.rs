//! Issue 14, item 4: a file changed on disk by something other than squiggle
//! (the agent's own edit tool, `sed -i`, a formatter) is synced before the
//! next query. A server answering for `main` must know that `lib`, which
//! squiggle never opened, gained a parameter — and that it lost it again:
//! before, squiggle answered one state behind, every time, on every surface.
//! Real typescript-language-server and pyright.

mod matrix_support;
#[path = "support/mod.rs"]
mod support;

use std::path::Path;

use matrix_support::*;
use squiggle::diagnostic::Severity;
use squiggle::engine::{Engine, FileInput, HeldOthers};

/// Errors the engine reports for `file` when checked now.
async fn errors(engine: &std::sync::Arc<Engine>, file: &Path) -> Vec<(u32, String)> {
    let report = engine
        .check_files(vec![FileInput::on_disk(file)], HeldOthers::Skip)
        .await;
    report
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.line, d.message.clone()))
        .collect()
}

/// `lib` gains a parameter on disk, then loses it: `main`'s call is an error,
/// then clean again, as the checker would say.
async fn follows_the_disk(root: &Path, lib: &str, main: &str, old: &str, new: &str, line: u32) {
    let engine = engine(root, &[]);
    engine.watch_disk();
    let (lib, main) = (root.join(lib), root.join(main));
    assert_eq!(errors(&engine, &main).await, [], "clean to begin with");
    let original = std::fs::read_to_string(&lib).unwrap_or_default();
    assert!(original.contains(old));
    std::fs::write(&lib, original.replace(old, new)).unwrap_or_else(|e| panic!("{e}"));
    let broken = errors(&engine, &main).await;
    assert!(
        broken.iter().any(|(l, _)| *l == line),
        "no error at line {line} after the change on disk: {broken:?}"
    );
    std::fs::write(&lib, &original).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(errors(&engine, &main).await, [], "stale after the revert");
    engine.shutdown().await;
}

#[tokio::test]
async fn typescript_follows_a_change_on_disk() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("tsconfig.json"),
        r#"{"compilerOptions":{"strict":true,"target":"es2022","module":"commonjs"}}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("src/lib.ts"),
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("src/main.ts"),
        "import { add } from \"./lib\";\n\nexport const total = add(1, 2);\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    follows_the_disk(
        root,
        "src/lib.ts",
        "src/main.ts",
        "b: number)",
        "b: number, c: number)",
        3,
    )
    .await;
}

#[tokio::test]
async fn python_follows_a_change_on_disk() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path();
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"p\"\n")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("lib.py"),
        "def add(a: int, b: int) -> int:\n    return a + b\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("main.py"),
        "from lib import add\n\ntotal = add(1, 2)\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    follows_the_disk(root, "lib.py", "main.py", "b: int)", "b: int, c: int)", 3).await;
}
