//! Patch parsing and planning end to end: each case starts from a small tree
//! of files, parses a patch, plans it, applies the plan to the tree in
//! memory, and compares the resulting tree.

use std::collections::BTreeMap;
use std::io;

use squiggle::edit::{EditError, FilePatch, PlannedChange, parse_patch, plan_patch};

type Tree = BTreeMap<String, String>;

fn tree(files: &[(&str, &str)]) -> Tree {
    files
        .iter()
        .map(|(path, content)| (path.to_string(), content.to_string()))
        .collect()
}

/// Parses and plans `patch` against `files`, then applies the plan.
fn run(files: &[(&str, &str)], patch: &str) -> Result<Tree, EditError> {
    let mut tree = tree(files);
    let parsed = parse_patch(patch)?;
    let plan = plan_patch(&parsed, |path| {
        tree.get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    })?;
    for change in plan {
        match change {
            PlannedChange::Write { path, content, .. } => {
                tree.insert(path, content);
            }
            PlannedChange::Delete { path } => {
                tree.remove(&path);
            }
            PlannedChange::Rename { from, to, content } => {
                tree.remove(&from);
                tree.insert(to, content);
            }
        }
    }
    Ok(tree)
}

fn check(files: &[(&str, &str)], patch: &str, expect: &[(&str, &str)]) {
    let got = run(files, patch)
        .unwrap_or_else(|err| panic!("patch failed: {err}\n--- patch ---\n{patch}"));
    let expect = tree(expect);
    assert_eq!(
        got, expect,
        "\n--- expected ---\n{expect:#?}\n--- actual ---\n{got:#?}"
    );
}

fn check_err(files: &[(&str, &str)], patch: &str, expect: &str) {
    match run(files, patch) {
        Ok(tree) => panic!("patch applied but should not have:\n{tree:#?}"),
        Err(err) => assert_eq!(err.to_string(), expect),
    }
}

const LIB: &str = "fn one() {\n    1\n}\n\nfn two() {\n    2\n}\n\nfn three() {\n    3\n}\n";

// ---- unified diffs ----

