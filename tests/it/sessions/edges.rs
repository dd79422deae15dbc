//! A session's hard edges: a commit after a directory or file of the
//! session became a symbolic link out of the workspace, an edit that waited
//! while the session was committed, and an evaluation whose caller hung up.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use squiggle::config::Config;
use squiggle::engine::Engine;
use squiggle::sessions::SessionError;

use super::{me, replace};
use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;
#[cfg(unix)]
use crate::support::service::{Service, Workspace};

fn setup(script: serde_json::Value) -> (Scratch, Arc<Engine>) {
    let ws = Scratch::bare();
    ws.write("a.fk", "@error(old)\n");
    let mut config = Config::default();
    config
        .servers
        .insert("fake".into(), FakeServer::new(script).to_override());
    let engine = support::engine(&ws.root, config);
    (ws, engine)
}

/// Open a session over `sub/a.fk` and `f.fk`, then swap the directory
/// `sub/` and the file `f.fk` for symbolic links to files outside the
/// workspace holding the same bytes: the commit wrote the outside files.
/// It is refused, nothing written on either side.
// Unix only: a symbolic link on Windows needs a privilege.
#[cfg(unix)]
#[test]
fn a_commit_through_a_swapped_symlink_is_refused() {
    let ws = Workspace::pull();
    ws.write("sub/a.fk", "a\n");
    ws.write("f.fk", "f\n");
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(outside.path().join("sub")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(outside.path().join("sub/a.fk"), "a\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(outside.path().join("f.fk"), "f\n").unwrap_or_else(|e| panic!("{e}"));
    let mut svc = Service::start(&ws);
    let opened = svc.ok(
        "squiggle/sessionOpen",
        json!({"paths": ["sub/a.fk", "f.fk"]}),
    );
    let id = opened["session"].clone();
    svc.ok(
        "squiggle/sessionEdit",
        json!({"session": id, "edits": [
            {"filePath": "sub/a.fk", "content": "A\n"},
            {"filePath": "f.fk", "content": "F\n"},
        ]}),
    );
    std::fs::remove_dir_all(ws.root.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(ws.root.join("f.fk")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(outside.path().join("sub"), ws.root.join("sub"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(outside.path().join("f.fk"), ws.root.join("f.fk"))
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = svc.err("squiggle/sessionCommit", json!({"session": id}));
    let text = refused["message"].as_str().unwrap_or_default();
    assert!(text.contains("no longer leads to the file"), "{refused}");
    let read = |p: &str| std::fs::read_to_string(outside.path().join(p)).unwrap_or_default();
    assert_eq!(
        (read("sub/a.fk"), read("f.fk")),
        ("a\n".into(), "f\n".into())
    );
}

/// An edit that arrived while the session's commit ran was answered "1
/// edit(s) applied" and then lost with the session. It is refused.
#[tokio::test]
async fn an_edit_waiting_on_a_commit_is_refused_not_lost() {
    // The commit's check waits on the server: room for the edit to arrive.
    let (ws, engine) = setup(json!({"publishDelayMs": 300}));
    let a = ws.root.join("a.fk");
    let id = engine
        .session_open(me(), &["a.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    let first = [replace("a.fk", "@error(old)", "committed")];
    engine
        .session_edit(me(), &id, &first, false)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let commit = {
        let (engine, id) = (engine.clone(), id.clone());
        tokio::spawn(async move { engine.session_commit(me(), &id).await })
    };
    // The commit has written: it runs its check now, holding the session.
    let a_now = a.clone();
    tokio::task::spawn_blocking(move || {
        support::poll_until(Duration::from_secs(60), || {
            std::fs::read_to_string(&a_now).is_ok_and(|t| t == "committed\n")
        })
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let late = [replace("a.fk", "committed", "late")];
    let edited = engine.session_edit(me(), &id, &late, false).await;
    let committed = commit.await.unwrap_or_else(|e| panic!("{e}"));
    assert!(committed.is_ok(), "{committed:?}");
    assert!(
        matches!(
            edited,
            Err(SessionError::Closed { .. } | SessionError::Unknown { .. })
        ),
        "{edited:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&a).unwrap_or_default(),
        "committed\n"
    );
    engine.shutdown().await;
}

/// A caller that hangs up during an evaluation (its future dropped) left
/// the session's text on the servers. The evaluation ends whole: when the
/// servers are free again, each holds the disk's text.
#[tokio::test]
async fn a_cancelled_evaluation_gives_the_servers_the_disk_back() {
    let (ws, engine) = setup(json!({"publishDelayMs": 300}));
    let a = ws.root.join("a.fk");
    let canonical = a.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let id = engine
        .session_open(me(), &["a.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    let edit = [replace("a.fk", "@error(old)", "@error(speculative)")];
    let shown = || {
        engine.pool().clients().iter().any(|c| {
            c.document(&canonical)
                .is_some_and(|(_, t)| t.contains("speculative"))
        })
    };
    {
        let evaluation = engine.session_edit(me(), &id, &edit, true);
        tokio::pin!(evaluation);
        // Hang up once the servers hold the session's text.
        loop {
            tokio::select! {
                answered = &mut evaluation => panic!("answered before the hang-up: {answered:?}"),
                () = tokio::task::yield_now() => {}
            }
            if shown() {
                break;
            }
        }
    }
    // The servers free again: the evaluation, whole or not, has ended.
    drop(engine.sessions().gate().shared().await);
    assert!(!shown(), "a server still holds the session's text");
    engine.shutdown().await;
}

/// A session over a file past the bound is refused before the file is
/// read: `serve`'s peak memory stays far below the file's size (it read
/// the 190 MiB file whole, and copied it, before the check: 609 MB).
// Linux only: the peak is read from /proc.
#[cfg(target_os = "linux")]
#[test]
fn a_file_past_the_session_bound_is_refused_unread() {
    const MIB: u64 = 1024 * 1024;
    let ws = Workspace::pull();
    let big = std::fs::File::create(ws.root.join("big.fk")).unwrap_or_else(|e| panic!("{e}"));
    // Sparse: 190 MiB of zero bytes (valid UTF-8) that cost no disk.
    big.set_len(190 * MIB).unwrap_or_else(|e| panic!("{e}"));
    drop(big);
    let mut svc = Service::start(&ws);
    let refused = svc.err("squiggle/sessionOpen", json!({"paths": ["big.fk"]}));
    let text = refused["message"].as_str().unwrap_or_default();
    assert!(text.contains("maxEditedMiB"), "{refused}");
    let status = std::fs::read_to_string(format!("/proc/{}/status", svc.child.id()))
        .unwrap_or_else(|e| panic!("{e}"));
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"));
    assert!(peak_kb * 1024 < 64 * MIB, "peak RSS {peak_kb} kB");
}
