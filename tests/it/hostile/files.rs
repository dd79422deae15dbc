//! What a file's name, type, line endings, byte order mark or
//! mode does to `edit`, `write` and `apply-patch`. Each ends in a clear
//! answer — applied (exit 0) or refused naming the problem (exit 1, the
//! file as it was) — never a panic, a hang or a file quietly replaced.

use std::path::Path;

use serde_json::json;

use super::{IN_PROCESS, pull, squiggle, stop_daemon, workspace};
#[cfg(unix)]
use super::{stderr, stdout};
use crate::support::both;

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Both ways a wrapped tool runs: through the workspace's daemon, and in
/// this process.
#[cfg(unix)]
const ROUTES: [&[(&str, &str)]; 2] = [&[], IN_PROCESS];

/// A file name that is not UTF-8 panicked `edit` and `write`
/// (exit 101). Through the daemon (which cannot carry the name in JSON, so
/// the tool runs in process) and without it, both work.
// Unix only: a Windows file name is UTF-16, never bytes that are not UTF-8.
#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_edited_and_written() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let ws = workspace("", pull());
    let name = OsStr::from_bytes(b"caf\xe9.fk");
    let path = ws.root.join(name);
    std::fs::write(&path, "x = 1\n").unwrap_or_else(|e| panic!("{e}"));
    for (i, env) in ROUTES.into_iter().enumerate() {
        let old = format!("x = {}", i + 1);
        let new = format!("x = {}", i + 2);
        let mut command = ws.command(&[]);
        command
            .arg("edit")
            .arg(name)
            .args(["--old-string", &old, "--new-string", &new])
            .env_remove("SQUIGGLE_NO_DAEMON")
            .envs(env.iter().copied());
        let out = super::bounded(&mut command, b"");
        assert_eq!(out.status.code(), Some(0), "edit {env:?}: {}", both(&out));
        assert!(stdout(&out).starts_with("Edit applied successfully."));
        assert_eq!(read(&path), format!("{new}\n").as_bytes());

        let mut name = b"new\xff".to_vec();
        name.extend_from_slice(format!("{i}.fk").as_bytes());
        let written = ws.root.join(OsStr::from_bytes(&name));
        let mut command = ws.command(&[]);
        command
            .arg("write")
            .arg(&written)
            .env_remove("SQUIGGLE_NO_DAEMON")
            .envs(env.iter().copied());
        let out = super::bounded(&mut command, b"y = 1\n");
        assert_eq!(out.status.code(), Some(0), "write {env:?}: {}", both(&out));
        assert_eq!(read(&written), b"y = 1\n");
    }
    stop_daemon(&ws);
}

/// A named pipe hung `edit` and `write` (the read blocked until
/// someone wrote into it), held the daemon's worker threads so that `daemon
/// stop` failed, and the stuck write later replaced the pipe with a file.
/// A pipe, a socket and a device are refused at once, by every tool and
/// route, and `check` does not open them either; the daemon still stops.
// Unix only: mkfifo, Unix sockets and /dev have no counterpart in a
// Windows directory.
#[cfg(unix)]
#[test]
fn pipes_sockets_and_devices_are_refused_before_anything_opens_them() {
    use std::os::unix::fs::FileTypeExt;
    let ws = workspace("", pull());
    let pipe = ws.root.join("pipe.fk");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let socket = ws.root.join("sock.fk");
    let _listener =
        std::os::unix::net::UnixListener::bind(&socket).unwrap_or_else(|e| panic!("bind: {e}"));
    std::os::unix::fs::symlink("/dev/zero", ws.root.join("zero.fk"))
        .unwrap_or_else(|e| panic!("symlink: {e}"));
    let cases = [
        ("pipe.fk", "a named pipe"),
        ("sock.fk", "a socket"),
        ("zero.fk", "a character device"),
    ];
    for env in ROUTES {
        for (name, kind) in cases {
            let refusal = format!("{name} is {kind}, not a regular file");
            let edit = ["edit", name, "--old-string", "a", "--new-string", "b"];
            let patch =
                format!("*** Begin Patch\n*** Update File: {name}\n@@\n-a\n+b\n*** End Patch\n");
            let runs = [
                squiggle(&ws, &edit, env, b""),
                squiggle(&ws, &["write", name], env, b"b\n"),
                squiggle(&ws, &["apply-patch"], env, patch.as_bytes()),
            ];
            for out in runs {
                assert_eq!(out.status.code(), Some(1), "{env:?}: {}", both(&out));
                assert!(stderr(&out).contains(&refusal), "{env:?}: {}", both(&out));
            }
        }
        let out = squiggle(&ws, &["check", "pipe.fk"], env, b"");
        assert!(
            stdout(&out).is_empty() && out.status.code() != Some(101),
            "check {env:?}: {}",
            both(&out)
        );
    }
    stop_daemon(&ws);
    let kind = std::fs::symlink_metadata(&pipe).map(|m| m.file_type());
    assert!(kind.is_ok_and(|k| k.is_fifo()), "the pipe is still a pipe");
}

