//! The per-server matrix for Go on `tests/fixtures/go`: gopls on a module
//! with a `geometry` package imported by `main`.

use crate::support;
use crate::support::matrix::*;

const MAIN: &str = "main.go";
const GEOMETRY: &str = "geometry/geometry.go";
const CALL: &str = "total := geometry.Area(width, height)";

#[tokio::test]
async fn gopls() {
    if support::require_program("gopls").is_none() || support::require_program("go").is_none() {
        return;
    }
    let dir = fixture("go");
    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;

    // Wrong argument type.
    let wrong = "total := geometry.Area(\"wide\", height)";
    let broken = edit(&engine, &main, CALL, wrong).await;
    assert_eq!(servers_of(&broken), ["gopls"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 25,
            code: None,
            words: &["cannot use \"wide\"", "float64"],
        },
    );
    let fixed = edit(&engine, &main, wrong, CALL).await;
    assert_fixed(&fixed, EDITED, "cannot use");

    // Undefined name.
    let undefined = "total := geometry.Aera(width, height)";
    let broken = edit(&engine, &main, CALL, undefined).await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 20,
            code: None,
            words: &["Aera"],
        },
    );
    let fixed = edit(&engine, &main, undefined, CALL).await;
    assert_fixed(&fixed, EDITED, "Aera");

    // Cross-file: narrowing Area breaks its caller in another package.
    let geometry = path(&dir, GEOMETRY);
    let original = std::fs::read_to_string(&geometry).unwrap_or_default();
    let narrowed = original.replace(
        "func Area(width, height float64) float64 {\n\treturn width * height",
        "func Area(width float64) float64 {\n\treturn width * width",
    );
    assert_ne!(narrowed, original);
    let caller_broken = Expect {
        file: MAIN,
        line: 7,
        column: 32,
        code: None,
        words: &["too many arguments"],
    };
    let result = write(&engine, &geometry, &narrowed).await;
    let text = result.text();
    assert!(block(&text, THIS_FILE, GEOMETRY).is_none(), "{text}");
    assert_row(&text, OTHER_FILES, &caller_broken);
    let restored = write(&engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "too many arguments");

    // The same break with an error of its own in the edited file: gopls
    // by default publishes the edited package's errors at once and the
    // importing package's only in a second pass 250 ms–1 s later, so the
    // answer read at the first publish called `main.go` clean. Its pass's
    // end (`WaitProfile::pass_progress`) answers for both.
    let both = narrowed.replace("return width * width", "return width * \"x\"");
    assert_ne!(both, narrowed);
    let result = write(&engine, &geometry, &both).await;
    let text = result.text();
    assert!(block(&text, THIS_FILE, GEOMETRY).is_some(), "{text}");
    assert_row(&text, OTHER_FILES, &caller_broken);
    let restored = write(&engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "too many arguments");
    engine.shutdown().await;
}

/// gopls does not republish a file whose diagnostics did not
/// change, so waiting for each open same-package file's fresh publish ran
/// every warm write to the deadline. The other files are current once gopls
/// is through with the edit.
#[tokio::test]
async fn a_write_beside_ten_open_files_waits_for_none_of_them() {
    if support::require_program("gopls").is_none() || support::require_program("go").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let root = dir.path();
    let write_file = |name: &str, text: &str| {
        std::fs::write(root.join(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"))
    };
    write_file("go.mod", "module example.com/pkg\n\ngo 1.19\n");
    let add = "package pkg\n\nfunc Add(a, b int) int { return a + b }\n";
    write_file("add.go", add);
    let callers: Vec<String> = (0..10).map(|i| format!("use{i}.go")).collect();
    for (i, name) in callers.iter().enumerate() {
        write_file(
            name,
            &format!("package pkg\n\nfunc Use{i}() int {{ return Add({i}, 1) }}\n"),
        );
    }
    let engine = engine(root, &[]);
    // As in the daemon, `serve` and `mcp`: the engine watches the disk, and
    // must not take its own writes for changes made outside it.
    engine.watch_disk();
    let inputs = callers
        .iter()
        .map(|name| squiggle::engine::FileInput::on_disk(root.join(name)))
        .collect();
    let opened = engine
        .check_files(inputs, squiggle::engine::HeldOthers::Skip)
        .await;
    assert!(opened.any_server(), "gopls never answered: {opened:#?}");

    // A change that alters no other file's diagnostics: nothing to wait for.
    let add_path = root.join("add.go");
    let quiet = add.replace("return a + b", "return b + a");
    let result = write(&engine, &add_path, &quiet).await;
    assert_no_timeouts(&result);
    assert_eq!(result.text(), WRITTEN, "{result:#?}");

    // A change that breaks all ten: each importer's error is in the
    // structured result, and the write is classified as new errors.
    let narrowed = quiet.replace("func Add(a, b int) int", "func Add(a int) int");
    let result = write(&engine, &add_path, &narrowed).await;
    assert_no_timeouts(&result);
    for name in &callers {
        assert!(
            result.diagnostics.iter().any(|d| d.file == *name
                && d.severity == squiggle::diagnostic::Severity::Error
                && d.line == 3),
            "no error for {name} in {:#?}",
            result.diagnostics
        );
        assert!(
            result.other_files.contains(name),
            "{:?}",
            result.other_files
        );
    }
    let json = serde_json::to_value(&result).unwrap_or_default();
    assert_eq!(json["classification"], "new_errors", "{json:#}");

    // Mended: every importer is clean again, none stale.
    let result = write(&engine, &add_path, add).await;
    assert_no_timeouts(&result);
    assert_fixed(&result, WRITTEN, "too many arguments");
    engine.shutdown().await;
}

fn assert_no_timeouts(result: &squiggle::engine::tools::ToolResult) {
    let late: Vec<_> = result
        .outcomes
        .iter()
        .flat_map(|(file, o)| o.iter().map(move |o| (file, o)))
        .filter(|(_, o)| o.outcome == squiggle::diagnostic::Outcome::TimedOut)
        .collect();
    assert!(late.is_empty(), "timed out: {late:#?}");
}
