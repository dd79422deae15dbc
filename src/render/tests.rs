//! The renderer's own unit tests; the rendered formats are the golden
//! files' (`golden/render/`).

use super::*;

fn diag(line: u32, message: &str, server: &str) -> Diagnostic {
    Diagnostic {
        file: "a.rs".into(),
        line,
        column: 1,
        end_line: line,
        end_column: 2,
        severity: Severity::Error,
        message: message.into(),
        code: None,
        source: None,
        server: server.into(),
    }
}

fn file(diagnostics: Vec<Diagnostic>) -> FileDiagnostics {
    FileDiagnostics {
        file: "a.rs".into(),
        diagnostics,
        baseline_hidden: 0,
        fixes: Vec::new(),
    }
}

#[test]
fn sorted_input_is_borrowed_and_renders_like_shuffled_input() {
    let sorted = vec![diag(1, "x", "ra"), diag(2, "y", "ra")];
    assert!(is_canonical(&sorted));
    let shuffled = vec![diag(2, "y", "ra"), diag(1, "x", "ra"), diag(1, "x", "rb")];
    assert!(!is_canonical(&shuffled));
    let opts = RenderOptions::default();
    assert_eq!(
        render_feedback(&[file(sorted)], &[], &opts),
        render_feedback(&[file(shuffled)], &[], &opts)
    );
}

#[test]
fn options_default_when_absent_and_reject_unknown_keys() {
    let opts: RenderOptions = serde_json::from_str(r#"{"report": "new"}"#).unwrap();
    assert_eq!(opts.max_per_file, 20);
    assert_eq!(opts.include, vec![Severity::Error]);
    assert_eq!(opts.report, ReportMode::New);
    assert!(serde_json::from_str::<RenderOptions>(r#"{"max_files": 3}"#).is_err());
}

/// Entries naming one file merge into its first entry's place, whatever
/// lies between them; their hidden-baseline counts add up.
#[test]
fn entries_for_one_file_merge_at_first_appearance() {
    let named = |name: &str, line: u32, hidden: usize| FileDiagnostics {
        file: name.into(),
        diagnostics: vec![Diagnostic {
            file: name.into(),
            ..diag(line, "e", "s")
        }],
        baseline_hidden: hidden,
        fixes: Vec::new(),
    };
    let entries = [
        named("b.rs", 3, 1),
        named("a.rs", 1, 0),
        named("b.rs", 2, 2),
    ];
    let prepared = group(entries.iter().collect(), &RenderOptions::default());
    let summary: Vec<(&str, Vec<u32>, usize)> = prepared
        .iter()
        .map(|p| {
            let lines = p.diagnostics.iter().map(|d| d.line).collect();
            (p.file, lines, p.baseline_hidden)
        })
        .collect();
    assert_eq!(summary, vec![("b.rs", vec![2, 3], 3), ("a.rs", vec![1], 0)]);
}

#[test]
fn empty_input_renders_nothing() {
    let opts = RenderOptions::default();
    assert_eq!(render_feedback(&[], &[], &opts), "");
    assert_eq!(render_files(&[], &opts), "");
}
