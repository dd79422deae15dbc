//! The per-server matrix for Python on `tests/fixtures/python`: pyright with
//! ruff alongside (the default), basedpyright and ty as alternatives. Each
//! test shares one engine across its cases: clean, a specific error, the
//! fix, and a signature change seen in the caller under "other files".

use crate::support;
use crate::support::matrix::*;

const MAIN: &str = "app/main.py";
const GEOMETRY: &str = "app/geometry.py";
const CALL: &str = "total = area(width, height)";
const NARROWED: &str = "def area(width: float) -> float:\n    return width * width\n\n\ndef perimeter(width: float, height: float) -> float:\n    return 2 * (width + height)\n";

#[tokio::test]
async fn pyright_and_ruff() {
    if support::require_program("pyright-langserver").is_none()
        || support::require_program("ruff").is_none()
    {
        return;
    }
    let dir = fixture("python");
    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;

    // Wrong argument type.
    let broken = edit(&engine, &main, CALL, "total = area(\"wide\", height)").await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 18,
            code: Some("reportArgumentType"),
            words: &["\"Literal['wide']\"", "\"width\"", "\"float\""],
        },
    );
    let fixed = edit(&engine, &main, "total = area(\"wide\", height)", CALL).await;
    assert_fixed(&fixed, EDITED, "Literal['wide']");

    // Undefined name: pyright and ruff both report it, merged in one wait.
    let broken = edit(&engine, &main, CALL, "total = aera(width, height)").await;
    assert_merged(&broken, &["pyright", "ruff"]);
    let undefined = |code, words| Expect {
        file: MAIN,
        line: 7,
        column: 13,
        code: Some(code),
        words,
    };
    assert_error(
        &broken,
        &undefined("reportUndefinedVariable", &["\"aera\" is not defined"]),
    );
    assert_error(&broken, &undefined("F821", &["Undefined name", "aera"]));
    let fixed = edit(&engine, &main, "total = aera(width, height)", CALL).await;
    assert_fixed(&fixed, EDITED, "aera");

    // Missing import.
    let import = "from app.geometry import area, perimeter";
    let broken = edit(&engine, &main, import, &format!("{import}, volume")).await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 3,
            column: 43,
            code: Some("reportAttributeAccessIssue"),
            words: &["\"volume\" is unknown import symbol"],
        },
    );
    let fixed = edit(&engine, &main, &format!("{import}, volume"), import).await;
    assert_fixed(&fixed, EDITED, "volume");

    // Syntax error: pyright gives no code, ruff says `invalid-syntax`.
    let def = "def report(width: float, height: float) -> str:";
    let broken = edit(&engine, &main, def, def.trim_end_matches(':')).await;
    assert_merged(&broken, &["pyright", "ruff"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 47,
            code: None,
            words: &["Expected \":\""],
        },
    );
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 47,
            code: Some("invalid-syntax"),
            words: &["Expected `:`, found newline"],
        },
    );
    let fixed = edit(&engine, &main, def.trim_end_matches(':'), def).await;
    assert_fixed(&fixed, EDITED, "Expected \":\"");

    // Cross-file: narrowing `area` breaks its caller.
    cross_file(&engine, &dir, "reportCallIssue").await;
    engine.shutdown().await;
}

async fn cross_file(
    engine: &std::sync::Arc<squiggle::engine::Engine>,
    dir: &tempfile::TempDir,
    code: &str,
) {
    let geometry = path(dir, GEOMETRY);
    let original = std::fs::read_to_string(&geometry).unwrap_or_default();
    let narrowed = format!("\"\"\"Areas of simple shapes.\"\"\"\n\n\n{NARROWED}");
    let result = write(engine, &geometry, &narrowed).await;
    let text = result.text();
    assert!(text.starts_with(WRITTEN), "{text}");
    assert!(
        block(&text, THIS_FILE, GEOMETRY).is_none(),
        "the written file is clean: {text}"
    );
    assert_row(
        &text,
        OTHER_FILES,
        &Expect {
            file: MAIN,
            line: 7,
            column: 25,
            code: Some(code),
            words: &["Expected 1 positional argument"],
        },
    );
    let restored = write(engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "positional argument");
}

#[tokio::test]
async fn basedpyright_instead_of_pyright() {
    if support::require_program("basedpyright-langserver").is_none() {
        return;
    }
    let dir = fixture("python");
    let engine = engine(
        dir.path(),
        &[("pyright", false), ("basedpyright", true), ("ruff", false)],
    );
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;
    let broken = edit(&engine, &main, CALL, "total = area(width)").await;
    assert_eq!(servers_of(&broken), ["basedpyright"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 13,
            code: Some("reportCallIssue"),
            words: &["Argument missing for parameter \"height\""],
        },
    );
    let fixed = edit(&engine, &main, "total = area(width)", CALL).await;
    assert_fixed(&fixed, EDITED, "Argument missing");
    cross_file(&engine, &dir, "reportCallIssue").await;
    engine.shutdown().await;
}

#[tokio::test]
async fn ty_instead_of_pyright() {
    if support::require_program("ty").is_none() {
        return;
    }
    let dir = fixture("python");
    let engine = engine(
        dir.path(),
        &[("pyright", false), ("ty", true), ("ruff", false)],
    );
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;
    let broken = edit(&engine, &main, CALL, "total = aera(width, height)").await;
    assert_eq!(servers_of(&broken), ["ty"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 13,
            code: Some("unresolved-reference"),
            words: &["`aera`", "not defined"],
        },
    );
    let fixed = edit(&engine, &main, "total = aera(width, height)", CALL).await;
    assert_fixed(&fixed, EDITED, "aera");
    engine.shutdown().await;
}

#[tokio::test]
async fn pyrefly_instead_of_pyright() {
    if support::require_program("pyrefly").is_none() {
        return;
    }
    let dir = fixture("python");
    let engine = engine(
        dir.path(),
        &[("pyright", false), ("pyrefly", true), ("ruff", false)],
    );
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;
    let wrong = "total = area(\"wide\", height)";
    let broken = edit(&engine, &main, CALL, wrong).await;
    assert_eq!(servers_of(&broken), ["pyrefly"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 7,
            column: 18,
            code: Some("bad-argument-type"),
            words: &["Literal['wide']", "float"],
        },
    );
    let fixed = edit(&engine, &main, wrong, CALL).await;
    assert_fixed(&fixed, EDITED, "Literal['wide']");
    cross_file(&engine, &dir, "bad-argument-count").await;
    engine.shutdown().await;
}
