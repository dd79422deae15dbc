//! The per-server matrix for Go on `tests/fixtures/go`: gopls on a module
//! with a `geometry` package imported by `main`.

mod matrix_support;
#[path = "support/mod.rs"]
mod support;

use matrix_support::*;

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
    let result = write(&engine, &geometry, &narrowed).await;
    let text = result.text();
    assert!(block(&text, THIS_FILE, GEOMETRY).is_none(), "{text}");
    assert_row(
        &text,
        OTHER_FILES,
        &Expect {
            file: MAIN,
            line: 7,
            column: 32,
            code: None,
            words: &["too many arguments"],
        },
    );
    let restored = write(&engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "too many arguments");
    engine.shutdown().await;
}
