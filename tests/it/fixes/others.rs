//! In files other than the edited one, only the errors
//! the edit caused are shown, and one line counts those that were there
//! before; the structured result keeps them all, flagged `new` or not.

use squiggle::engine::{FileInput, HeldOthers};

use super::{PACKAGE_JSON, TS_LIB, TSCONFIG, engine};
use crate::support;

const OLD: &str = "Type 'string' is not assignable to type 'number'.";

#[tokio::test]
async fn an_other_files_old_error_is_counted_and_its_new_one_shown() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = support::project(&[
        PACKAGE_JSON,
        TSCONFIG,
        TS_LIB,
        (
            "src/use.ts",
            "import { scale } from \"./lib\";\n\nexport const big: number = scale(2, 3);\nexport const bad: number = \"x\";\n",
        ),
    ]);
    let engine = engine(dir.path());
    let lib = dir.path().join("src/lib.ts");
    // What the servers say of use.ts before any edit: its old error.
    let known = engine
        .check_files(
            vec![FileInput::on_disk(dir.path().join("src/use.ts"))],
            HeldOthers::Skip,
        )
        .await;
    assert!(
        known.files[0].diagnostics.iter().any(|d| d.message == OLD),
        "{known:#?}"
    );

    // An unrelated edit: nothing of use.ts is repeated.
    let unrelated = support::edit_applied(&engine, &lib, "return x * by;", "return by * x;").await;
    assert_eq!(unrelated.text(), "Edit applied successfully.");
    let old: Vec<_> = unrelated
        .diagnostics
        .iter()
        .filter(|d| d.file == "src/use.ts")
        .map(|d| (d.message.as_str(), d.new))
        .collect();
    assert_eq!(
        old,
        [(OLD, false)],
        "the structured result keeps it, not new"
    );

    // An edit that breaks use.ts: its new error shown, the old one counted.
    let breaking = support::edit_applied(
        &engine,
        &lib,
        "scale(x: number, by: number): number {\n  return by * x;",
        "scale(x: number): number {\n  return x;",
    )
    .await;
    let expected = "Edit applied successfully.\n\nLSP errors detected in other files:\n<diagnostics file=\"src/use.ts\">\nERROR [3:37] Expected 1 arguments, but got 2. (2554)\n</diagnostics>\n1 error in 1 other file was there before this edit";
    assert_eq!(breaking.text(), expected, "{:#?}", breaking.outcomes);
    let flagged: Vec<_> = breaking
        .diagnostics
        .iter()
        .filter(|d| d.file == "src/use.ts")
        .map(|d| d.new)
        .collect();
    assert_eq!(flagged, [true, false]);
    engine.shutdown().await;
}
