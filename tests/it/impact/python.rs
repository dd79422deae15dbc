//! `py/geometry.py` declares `area`, `perimeter`, `Box` (with `Box.size`)
//! and `_unused`; `app.py`, `report.py` and `tests/test_geometry.py` use
//! them. Text search (`grep -row NAME --include=*.py py/`):
//! - `area`: 8 hits — geometry.py:4 (the `def`), geometry.py:18,
//!   app.py:1, 5, 9, tests/test_geometry.py:1, 5, 6 → 7 uses, 3 in tests;
//! - `perimeter`: 4 hits — geometry.py:8 (the `def`), report.py:5,
//!   tests/test_geometry.py:1, 10 → 3 uses, 2 in tests;
//! - `Box`: 4 hits — geometry.py:12 (the `class`), app.py:1, 4, 9 → 3 uses.
//!
//! (`test_area` and `test_perimeter` are other words.)

use squiggle::impact::{Bounds, diff_impact, file_impact, symbol_impact};
use squiggle::navigation::PositionArgs;

use super::{by_file, counts, importers};
use crate::support;
use crate::support::matrix::{engine, fixture};

fn at(path: &str, symbol: &str) -> PositionArgs {
    PositionArgs {
        path: path.into(),
        symbol: Some(symbol.into()),
        ..PositionArgs::default()
    }
}

#[tokio::test]
async fn pyright_counts_what_a_text_search_finds() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("impact");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    let bounds = Bounds::for_engine(&engine);

    let (area, text) = symbol_impact(&engine, &at("py/geometry.py", "area"), bounds)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&area), [("area", 7, 3)], "{text}");
    assert_eq!(
        by_file(&area.symbols[0]),
        [
            ("py/app.py", false, vec![1, 5, 9]),
            ("py/geometry.py", false, vec![18]),
            ("py/tests/test_geometry.py", true, vec![1, 5, 6]),
        ],
        "{text}"
    );
    // squiggle's own resolution: report.py imports the module but does
    // not use `area`.
    assert_eq!(
        importers(&area),
        [
            ("py/app.py", false, false),
            ("py/report.py", false, true),
            ("py/tests/test_geometry.py", true, false),
        ]
    );
    assert!(
        text.starts_with("area (py/geometry.py:4:5): 7 use(s) in 3 file(s), 3 in tests\n"),
        "{text}"
    );

    // A name path: the method `size` of `Box`, used once (app.py:9).
    let (size, _) = symbol_impact(&engine, &at("py/geometry.py", "Box.size"), bounds)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&size), [("size", 1, 0)]);
    assert_eq!(by_file(&size.symbols[0]), [("py/app.py", false, vec![9])]);

    // The whole file: its exported symbols (not `_unused`) in outline order.
    let (file, text) = file_impact(&engine, "py/geometry.py", bounds)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        counts(&file),
        [("area", 7, 3), ("perimeter", 3, 2), ("Box", 3, 0)],
        "{text}"
    );
    assert!(file.notes.is_empty(), "{:?}", file.notes);
    engine.shutdown().await;
}

#[tokio::test]
async fn a_diff_names_the_symbols_it_changes_and_their_users() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = fixture("impact");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[("ruff", false)]);
    // `perimeter`'s body changed (already on disk, as a staged diff is).
    let geometry = root.join("py/geometry.py");
    let text = std::fs::read_to_string(&geometry).unwrap_or_default();
    let changed = text.replace(
        "    return 2 * (width + height)",
        "    total = width + height\n    return 2 * total",
    );
    std::fs::write(&geometry, changed).unwrap_or_else(|e| panic!("{e}"));
    let diff = "diff --git a/py/geometry.py b/py/geometry.py\n--- a/py/geometry.py\n+++ b/py/geometry.py\n@@ -9 +9,2 @@ def perimeter(width: float, height: float) -> float:\n-    return 2 * (width + height)\n+    total = width + height\n+    return 2 * total\n";
    let (result, text) = diff_impact(&engine, diff, Bounds::for_engine(&engine))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&result), [("perimeter", 3, 2)], "{text}");
    assert_eq!(
        by_file(&result.symbols[0]),
        [
            ("py/report.py", false, vec![5]),
            ("py/tests/test_geometry.py", true, vec![1, 10]),
        ]
    );
    engine.shutdown().await;
}
