//! `summarize` over records written by hand: which regressions a later
//! change closes, by count, by putting back an earlier text, or by
//! listing a repaired importer.

use serde_json::{Value, json};

use super::summarize;

const WS: &str = "/w";

/// `head`'s members and `more`'s in one object.
fn with(head: &Value, more: Value) -> Value {
    let mut all = head.as_object().cloned().unwrap_or_default();
    all.extend(more.as_object().cloned().unwrap_or_default());
    Value::Object(all)
}

/// A change of `a.fk` from the text `before` to `after` (short names for
/// sha256s) with `errors` errors after, and, when `new` > 0, its
/// regression.
fn edit(before: &str, after: &str, errors: usize, new: usize) -> Vec<Value> {
    let head = json!({"v": 1, "time": "t", "workspace": WS, "surface": "cli", "tool": "edit"});
    let file = json!({"path": "a.fk", "sha256_before": before, "sha256_after": after,
                      "errors_before": null, "errors_after": errors, "new_errors": new});
    let change = json!({
        "kind": "change", "mutation": "edit", "dry_run": false, "servers": [], "files": [file],
        "errors_before": null, "errors_after": errors, "new_errors": new, "result": "clean",
    });
    let mut records = vec![with(&head, change)];
    if new > 0 {
        let regressed = json!({"path": "a.fk", "sha256": after, "new_errors": new, "lines": [1]});
        let regression =
            json!({"kind": "diagnostic_regression", "dry_run": false, "files": [regressed]});
        records.push(with(&head, regression));
    }
    records
}

fn unfixed(records: &[Vec<Value>]) -> usize {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let log = dir.path().join("evidence.jsonl");
    let text: Vec<String> = records.iter().flatten().map(Value::to_string).collect();
    std::fs::write(&log, text.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let summary = summarize(&[&log], Some(WS)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(summary.skipped, 0, "{summary:?}");
    summary.unfixed.len()
}

#[test]
fn putting_back_a_text_closes_the_regressions_since_it() {
    // t0 (one old error) → t1 (it changed: one new) → t2 (another) → t0.
    let (r1, r2) = (edit("t0", "t1", 1, 1), edit("t1", "t2", 2, 1));
    assert_eq!(unfixed(&[r1.clone(), r2.clone()]), 2);
    assert_eq!(
        unfixed(&[r1.clone(), r2.clone(), edit("t2", "t0", 1, 1)]),
        0
    );
    // Back to t1 only: the regression that began at t1 is undone, not the
    // first (its error is t1's).
    assert_eq!(
        unfixed(&[r1.clone(), r2.clone(), edit("t2", "t1", 1, 0)]),
        1
    );
    // A new text with one error: the second regression's error is gone by
    // count; the first, whose file had none left to lose, stays open.
    assert_eq!(unfixed(&[r1, r2, edit("t2", "t3", 1, 0)]), 1);
}

#[test]
fn fewer_errors_close_a_regression_as_before() {
    assert_eq!(
        unfixed(&[edit("t0", "t1", 1, 1), edit("t1", "t2", 0, 0)]),
        0
    );
}
