use super::*;

#[test]
fn ranges() {
    assert_eq!(parse_ranges("@@ -3,4 +3,5 @@ fn main() {"), Some((3, 4, 5)));
    assert_eq!(parse_ranges("@@ -3 +3 @@"), Some((3, 1, 1)));
    assert_eq!(parse_ranges("@@ -0,0 +1,2 @@"), Some((0, 0, 2)));
    assert_eq!(parse_ranges("@@ @@"), None);
    assert_eq!(parse_ranges("@@ -x +1 @@"), None);
}

#[test]
fn git_paths() {
    let split = |rest| split_git_paths(rest).unwrap();
    assert_eq!(
        split("a/x y.rs b/x y.rs"),
        ("x y.rs".into(), "x y.rs".into())
    );
    assert_eq!(
        split("a/old.rs b/new.rs"),
        ("old.rs".into(), "new.rs".into())
    );
    assert_eq!(
        split("\"a/t\\tab\" \"b/t\\tab\""),
        ("t\tab".into(), "t\tab".into())
    );
}

#[test]
fn timestamps_and_quotes() {
    assert_eq!(
        file_path("a/src/x.rs\t2024-01-01 00:00:00").as_deref(),
        Some("a/src/x.rs")
    );
    assert_eq!(file_path("\"b/caf\\303\\251\"").as_deref(), Some("b/café"));
    assert_eq!(unquote("plain"), "plain");
}

#[test]
fn mode_only_change_is_skipped() {
    let patch = parse("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n").unwrap();
    assert!(patch.files.is_empty());
}

#[test]
fn prefixes_stay_when_only_one_side_has_them() {
    let patch = parse("--- a/x\n+++ new/x\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
    assert!(
        matches!(&patch.files[0], FilePatch::Update { path, move_to: Some(to), .. } if path == "a/x" && to == "new/x")
    );
}

#[test]
fn no_newline_marker_after_context_marks_both_sides() {
    let patch =
        parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n")
            .unwrap();
    let FilePatch::Update { hunks, .. } = &patch.files[0] else {
        panic!("expected update")
    };
    assert!(hunks[0].old_missing_newline && hunks[0].new_missing_newline);
}

#[test]
fn format_patch_signature_ends_the_diff() {
    let patch =
        parse("Subject: x\n\n---\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n").unwrap();
    assert_eq!(patch.files.len(), 1);
}
