use super::*;

fn diag(line: u32, column: u32, severity: Severity, message: &str) -> Diagnostic {
    Diagnostic {
        file: "a.py".into(),
        line,
        column,
        end_line: line,
        end_column: column + 1,
        severity,
        message: message.into(),
        code: Some("E1".into()),
        source: None,
        server: "pyright".into(),
    }
}

fn error(line: u32, column: u32, message: &str) -> Diagnostic {
    diag(line, column, Severity::Error, message)
}

/// Runs `classify` and returns (classification, introduced, baseline).
fn check(
    before: &[Diagnostic],
    before_text: &str,
    after: &[Diagnostic],
    after_text: &str,
) -> (Classification, Vec<usize>, Vec<usize>) {
    let delta = classify(before, before_text, after, after_text, true);
    (delta.classification, delta.introduced, delta.baseline)
}

const TEXT: &str = "import os\nx = undefined\nprint(x)\n";

#[test]
fn lines_inserted_above_an_error_keep_it_baseline() {
    let before = [error(2, 5, "\"undefined\" is not defined")];
    let after_text = "import sys\nimport re\nimport os\nx = undefined\nprint(x)\n";
    let after = [error(4, 5, "\"undefined\" is not defined")];
    assert_eq!(
        check(&before, TEXT, &after, after_text),
        (Classification::BaselineError, vec![], vec![0])
    );
}

#[test]
fn deleting_the_line_with_the_error_is_clean() {
    let before = [error(2, 5, "\"undefined\" is not defined")];
    let after_text = "import os\nprint(x)\n";
    assert_eq!(
        check(&before, TEXT, &[], after_text),
        (Classification::Clean, vec![], vec![])
    );
}

#[test]
fn a_deleted_line_does_not_vouch_for_its_neighbour() {
    // Line 2 held the error and is gone; the same message now on line 2
    // is about what used to be line 3.
    let before = [error(2, 5, "\"x\" is not defined")];
    let after_text = "import os\nprint(x)\n";
    let after = [error(2, 7, "\"x\" is not defined")];
    assert_eq!(
        check(&before, TEXT, &after, after_text),
        (Classification::NewErrors, vec![0], vec![])
    );
}

#[test]
fn new_error_on_a_new_line() {
    let before = [error(2, 5, "\"undefined\" is not defined")];
    let after_text = "import os\nx = undefined\nprint(x)\ny: int = \"s\"\n";
    let after = [
        error(2, 5, "\"undefined\" is not defined"),
        error(4, 10, "\"str\" is not assignable to \"int\""),
    ];
    assert_eq!(
        check(&before, TEXT, &after, after_text),
        (Classification::NewErrors, vec![1], vec![0])
    );
}

#[test]
fn same_message_on_another_line_is_new() {
    let before = [error(2, 5, "\"undefined\" is not defined")];
    let after_text = "import os\nx = undefined\nprint(x)\ny = undefined\n";
    let after = [
        error(2, 5, "\"undefined\" is not defined"),
        error(4, 5, "\"undefined\" is not defined"),
    ];
    assert_eq!(
        check(&before, TEXT, &after, after_text),
        (Classification::NewErrors, vec![1], vec![0])
    );
}

#[test]
fn moved_line_reports_its_error_as_new() {
    let before_text = "one\nbad()\ntwo\nthree\nfour\n";
    let after_text = "one\ntwo\nthree\nfour\nbad()\n";
    let before = [error(2, 1, "\"bad\" is not defined")];
    let after = [error(5, 1, "\"bad\" is not defined")];
    assert_eq!(
        check(&before, before_text, &after, after_text),
        (Classification::NewErrors, vec![0], vec![])
    );
}

