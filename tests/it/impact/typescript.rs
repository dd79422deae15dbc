//! `ts/src/math.ts` exports `add`, `mul` and `Vec` (and keeps `zero`);
//! `src/app.ts`, `src/scale.ts` and `test/math.test.ts` use them. Text
//! search (`grep -rnow NAME --include=*.ts ts/`, one line per hit):
//! - `add`: 8 hits — math.ts:1 (the declaration), math.ts:8, app.ts:1, 4,
//!   4, test/math.test.ts:1, 3, 3 → 7 uses, 3 in tests;
//! - `mul`: 5 hits — math.ts:5 (the declaration), scale.ts:1, 3,
//!   test/math.test.ts:1, 3 → 4 uses, 2 in tests;
//! - `Vec`: 4 hits — math.ts:13 (the declaration), app.ts:1, 3, 3 → 3 uses.

use squiggle::impact::{Bounds, file_impact, symbol_impact};
use squiggle::navigation::PositionArgs;

use super::{by_file, counts, importers};
use crate::support;
use crate::support::matrix::{engine, fixture};

#[tokio::test]
async fn typescript_counts_what_a_text_search_finds() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = fixture("impact");
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let engine = engine(&root, &[]);
    let bounds = Bounds::for_engine(&engine);
    let add = PositionArgs {
        path: "ts/src/math.ts".into(),
        line: Some(1),
        column: Some(17),
        symbol: None,
    };
    let (result, text) = symbol_impact(&engine, &add, bounds)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counts(&result), [("add", 7, 3)], "{text}");
    assert_eq!(
        by_file(&result.symbols[0]),
        [
            ("ts/src/app.ts", false, vec![1, 4, 4]),
            ("ts/src/math.ts", false, vec![8]),
            ("ts/test/math.test.ts", true, vec![1, 3, 3]),
        ],
        "{text}"
    );
    assert_eq!(
        importers(&result),
        [
            ("ts/src/app.ts", false, false),
            ("ts/src/scale.ts", false, true),
            ("ts/test/math.test.ts", true, false),
        ]
    );

    let (file, text) = file_impact(&engine, "ts/src/math.ts", bounds)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        counts(&file),
        [("add", 7, 3), ("mul", 4, 2), ("Vec", 3, 0)],
        "{text}"
    );
    engine.shutdown().await;
}
