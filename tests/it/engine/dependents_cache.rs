//! The importer scan of a long-lived engine (the daemon's) answers from a
//! cache kept in step with the disk watch. An importer created on disk
//! after the cache was built is opened on the next write of the module it
//! imports, and its new error reported; a deleted one is no longer waited
//! on. Real pyright, which reports only the files it has open: the new
//! importer's error can come only from squiggle having found it.

use std::path::Path;

use squiggle::diagnostic::Severity;
use squiggle::engine::{CheckReport, Engine, FileInput};

use crate::support;
use crate::support::matrix::engine;

const LIB: &str = "def scale(x: int, by: int) -> int:\n    return x * by\n";

/// Writes `text` to `lib` on disk and checks it with its importers.
async fn write_and_check(engine: &std::sync::Arc<Engine>, lib: &Path, text: &str) -> CheckReport {
    std::fs::write(lib, text).unwrap_or_else(|e| panic!("{e}"));
    engine
        .check_with_dependents(vec![FileInput::on_disk(lib)])
        .await
}

fn has_error(report: &CheckReport, file: &str) -> bool {
    report
        .others
        .get(file)
        .is_some_and(|all| all.iter().any(|d| d.severity == Severity::Error))
}

#[tokio::test]
async fn importers_created_and_deleted_after_the_cache_was_built() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path();
    let files = [
        ("pyproject.toml", "[project]\nname = \"demo\"\n"),
        ("src/demo/__init__.py", ""),
        ("src/demo/lib.py", LIB),
        (
            "src/demo/app.py",
            "from demo.lib import scale\n\nbig = scale(2, 3)\n",
        ),
    ];
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    let engine = engine(root, &[]);
    engine.watch_disk();
    let lib = root.join("src/demo/lib.py");

    // The cache is built on this write: app.py is the only importer.
    let narrowed = "def scale(x: int) -> int:\n    return x\n";
    let first = write_and_check(&engine, &lib, narrowed).await;
    assert!(has_error(&first, "src/demo/app.py"), "{first:#?}");
    assert_eq!(
        first.other_outcomes.keys().collect::<Vec<_>>(),
        ["src/demo/app.py"]
    );

    // A new importer, in a new directory, created on disk.
    let late = root.join("src/demo/tools/late.py");
    std::fs::create_dir_all(late.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&late, "from demo.lib import scale\n\nlate = scale(4, 5)\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let narrowed_again = "def scale(x: int) -> int:\n    return x + 1\n";
    let second = write_and_check(&engine, &lib, narrowed_again).await;
    assert!(has_error(&second, "src/demo/tools/late.py"), "{second:#?}");
    assert_eq!(
        second.other_outcomes.keys().collect::<Vec<_>>(),
        ["src/demo/app.py", "src/demo/tools/late.py"]
    );

    // A deleted importer is no longer opened or waited on.
    std::fs::remove_file(root.join("src/demo/app.py")).unwrap_or_else(|e| panic!("{e}"));
    let third = write_and_check(&engine, &lib, narrowed).await;
    assert_eq!(
        third.other_outcomes.keys().collect::<Vec<_>>(),
        ["src/demo/tools/late.py"],
        "{third:#?}"
    );
    engine.shutdown().await;
}