/// A symbolic link to itself was refused as "outside the
/// workspace"; it is named as a loop.
// Unix only: a symbolic link on Windows needs a privilege ordinary users
// lack, and wine makes none.
#[cfg(unix)]
#[test]
fn a_symlink_loop_is_named_as_one() {
    let ws = workspace("", pull());
    std::os::unix::fs::symlink("loop.fk", ws.root.join("loop.fk"))
        .unwrap_or_else(|e| panic!("symlink: {e}"));
    let edit = ["edit", "loop.fk", "--old-string", "a", "--new-string", "b"];
    for out in [
        squiggle(&ws, &edit, IN_PROCESS, b""),
        squiggle(&ws, &["write", "loop.fk"], IN_PROCESS, b"b\n"),
        squiggle(&ws, &["write", "loop.fk/inner.fk"], IN_PROCESS, b"b\n"),
    ] {
        assert_eq!(out.status.code(), Some(1), "{}", both(&out));
        let text = stderr(&out);
        assert!(text.contains("is a symbolic link loop"), "{text}");
        assert!(!text.contains("outside the workspace"), "{text}");
    }
}

/// A multi-line `new_string` in a CRLF file inserted bare LF.
/// Inserted line breaks take the file's ending in `edit` and in patches;
/// `write` writes the bytes it is given; untouched lines keep theirs.
#[test]
fn crlf_is_kept_byte_for_byte_by_edit_write_and_apply_patch() {
    let ws = workspace("", pull());
    let path = ws.write("a.fk", "one\r\ntwo\r\nthree\r\n");
    let out = squiggle(
        &ws,
        &[
            "edit",
            "a.fk",
            "--old-string",
            "two",
            "--new-string",
            "two\nand a half\n2.75",
        ],
        IN_PROCESS,
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(
        read(&path),
        b"one\r\ntwo\r\nand a half\r\n2.75\r\nthree\r\n"
    );

    let patch =
        "*** Begin Patch\n*** Update File: a.fk\n@@\n one\n-two\n+2\n+2.25\n*** End Patch\n";
    let out = squiggle(&ws, &["apply-patch"], IN_PROCESS, patch.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(
        read(&path),
        b"one\r\n2\r\n2.25\r\nand a half\r\n2.75\r\nthree\r\n"
    );

    let unified = "--- a/a.fk\n+++ b/a.fk\n@@ -5,1 +5,2 @@\n three\n+four\n";
    let out = squiggle(&ws, &["apply-patch"], IN_PROCESS, unified.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(
        read(&path),
        b"one\r\n2\r\n2.25\r\nand a half\r\n2.75\r\nthree\r\nfour\r\n"
    );

    let bytes = b"mixed\r\nendings\nkept\r\n";
    let out = squiggle(&ws, &["write", "a.fk"], IN_PROCESS, bytes);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(read(&path), bytes);
}

/// A Codex patch whose context is the first line of a file
/// that starts with a byte order mark, written without the (invisible)
/// mark, was refused. It applies, and the mark stays.
#[test]
fn a_patch_matches_a_bom_files_first_line_and_keeps_the_mark() {
    let ws = workspace("", pull());
    let path = ws.write("b.fk", "\u{feff}import os\nx = 1\n");
    let patch =
        "*** Begin Patch\n*** Update File: b.fk\n@@\n import os\n-x = 1\n+x = 2\n*** End Patch\n";
    let out = squiggle(&ws, &["apply-patch"], IN_PROCESS, patch.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(read(&path), "\u{feff}import os\nx = 2\n".as_bytes());
    let unified = "--- a/b.fk\n+++ b/b.fk\n@@ -1,2 +1,2 @@\n-import os\n+import sys\n x = 2\n";
    let out = squiggle(&ws, &["apply-patch"], IN_PROCESS, unified.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(read(&path), "\u{feff}import sys\nx = 2\n".as_bytes());
}

/// A file of mode 0444 was replaced through a rename (which
/// needs only the directory's permission), where a plain write is refused.
/// It is refused, exit 1, the file and its mode unchanged. The check reads
/// the mode bits, so it holds for root too (where tests run here, and where
/// `open` itself would succeed).
// Unix only: the refusal names the mode bits, which Windows does not have
// (its read-only attribute is another test's).
#[cfg(unix)]
#[test]
fn a_read_only_file_is_refused_as_a_plain_write_would_be() {
    use std::os::unix::fs::PermissionsExt;
    let ws = workspace("", pull());
    let path = ws.write("ro.fk", "x = 1\n");
    let mode = std::fs::Permissions::from_mode(0o444);
    std::fs::set_permissions(&path, mode).unwrap_or_else(|e| panic!("chmod: {e}"));
    let edit = ["edit", "ro.fk", "--old-string", "1", "--new-string", "2"];
    let patch = "*** Begin Patch\n*** Update File: ro.fk\n@@\n-x = 1\n+x = 2\n*** End Patch\n";
    for env in ROUTES {
        for out in [
            squiggle(&ws, &edit, env, b""),
            squiggle(&ws, &["write", "ro.fk"], env, b"x = 3\n"),
            squiggle(&ws, &["apply-patch"], env, patch.as_bytes()),
        ] {
            assert_eq!(out.status.code(), Some(1), "{env:?}: {}", both(&out));
            let text = stderr(&out);
            assert!(
                text.contains("cannot write ro.fk: it is read-only (mode 0444)"),
                "{text}"
            );
        }
    }
    stop_daemon(&ws);
    assert_eq!(read(&path), b"x = 1\n");
    let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(meta.permissions().mode() & 0o777, 0o444);
    let leftovers = std::fs::read_dir(&ws.root).map(|d| d.count()).unwrap_or(0);
    assert_eq!(leftovers, 2, "ro.fk and .git only");
}

/// A named pipe, the daemon's half: a write whose requester hung up landed
/// seconds later. Here a slow check holds `a.fk`'s lock; a second client
/// asks to write `a.fk`, waits its turn, and is killed. The daemon cancels
/// its write (its requests in flight drop back), keeps serving, `daemon
/// stop` works while the first request is still in flight, and the
/// cancelled content never reaches the disk.
#[test]
fn a_write_whose_requester_hung_up_never_lands() {
    let ws = workspace(
        "diagnosticTimeout = 120000\nfirstTouchTimeout = 120000",
        json!({"diagnosticMode": "pull", "pullDelayMs": 110000}),
    );
    let path = ws.write("a.fk", "x = 1\n");
    let mut slow = ws.command(&["edit", "a.fk", "--old-string", "1", "--new-string", "2"]);
    let mut slow = slow
        .env_remove("SQUIGGLE_NO_DAEMON")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let _slow = crate::support::process::Reaper(slow.id());
    let in_flight = || -> Option<u64> {
        let out = ws.command(&["daemon", "status", "--json"]).output().ok()?;
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        // The status request is in flight too.
        status["inFlight"].as_u64().map(|n| n - 1)
    };
    let edited = crate::support::poll_until(super::HANG, || {
        read(&path) == b"x = 2\n" && in_flight() == Some(1)
    });
    assert!(edited, "the first edit is written and waits for its check");

    let mut late = ws.command(&["write", "a.fk"]);
    let mut late = late
        .env_remove("SQUIGGLE_NO_DAEMON")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    if let Some(mut stdin) = late.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(b"LATE\n");
    }
    let waiting = crate::support::poll_until(super::HANG, || in_flight() == Some(2));
    assert!(
        waiting,
        "the second write reaches the daemon and waits for the lock"
    );
    let _ = late.kill();
    let _ = late.wait();
    let cancelled = crate::support::poll_until(super::HANG, || in_flight() == Some(1));
    assert!(
        cancelled,
        "the daemon cancels the write of a client that hung up"
    );

    stop_daemon(&ws);
    let answered =
        crate::support::poll_until(super::HANG, || matches!(slow.try_wait(), Ok(Some(_))));
    assert!(
        answered,
        "the first edit's client ends once the daemon stops"
    );
    assert_eq!(read(&path), b"x = 2\n");
}