#[test]
fn duplicated_messages_each_match_once() {
    let before_text = "a\nf(x, x)\nb\n";
    let before = [
        error(2, 3, "\"x\" is unbound"),
        error(2, 6, "\"x\" is unbound"),
    ];
    // Unchanged line moved down by one; a third use is new.
    let after_text = "top\na\nf(x, x)\nb\ng(x)\n";
    let after = [
        error(3, 3, "\"x\" is unbound"),
        error(3, 6, "\"x\" is unbound"),
        error(5, 3, "\"x\" is unbound"),
    ];
    assert_eq!(
        check(&before, before_text, &after, after_text),
        (Classification::NewErrors, vec![2], vec![0, 1])
    );

    // The line itself changed to hold three uses: two are old, one new.
    let after_text = "a\nf(x, x, x)\nb\n";
    let after = [
        error(2, 3, "\"x\" is unbound"),
        error(2, 6, "\"x\" is unbound"),
        error(2, 9, "\"x\" is unbound"),
    ];
    assert_eq!(
        check(&before, before_text, &after, after_text),
        (Classification::NewErrors, vec![2], vec![0, 1])
    );
}

#[test]
fn columns_may_move_only_on_a_changed_line() {
    let before = [error(2, 5, "\"undefined\" is not defined")];
    let changed = "import os\nxy = undefined\nprint(x)\n";
    let after = [error(2, 6, "\"undefined\" is not defined")];
    assert_eq!(
        check(&before, TEXT, &after, changed),
        (Classification::BaselineError, vec![], vec![0])
    );
    assert_eq!(
        check(&before, TEXT, &after, TEXT),
        (Classification::NewErrors, vec![0], vec![])
    );
}

#[test]
fn code_and_severity_must_match() {
    let error_m = error(2, 5, "m");
    let warning_m = diag(2, 5, Severity::Warning, "m");
    let mut other_code = error(2, 5, "m");
    other_code.code = Some("E2".into());
    let old_error = std::slice::from_ref(&error_m);
    let old_warning = std::slice::from_ref(&warning_m);
    assert_eq!(
        check(old_error, TEXT, &[other_code], TEXT),
        (Classification::NewErrors, vec![0], vec![])
    );
    assert_eq!(
        check(old_warning, TEXT, old_error, TEXT),
        (Classification::NewErrors, vec![0], vec![])
    );
    assert_eq!(
        check(old_error, TEXT, old_warning, TEXT),
        (Classification::WarningsOnly, vec![0], vec![])
    );
    assert_eq!(
        check(old_error, TEXT, old_error, TEXT),
        (Classification::BaselineError, vec![], vec![0])
    );
}

#[test]
fn end_of_file_errors_keep_their_distance_from_the_end() {
    let before_text = "def f(:\n";
    let after_text = "import os\ndef f(:\n";
    let before = [error(2, 1, "unexpected end of file")];
    let after = [error(3, 1, "unexpected end of file")];
    assert_eq!(
        check(&before, before_text, &after, after_text),
        (Classification::BaselineError, vec![], vec![0])
    );
}

#[test]
fn classification_is_judged_on_errors() {
    let warning = diag(1, 1, Severity::Warning, "unused");
    let old_error = error(2, 5, "\"undefined\" is not defined");
    assert_eq!(
        classify(&[], TEXT, &[], TEXT, false).classification,
        Classification::LspUnavailable
    );
    assert_eq!(check(&[], TEXT, &[], TEXT).0, Classification::Clean);
    assert_eq!(
        check(&[], TEXT, std::slice::from_ref(&warning), TEXT),
        (Classification::WarningsOnly, vec![0], vec![])
    );
    assert_eq!(
        check(
            std::slice::from_ref(&old_error),
            TEXT,
            &[warning, old_error.clone()],
            TEXT
        ),
        (Classification::BaselineError, vec![0], vec![1])
    );
    assert_eq!(Classification::NewErrors.as_str(), "new_errors");
    assert_eq!(
        serde_json::to_string(&Classification::BaselineError).unwrap(),
        "\"baseline_error\""
    );
}
