//! The per-server matrix for C on `tests/fixtures/c`: clangd on a project
//! with `compile_flags.txt`, a header and two files that include it.

use crate::support;
use crate::support::matrix::*;

const MAIN: &str = "main.c";
const HEADER: &str = "geometry.h";
const CALL: &str = "double total = area(2.0, 3.0);";

#[tokio::test]
async fn clangd() {
    if support::require_program("clangd").is_none() {
        return;
    }
    let dir = fixture("c");
    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;

    // Wrong argument count.
    let short = "double total = area(2.0);";
    let broken = edit(&engine, &main, CALL, short).await;
    assert_eq!(servers_of(&broken), ["clangd"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 26,
            code: Some("typecheck_call_too_few_args"),
            words: &["Too few arguments to function call, expected 2, have 1"],
        },
    );
    let fixed = edit(&engine, &main, short, CALL).await;
    assert_fixed(&fixed, EDITED, "too few arguments");

    // Undefined name.
    let edge = "double edge = perimeter(2.0, 3.0);";
    let undeclared = "double edge = perimeter(2.0, height);";
    let broken = edit(&engine, &main, edge, undeclared).await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 32,
            code: Some("undeclared_var_use"),
            words: &["Use of undeclared identifier 'height'"],
        },
    );
    let fixed = edit(&engine, &main, undeclared, edge).await;
    assert_fixed(&fixed, EDITED, "undeclared");

    // Cross-file: narrowing the header's prototype breaks the caller.
    let header = path(&dir, HEADER);
    let original = std::fs::read_to_string(&header).unwrap_or_default();
    let narrowed = original.replace(
        "double area(double width, double height);",
        "double area(double width);",
    );
    let result = write(&engine, &header, &narrowed).await;
    let text = result.text();
    assert_row(
        &text,
        OTHER_FILES,
        &Expect {
            file: MAIN,
            line: 6,
            column: 28,
            code: Some("typecheck_call_too_many_args_one"),
            words: &[
                "Too many arguments to function call",
                "expected single argument 'width', have 2",
            ],
        },
    );
    let restored = write(&engine, &header, &original).await;
    assert_fixed(&restored, WRITTEN, "too many arguments");
    engine.shutdown().await;
}