#[test]
fn unified_single_hunk() {
    check(
        &[("src/lib.rs", LIB)],
        "diff --git a/src/lib.rs b/src/lib.rs
index 1111111..2222222 100644
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -4,3 +4,3 @@ fn one() {
 
 fn two() {
-    2
+    22
",
        &[("src/lib.rs", &LIB.replace("    2\n", "    22\n"))],
    );
}

#[test]
fn unified_multi_hunk() {
    check(
        &[("src/lib.rs", LIB)],
        "--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,3 +1,4 @@
+// header
 fn one() {
     1
 }
@@ -9,3 +10,3 @@ fn two() {
 fn three() {
-    3
+    33
 }
",
        &[(
            "src/lib.rs",
            &format!("// header\n{}", LIB.replace("    3\n", "    33\n")),
        )],
    );
}

#[test]
fn unified_multi_file_plain_diff_u() {
    // `diff -ru` output: no prefixes, timestamps after a tab, a command line.
    check(
        &[("a.txt", "alpha\nbeta\n"), ("b.txt", "one\ntwo\nthree\n")],
        "diff -ru old/a.txt new/a.txt
--- a.txt\t2024-05-01 10:00:00.000000000 +0200
+++ a.txt\t2024-05-01 10:01:00.000000000 +0200
@@ -1,2 +1,2 @@
-alpha
+ALPHA
 beta
--- b.txt\t2024-05-01 10:00:00.000000000 +0200
+++ b.txt\t2024-05-01 10:01:00.000000000 +0200
@@ -2,2 +2 @@
 two
-three
",
        &[("a.txt", "ALPHA\nbeta\n"), ("b.txt", "one\ntwo\n")],
    );
}

#[test]
fn unified_add_delete_rename() {
    check(
        &[
            ("old.rs", "fn f() {}\nfn g() {}\n"),
            ("gone.rs", "bye\n"),
            ("keep.rs", "k\n"),
        ],
        "diff --git a/new.rs b/new.rs
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.rs
@@ -0,0 +1,2 @@
+fn new() {}
+fn newer() {}
diff --git a/gone.rs b/gone.rs
deleted file mode 100644
index 4444444..0000000
--- a/gone.rs
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old.rs b/moved.rs
similarity index 80%
rename from old.rs
rename to moved.rs
index 5555555..6666666 100644
--- a/old.rs
+++ b/moved.rs
@@ -1,2 +1,2 @@
 fn f() {}
-fn g() {}
+fn h() {}
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
diff --git a/keep.rs b/kept.rs
similarity index 100%
rename from keep.rs
rename to kept.rs
",
        &[
            ("new.rs", "fn new() {}\nfn newer() {}\n"),
            ("moved.rs", "fn f() {}\nfn h() {}\n"),
            ("empty.txt", ""),
            ("kept.rs", "k\n"),
        ],
    );
}

#[test]
fn unified_no_newline_markers() {
    // Old side lacks the final newline; the patch adds it.
    check(
        &[("f", "a\nb")],
        "--- a/f
+++ b/f
@@ -1,2 +1,2 @@
 a
-b
\\ No newline at end of file
+b
",
        &[("f", "a\nb\n")],
    );
    // The patch removes the final newline.
    check(
        &[("f", "a\nb\n")],
        "--- a/f
+++ b/f
@@ -1,2 +1,2 @@
 a
-b
+c
\\ No newline at end of file
",
        &[("f", "a\nc")],
    );
    // Neither side has one: context before the change, missing on both.
    check(
        &[("f", "a\nb\nc")],
        "--- a/f
+++ b/f
@@ -1,3 +1,3 @@
-a
+A
 b
 c
\\ No newline at end of file
",
        &[("f", "A\nb\nc")],
    );
    // Appending after a last line that had no newline.
    check(
        &[("f", "a\nb")],
        "--- a/f
+++ b/f
@@ -1,2 +1,3 @@
 a
-b
\\ No newline at end of file
+b
+c
\\ No newline at end of file
",
        &[("f", "a\nb\nc")],
    );
    // A new file without a final newline.
    check(
        &[],
        "--- /dev/null
+++ b/n
@@ -0,0 +1,2 @@
+x
+y
\\ No newline at end of file
",
        &[("n", "x\ny")],
    );
}

#[test]
fn unified_offset_drift() {
    // The file gained four lines at the top since the diff was made; both
    // hunks land four lines lower.
    let drifted = format!("// a\n// b\n// c\n// d\n{LIB}");
    check(
        &[("src/lib.rs", &drifted)],
        "--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,2 +1,2 @@
 fn one() {
-    1
+    11
@@ -9,3 +9,3 @@
 fn three() {
-    3
+    33
 }
",
        &[(
            "src/lib.rs",
            &drifted
                .replace("    1\n", "    11\n")
                .replace("    3\n", "    33\n"),
        )],
    );
    // Stated too late: found earlier.
    check(
        &[("f", "x\ny\nz\n")],
        "--- a/f\n+++ b/f\n@@ -30,1 +30,1 @@\n-y\n+Y\n",
        &[("f", "x\nY\nz\n")],
    );
}

#[test]
fn unified_nearest_match_wins() {
    // Identical context twice: the occurrence nearest the stated line is used.
    check(
        &[("f", "x\nsame\nx\nx\nx\nx\nsame\nx\n")],
        "--- a/f\n+++ b/f\n@@ -6,1 +6,1 @@\n-same\n+SAME\n",
        &[("f", "x\nsame\nx\nx\nx\nx\nSAME\nx\n")],
    );
}

#[test]
fn unified_failing_hunk_plans_nothing() {
    let files = [("a.txt", "alpha\n"), ("src/lib.rs", LIB)];
    let patch = "--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-alpha
+ALPHA
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,3 +1,3 @@
 fn one() {
-    1
+    11
 }
@@ -5,3 +5,3 @@ fn two() {
 fn two() {
-    222
+    2
 }
";
    check_err(
        &files,
        patch,
        "src/lib.rs: hunk 2 (@@ -5,3 +5,3 @@ fn two() {) does not apply: its context and removed lines are not in the file; read the file again and regenerate the patch",
    );
    // Planning is all-or-nothing: the first file applied, but the caller
    // gets only the error, with no partial plan to write.
    let parsed = parse_patch(patch).unwrap();
    let result = plan_patch(&parsed, |path| {
        Ok(files
            .iter()
            .find(|(p, _)| *p == path)
            .unwrap()
            .1
            .to_string())
    });
    assert!(matches!(result, Err(EditError::HunkFailed { hunk: 2, .. })));
}

#[test]
fn unified_crlf_file_keeps_crlf() {
    check(
        &[("w.txt", "one\r\ntwo\r\nthree\r\n")],
        "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2.5\n three\n",
        &[("w.txt", "one\r\nTWO\r\n2.5\r\nthree\r\n")],
    );
    // A patch with CRLF line endings of its own works the same.
    check(
        &[("w.txt", "one\r\ntwo\r\n")],
        "--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n one\r\n-two\r\n+2\r\n",
        &[("w.txt", "one\r\n2\r\n")],
    );
    // A new file, or an empty one, has no line ending of its own: it takes
    // the patch's, as `git diff` of a CRLF file writes them.
    check(
        &[("empty.txt", "")],
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n\
         --- a/empty.txt\n+++ b/empty.txt\n@@ -0,0 +1 @@\n+x\r\n",
        &[("new.txt", "a\r\nb\r\n"), ("empty.txt", "x\r\n")],
    );
    // An existing LF file keeps LF even when the patch has CRLF.
    check(
        &[("lf", "a\n")],
        "--- a/lf\n+++ b/lf\n@@ -1 +1,2 @@\n a\n+b\r\n",
        &[("lf", "a\nb\n")],
    );
}

#[test]
fn unified_removed_line_that_looks_like_a_header() {
    // `--- x` and `+++ y` inside a body are read by the @@ counts.
    check(
        &[("notes.md", "-- x\n++ y\nz\n")],
        "--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,2 @@\n--- x\n+++ y\n-++ y\n z\n",
        &[("notes.md", "++ y\nz\n")],
    );
}

#[test]
fn unified_bare_hunk_header_is_located_by_context() {
    check(
        &[("src/lib.rs", LIB)],
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ @@\n fn two() {\n-    2\n+    20\n }\n\n",
        &[("src/lib.rs", &LIB.replace("    2\n", "    20\n"))],
    );
}

#[test]
fn unified_errors() {
    check_err(
        &[("f", "a\n")],
        "just some prose\n",
        "patch contains no file changes; send a unified diff or a `*** Begin Patch` block",
    );
    check_err(
        &[("f", "a\nb\n")],
        "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+A\n b\n",
        "patch line 6: hunk has more lines than its @@ header counts; fix the counts or regenerate the diff",
    );
    check_err(
        &[],
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
        "f does not exist; check the path, or add the file instead of updating it",
    );
    check_err(
        &[("f", "a\n")],
        "diff --git a/f b/f\nindex 1..2 100644\nGIT binary patch\nliteral 0\n",
        "patch line 3: binary patches are not supported; edit text files only",
    );
}

#[test]
fn unified_quoted_paths_and_paths_list() {
    let patch = parse_patch(
        "diff --git \"a/sp\\303\\251cial name.txt\" \"b/sp\\303\\251cial name.txt\"
--- \"a/sp\\303\\251cial name.txt\"
+++ \"b/sp\\303\\251cial name.txt\"
@@ -1 +1 @@
-x
+y
",
    )
    .unwrap();
    assert_eq!(patch.paths(), vec!["spécial name.txt"]);
}

// ---- Codex patches ----

#[test]
fn codex_add_update_move_delete() {
    check(
        &[("a.py", "def f():\n    return 1\n"), ("c.py", "gone\n")],
        "*** Begin Patch
*** Add File: pkg/new.py
+print('hi')
+
+x = 1
*** Update File: a.py
*** Move to: b.py
@@
 def f():
-    return 1
+    return 2
*** Delete File: c.py
*** End Patch
",
        &[
            ("pkg/new.py", "print('hi')\n\nx = 1\n"),
            ("b.py", "def f():\n    return 2\n"),
        ],
    );
}

#[test]
fn codex_anchors_pick_the_right_occurrence() {
    let file = "class A:\n    def f(self):\n        return 0\n\nclass B:\n    def f(self):\n        return 0\n";
    check(
        &[("m.py", file)],
        "*** Begin Patch
*** Update File: m.py
@@ class B:
@@     def f(self):
-        return 0
+        return 1
*** End Patch",
        &[(
            "m.py",
            &file.replace(
                "B:\n    def f(self):\n        return 0",
                "B:\n    def f(self):\n        return 1",
            ),
        )],
    );
}

#[test]
fn codex_hunks_search_forward_in_order() {
    check(
        &[("f", "x = 1\ny = 2\nx = 1\ny = 2\n")],
        "*** Begin Patch\n*** Update File: f\n@@\n-x = 1\n+x = 10\n@@\n-x = 1\n+x = 11\n*** End Patch\n",
        &[("f", "x = 10\ny = 2\nx = 11\ny = 2\n")],
    );
}

#[test]
fn codex_end_of_file_and_whitespace_leniency() {
    check(
        &[("f", "end\nmiddle\nend\n")],
        "*** Begin Patch\n*** Update File: f\n@@\n-end\n+END\n*** End of File\n*** End Patch\n",
        &[("f", "end\nmiddle\nEND\n")],
    );
    // Trailing whitespace in the file does not stop a match; the context
    // line keeps the file's own bytes.
    check(
        &[("f", "keep   \nold\n")],
        "*** Begin Patch\n*** Update File: f\n keep\n-old\n+new\n*** End Patch\n",
        &[("f", "keep   \nnew\n")],
    );
}

#[test]
fn codex_keeps_crlf_and_missing_final_newline() {
    check(
        &[("w", "a\r\nb\r\nc")],
        "*** Begin Patch\n*** Update File: w\n a\n-b\n+B\n+B2\n*** End Patch\n",
        &[("w", "a\r\nB\r\nB2\r\nc")],
    );
    check(
        &[("w", "a\nb")],
        "*** Begin Patch\n*** Update File: w\n a\n-b\n+c\n*** End Patch\n",
        &[("w", "a\nc")],
    );
}

#[test]
fn codex_failures() {
    check_err(
        &[("a.py", "def f():\n    return 1\n"), ("b.py", "x\n")],
        "*** Begin Patch
*** Update File: b.py
-x
+y
*** Update File: a.py
@@ def f():
-    return 3
+    return 4
*** End Patch
",
        "a.py: hunk 1 (@@ def f():) does not apply: its context and removed lines are not in the file; read the file again and regenerate the patch",
    );
    check_err(
        &[("a.py", "x\n")],
        "*** Begin Patch\n*** Update File: a.py\n-x\n+y\n",
        "patch line 5: missing `*** End Patch`; the patch may be cut off, send it whole",
    );
    check_err(
        &[("a.py", "x\n")],
        "*** Begin Patch\n*** Frobnicate File: a.py\n*** End Patch\n",
        "patch line 2: expected `*** Add File:`, `*** Update File:`, `*** Delete File:` or `*** End Patch`, found `*** Frobnicate File: a.py`",
    );
    check_err(
        &[],
        "*** Begin Patch\n*** Delete File: nope.py\n*** End Patch\n",
        "nope.py does not exist; check the path, or add the file instead of updating it",
    );
}

#[test]
fn codex_paths_include_move_targets() {
    let patch = parse_patch(
        "*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: ../c\n*** Delete File: /etc/d\n*** End Patch\n",
    )
    .unwrap();
    assert_eq!(patch.paths(), vec!["a", "b", "../c", "/etc/d"]);
    assert!(matches!(&patch.files[1], FilePatch::Update { hunks, .. } if hunks.is_empty()));
}

#[test]
fn planned_changes_report_creation() {
    let patch =
        parse_patch("*** Begin Patch\n*** Add File: a\n+x\n*** Add File: b\n+y\n*** End Patch\n")
            .unwrap();
    let plan = plan_patch(&patch, |path| match path {
        "a" => Ok("old\n".to_string()),
        _ => Err(io::Error::new(io::ErrorKind::NotFound, "missing")),
    })
    .unwrap();
    assert_eq!(
        plan,
        vec![
            PlannedChange::Write {
                path: "a".into(),
                content: "x\n".into(),
                created: false
            },
            PlannedChange::Write {
                path: "b".into(),
                content: "y\n".into(),
                created: true
            },
        ]
    );
}
