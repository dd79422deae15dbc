//! Bad input through the Engine API (`edit`, `write`, `apply_patch`): each
//! case gets a clear error or a correct result, and nothing is lost: a refused
//! mutation leaves every file byte for byte as it was, and nothing is created
//! outside the workspace.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::diagnostic::{Diagnostic, Outcome};
use squiggle::engine::Engine;
use squiggle::engine::tools::ToolResult;
use squiggle::engine::tools::{Mode, Replace};

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::{Scratch, scratch_type};

scratch_type!(
    /// `outer/` (the temp dir) holds the workspace `outer/ws/` and files outside it.
    Setup
);

impl Setup {
    fn bare() -> Setup {
        Setup(Scratch::bare())
    }

    fn engine(&self, script: Value) -> Arc<Engine> {
        let mut config = Config::default();
        config
            .servers
            .insert("fake".into(), FakeServer::new(script).to_override());
        support::engine(&self.root, config)
    }
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn refused(result: Result<ToolResult, impl std::fmt::Display>) -> String {
    match result {
        Ok(r) => panic!("the mutation was not refused: {}", r.text()),
        Err(e) => e.to_string(),
    }
}

fn applied(result: Result<ToolResult, impl std::fmt::Display>) -> ToolResult {
    result.unwrap_or_else(|e| panic!("refused: {e}"))
}

fn positions<D: std::ops::Deref<Target = Diagnostic>>(
    diagnostics: &[D],
) -> Vec<(u32, u32, u32, u32, &str)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d.line,
                d.column,
                d.end_line,
                d.end_column,
                d.message.as_str(),
            )
        })
        .collect()
}

#[tokio::test]
async fn nonexistent_path() {
    let s = Setup::bare();
    let engine = s.engine(json!({}));
    let err = refused(
        engine
            .edit(
                &s.root.join("nope.fk"),
                "a",
                "b",
                Replace::Once,
                Mode::Apply,
            )
            .await,
    );
    assert!(err.starts_with("cannot read nope.fk: "), "{err}");
    assert!(!s.root.join("nope.fk").exists());
    let err = refused(
        engine
            .edit(
                &s.root.join("no/dir/x.fk"),
                "a",
                "b",
                Replace::Once,
                Mode::Apply,
            )
            .await,
    );
    assert!(err.starts_with("cannot read no/dir/x.fk: "), "{err}");
    assert!(!s.root.join("no").exists());
    engine.shutdown().await;
}

