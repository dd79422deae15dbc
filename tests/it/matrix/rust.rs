//! The per-server matrix for Rust on `tests/fixtures/rust`: rust-analyzer on
//! a crate with a `geometry` module used by `main`. The first edit of a fresh
//! engine must already carry cargo check's type error: rust-analyzer ignores
//! a save sent while its workspace is still loading, and the wait re-saves.

use crate::support;
use crate::support::matrix::*;

const MAIN: &str = "src/main.rs";
const GEOMETRY: &str = "src/geometry.rs";
const CALL: &str = "let total = area(width, height);";

#[tokio::test]
async fn rust_analyzer() {
    if support::require_program("rust-analyzer").is_none()
        || support::require_program("cargo").is_none()
    {
        return;
    }
    let dir = fixture("rust");
    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);

    // Type mismatch on the first edit of a fresh engine.
    let typed = "let total: i32 = area(width, height);";
    let broken = edit(&engine, &main, CALL, typed).await;
    assert_eq!(servers_of(&broken), ["rust-analyzer"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 22,
            code: Some("E0308"),
            words: &["mismatched types"],
        },
    );
    let fixed = edit(&engine, &main, typed, CALL).await;
    assert_fixed(&fixed, EDITED, "mismatched types");
    assert_clean(&engine, &main).await;

    // Undefined name.
    let undefined = "let total = aera(width, height);";
    let broken = edit(&engine, &main, CALL, undefined).await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 17,
            code: Some("E0425"),
            words: &["aera"],
        },
    );
    let fixed = edit(&engine, &main, undefined, CALL).await;
    assert_fixed(&fixed, EDITED, "aera");

    // Cross-file: narrowing `area` breaks its caller.
    let geometry = path(&dir, GEOMETRY);
    let original = std::fs::read_to_string(&geometry).unwrap_or_default();
    let narrowed = original.replace(
        "pub fn area(width: f64, height: f64) -> f64 {\n    width * height",
        "pub fn area(width: f64) -> f64 {\n    width * width",
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
            line: 6,
            column: 17,
            code: Some("E0061"),
            words: &["takes 1 argument but 2 arguments were supplied"],
        },
    );
    let restored = write(&engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "arguments were supplied");
    engine.shutdown().await;
}