#[tokio::test]
async fn a_directory() {
    let s = Setup::bare();
    let inside = s.write_bytes("dir.fk/keep.txt", b"keep\n");
    let engine = s.engine(json!({}));
    let dir = s.root.join("dir.fk");
    let err = refused(
        engine
            .edit(&dir, "a", "b", Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.starts_with("cannot read dir.fk: "), "{err}");
    let err = refused(engine.write(&dir, "x", Mode::Apply).await);
    assert!(err.starts_with("cannot write dir.fk: "), "{err}");
    assert!(err.ends_with("the file is unchanged"), "{err}");
    assert_eq!(bytes(&inside), b"keep\n");
    let patch = "*** Begin Patch\n*** Add File: dir.fk\n+x\n*** End Patch\n";
    let err = refused(engine.apply_patch(patch, Mode::Apply).await);
    assert!(err.contains("dir.fk"), "{err}");
    assert_eq!(bytes(&inside), b"keep\n");
    engine.shutdown().await;
}

#[tokio::test]
async fn outside_through_dotdot_and_symlinks() {
    let s = Setup::bare();
    let secret = s.outer.join("secret.fk");
    std::fs::write(&secret, "secret\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(s.outer.join("elsewhere")).unwrap_or_else(|e| panic!("{e}"));
    let mut paths = vec![
        s.root.join("../secret.fk"),
        s.root.join("sub/../../secret.fk"),
        secret.clone(),
    ];
    let links = crate::support::symlinks_work();
    if links {
        crate::support::symlink(&secret, s.root.join("link.fk")).unwrap_or_else(|e| panic!("{e}"));
        crate::support::symlink(s.outer.join("elsewhere"), s.root.join("linkdir"))
            .unwrap_or_else(|e| panic!("{e}"));
        paths.push(s.root.join("link.fk"));
    }
    let engine = s.engine(json!({}));

    for path in paths {
        let err = refused(
            engine
                .edit(&path, "secret", "owned", Replace::Once, Mode::Apply)
                .await,
        );
        assert!(
            err.contains("outside the workspace"),
            "{}: {err}",
            path.display()
        );
        let err = refused(engine.write(&path, "owned\n", Mode::Apply).await);
        assert!(
            err.contains("outside the workspace"),
            "{}: {err}",
            path.display()
        );
    }
    if links {
        let err = refused(
            engine
                .write(&s.root.join("linkdir/new.fk"), "owned\n", Mode::Apply)
                .await,
        );
        assert!(err.contains("outside the workspace"), "{err}");
    }
    assert_eq!(bytes(&secret), b"secret\n");
    assert!(!s.outer.join("elsewhere/new.fk").exists());
    assert!(engine.pool().statuses().is_empty());
    engine.shutdown().await;
}

#[tokio::test]
async fn a_patch_touching_a_path_outside_is_refused_whole() {
    let s = Setup::bare();
    let a = s.write_bytes("a.fk", b"one\n");
    let engine = s.engine(json!({}));
    let outside = s.outer.join("evil.fk");
    let mut evils = vec!["../evil.fk".to_string(), outside.display().to_string()];
    if crate::support::symlinks_work() {
        crate::support::symlink(&s.outer, s.root.join("link")).unwrap_or_else(|e| panic!("{e}"));
        evils.push("link/evil.fk".to_string());
    }
    for evil in evils {
        let codex = format!(
            "*** Begin Patch\n*** Update File: a.fk\n@@\n-one\n+ONE\n*** Add File: {evil}\n+x\n*** End Patch\n"
        );
        let err = refused(engine.apply_patch(&codex, Mode::Apply).await);
        assert!(err.contains("outside the workspace"), "{evil}: {err}");
        let unified = format!(
            "--- a/a.fk\n+++ b/a.fk\n@@ -1 +1 @@\n-one\n+ONE\n--- /dev/null\n+++ b/{evil}\n@@ -0,0 +1 @@\n+x\n"
        );
        let err = refused(engine.apply_patch(&unified, Mode::Apply).await);
        assert!(err.contains("outside"), "{evil}: {err}");
        let moved = format!(
            "*** Begin Patch\n*** Update File: a.fk\n*** Move to: {evil}\n@@\n-one\n+ONE\n*** End Patch\n"
        );
        let err = refused(engine.apply_patch(&moved, Mode::Apply).await);
        assert!(err.contains("outside the workspace"), "{evil}: {err}");
        assert_eq!(bytes(&a), b"one\n", "{evil}");
        assert!(!outside.exists(), "{evil}");
    }
    engine.shutdown().await;
}

#[tokio::test]
async fn a_patch_that_applies_to_some_files_only_writes_nothing() {
    let s = Setup::bare();
    let a = s.write_bytes("a.fk", b"one\n");
    let b = s.write_bytes("b.fk", b"two\n");
    let engine = s.engine(json!({}));
    let unified = "--- a/a.fk\n+++ b/a.fk\n@@ -1 +1 @@\n-one\n+ONE\n\
                   --- /dev/null\n+++ b/new.fk\n@@ -0,0 +1 @@\n+new\n\
                   --- a/b.fk\n+++ b/b.fk\n@@ -1 +1 @@\n-not there\n+TWO\n";
    let err = refused(engine.apply_patch(unified, Mode::Apply).await);
    assert!(err.starts_with("b.fk: hunk 1"), "{err}");
    let deleting = "*** Begin Patch\n*** Delete File: a.fk\n*** Update File: missing.fk\n@@\n-x\n+y\n*** End Patch\n";
    let err = refused(engine.apply_patch(deleting, Mode::Apply).await);
    assert!(err.contains("missing.fk does not exist"), "{err}");
    assert_eq!(bytes(&a), b"one\n");
    assert_eq!(bytes(&b), b"two\n");
    assert!(!s.root.join("new.fk").exists());
    engine.shutdown().await;
}

#[tokio::test]
async fn a_file_under_node_modules_is_written_and_never_sent() {
    let s = Setup::bare();
    let path = s.write_bytes("node_modules/pkg/index.fk", b"old\n");
    let engine = s.engine(json!({}));
    let result = applied(
        engine
            .edit(&path, "old", "@error(x)", Replace::Once, Mode::Apply)
            .await,
    );
    assert_eq!(bytes(&path), b"@error(x)\n");
    assert_eq!(result.text(), "Edit applied successfully.");
    let outcomes = &result.outcomes["node_modules/pkg/index.fk"];
    assert_eq!(outcomes[0].outcome, Outcome::Ignored, "{outcomes:?}");
    assert!(engine.pool().statuses().is_empty(), "a server was started");
    engine.shutdown().await;
}

#[tokio::test]
async fn an_empty_file() {
    let s = Setup::bare();
    let path = s.write_bytes("empty.fk", b"");
    let engine = s.engine(json!({}));
    let err = refused(
        engine
            .edit(&path, "", "x", Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.starts_with("old_string is empty"), "{err}");
    let err = refused(
        engine
            .edit(&path, "x", "y", Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.starts_with("old_string not found"), "{err}");
    assert_eq!(bytes(&path), b"");
    let result = applied(engine.write(&path, "", Mode::Apply).await);
    assert_eq!(result.text(), "File written successfully.");
    assert_eq!(bytes(&path), b"");
    engine.shutdown().await;
}

#[tokio::test]
async fn a_50_mb_file_is_written_whole_and_never_sent() {
    let s = Setup::bare();
    let path = s.write_bytes("big.fk", b"");
    let engine = s.engine(json!({}));
    let line = "0123456789 abcdefghijklmnopqrstuvwxyz @error(big)\n";
    let content = format!("head\n{}", line.repeat(50 * 1024 * 1024 / line.len() + 1));
    let result = applied(engine.write(&path, &content, Mode::Apply).await);
    assert_eq!(
        std::fs::metadata(&path).map(|m| m.len()).ok(),
        Some(content.len() as u64)
    );
    assert!(
        bytes(&path) == content.as_bytes(),
        "the 50 MB write differs"
    );
    assert_eq!(result.outcomes["big.fk"][0].outcome, Outcome::BinaryFile);

    let result = applied(
        engine
            .edit(&path, "head\n", "HEAD\n", Replace::Once, Mode::Apply)
            .await,
    );
    let expected = format!("HEAD\n{}", &content["head\n".len()..]);
    assert!(
        bytes(&path) == expected.as_bytes(),
        "the edit of a 50 MB file differs"
    );
    assert_eq!(result.outcomes["big.fk"][0].outcome, Outcome::BinaryFile);
    assert!(engine.pool().statuses().is_empty(), "a server was started");
    engine.shutdown().await;
}

#[tokio::test]
async fn binary_content_is_edited_exactly_and_never_sent() {
    let s = Setup::bare();
    let path = s.write_bytes("blob.fk", b"head\0tail @error(x)\n");
    let engine = s.engine(json!({}));
    let result = applied(
        engine
            .edit(&path, "tail", "TAIL", Replace::Once, Mode::Apply)
            .await,
    );
    assert_eq!(bytes(&path), b"head\0TAIL @error(x)\n");
    assert_eq!(result.outcomes["blob.fk"][0].outcome, Outcome::BinaryFile);
    assert!(engine.pool().statuses().is_empty());
    engine.shutdown().await;
}

#[tokio::test]
async fn invalid_utf8_is_refused_for_edit_and_kept() {
    let s = Setup::bare();
    let original = b"caf\xe9 latin-1\n".to_vec();
    let path = s.write_bytes("latin.fk", &original);
    let engine = s.engine(json!({}));
    let err = refused(
        engine
            .edit(&path, "latin", "x", Replace::Once, Mode::Apply)
            .await,
    );
    assert_eq!(
        err,
        "cannot read latin.fk: it is not valid UTF-8 text; use write to replace it whole"
    );
    assert_eq!(bytes(&path), original);
    let patch = "*** Begin Patch\n*** Update File: latin.fk\n@@\n-x\n+y\n*** End Patch\n";
    let err = refused(engine.apply_patch(patch, Mode::Apply).await);
    assert!(err.contains("latin.fk"), "{err}");
    assert_eq!(bytes(&path), original);
    applied(engine.write(&path, "café\n", Mode::Apply).await);
    assert_eq!(bytes(&path), "café\n".as_bytes());
    engine.shutdown().await;
}

#[tokio::test]
async fn crlf_is_kept_and_positions_are_right() {
    let s = Setup::bare();
    let path = s.write_bytes("crlf.fk", b"one\r\ntwo\r\nthree\r\n");
    let engine = s.engine(json!({}));
    let result = applied(
        engine
            .edit(&path, "two", "x @error(second)", Replace::Once, Mode::Apply)
            .await,
    );
    assert_eq!(bytes(&path), b"one\r\nx @error(second)\r\nthree\r\n");
    assert_eq!(positions(&result.diagnostics), [(2, 3, 2, 17, "second")]);
    let patch =
        "*** Begin Patch\n*** Update File: crlf.fk\n@@\n-three\n+@error(third)\n*** End Patch\n";
    let result = applied(engine.apply_patch(patch, Mode::Apply).await);
    let text = String::from_utf8_lossy(&bytes(&path)).into_owned();
    assert!(text.starts_with("one\r\nx @error(second)\r\n"), "{text:?}");
    assert!(text.contains("@error(third)"), "{text:?}");
    assert!(
        positions(&result.diagnostics).contains(&(3, 1, 3, 14, "third")),
        "{:?}",
        positions(&result.diagnostics)
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn emoji_and_cjk_position_math_in_every_encoding() {
    for encoding in ["utf-8", "utf-16", "utf-32"] {
        let s = Setup::bare();
        let path = s.write_bytes("wide.fk", "😀😀 中文\n".as_bytes());
        let engine = s.engine(json!({"positionEncoding": encoding}));
        let result = applied(
            engine
                .edit(
                    &path,
                    "中文",
                    "中文 @error(😀 界)",
                    Replace::Once,
                    Mode::Apply,
                )
                .await,
        );
        assert_eq!(bytes(&path), "😀😀 中文 @error(😀 界)\n".as_bytes());
        // Columns count characters: 😀 😀 ␠ 中 文 ␠ → the @ is column 7.
        assert_eq!(
            positions(&result.diagnostics),
            [(1, 7, 1, 18, "😀 界")],
            "{encoding}"
        );
        engine.shutdown().await;
    }
}

#[tokio::test]
async fn old_string_missing_or_ambiguous() {
    let s = Setup::bare();
    let path = s.write_bytes("a.fk", b"x = 1\nx = 1\n");
    let engine = s.engine(json!({}));
    let err = refused(
        engine
            .edit(&path, "y = 2", "z", Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.starts_with("old_string not found in the file"), "{err}");
    let err = refused(
        engine
            .edit(&path, "x = 1", "x = 2", Replace::Once, Mode::Apply)
            .await,
    );
    assert_eq!(
        err,
        "old_string occurs 2 times; add surrounding lines to make it unique or set replace_all"
    );
    let err = refused(
        engine
            .edit(&path, "x = 1", "x = 1", Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.contains("identical"), "{err}");
    assert_eq!(bytes(&path), b"x = 1\nx = 1\n");
    applied(
        engine
            .edit(&path, "x = 1", "x = 2", Replace::All, Mode::Apply)
            .await,
    );
    assert_eq!(bytes(&path), b"x = 2\nx = 2\n");
    engine.shutdown().await;
}

/// `chattr +i`: permissions are not enforced for root, immutability is.
fn immutable(path: &Path, on: bool) -> bool {
    Command::new("chattr")
        .arg(if on { "+i" } else { "-i" })
        .arg(path)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Clears the immutable flag even when the test fails, so the temp dir can go.
struct Mutable(Vec<PathBuf>);

impl Drop for Mutable {
    fn drop(&mut self) {
        for path in &self.0 {
            immutable(path, false);
        }
    }
}

#[tokio::test]
async fn a_read_only_file_during_write() {
    let s = Setup::bare();
    let path = s.write_bytes("ro.fk", b"original\n");
    let engine = s.engine(json!({}));
    if !immutable(&path, true) {
        eprintln!("skipping: chattr +i is not available here (needs root and ext4/xfs/tmpfs)");
        return;
    }
    let _undo = Mutable(vec![path.clone()]);
    let err = refused(engine.write(&path, "replaced\n", Mode::Apply).await);
    assert!(err.starts_with("cannot write ro.fk: "), "{err}");
    assert!(err.ends_with("the file is unchanged"), "{err}");
    let err = refused(
        engine
            .edit(&path, "original", "edited", Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.starts_with("cannot write ro.fk: "), "{err}");
    assert_eq!(bytes(&path), b"original\n");
    let leftovers: Vec<_> = std::fs::read_dir(&s.root)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(leftovers.len(), 1, "temp files left: {leftovers:?}");
    engine.shutdown().await;
}

/// A patch whose second file cannot be written must not leave the first
/// one written: all or nothing holds for I/O failures too, not only for
/// hunks that do not apply.
#[tokio::test]
async fn a_patch_whose_second_file_cannot_be_written_writes_nothing() {
    let s = Setup::bare();
    let a = s.write_bytes("a.fk", b"one\n");
    let b = s.write_bytes("b.fk", b"two\n");
    let engine = s.engine(json!({}));
    if !immutable(&b, true) {
        eprintln!("skipping: chattr +i is not available here (needs root and ext4/xfs/tmpfs)");
        return;
    }
    let _undo = Mutable(vec![b.clone()]);
    let patch = "*** Begin Patch\n*** Update File: a.fk\n@@\n-one\n+ONE\n*** Update File: b.fk\n@@\n-two\n+TWO\n*** End Patch\n";
    let err = refused(engine.apply_patch(patch, Mode::Apply).await);
    assert!(err.starts_with("cannot write b.fk: "), "{err}");
    assert_eq!(bytes(&b), b"two\n");
    assert_eq!(
        String::from_utf8_lossy(&bytes(&a)),
        "one\n",
        "a.fk was written although the patch failed"
    );
    engine.shutdown().await;
}

/// Mounts a tiny tmpfs; `None` when mounting is not possible here.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
    }
}

#[tokio::test]
async fn a_full_disk() {
    let s = Setup::bare();
    let Some(_mount) = Tmpfs::mount(&s.root, "256k") else {
        eprintln!("skipping: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
        return;
    };
    let path = s.write_bytes("a.fk", b"original\n");
    let engine = s.engine(json!({}));
    let big = "x".repeat(1024 * 1024);
    let err = refused(engine.write(&path, &big, Mode::Apply).await);
    assert!(err.starts_with("cannot write a.fk: "), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let err = refused(
        engine
            .edit(&path, "original", &big, Replace::Once, Mode::Apply)
            .await,
    );
    assert!(err.contains("No space left on device"), "{err}");
    assert_eq!(bytes(&path), b"original\n");
    let names: Vec<_> = std::fs::read_dir(&s.root)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(
        names.len(),
        1,
        "temp files left on the full disk: {names:?}"
    );
    // Once there is room again, the same write succeeds.
    applied(engine.write(&path, "small\n", Mode::Apply).await);
    assert_eq!(bytes(&path), b"small\n");
    engine.shutdown().await;
}
