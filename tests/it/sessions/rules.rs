//! The rules of sessions, against the scripted fake (its diagnostics are
//! the `@error(…)` markers of the text it was sent): the limits and the
//! refusals that name them, idle expiry, all-or-none edits, patches over
//! the session's files, and the gate: a check that arrives while a
//! session's evaluation has the servers waits for it, and reads the disk.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use squiggle::config::Config;
use squiggle::engine::{Engine, FileInput, HeldOthers};
use squiggle::sessions::{Edit, SessionError};

use super::{me, replace, stamp};
use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;

fn setup(tweak: impl FnOnce(&mut Config)) -> (Scratch, Arc<Engine>) {
    let ws = Scratch::bare();
    ws.write("a.fk", "@error(old)\n");
    ws.write("b.fk", "fine\n");
    let mut config = Config::default();
    let fake = FakeServer::new(json!({"publishDelayMs": 100}));
    config.servers.insert("fake".into(), fake.to_override());
    tweak(&mut config);
    let engine = support::engine(&ws.root, config);
    (ws, engine)
}

fn read(ws: &Scratch, name: &str) -> String {
    std::fs::read_to_string(ws.root.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
}

fn messages(e: &[squiggle::diagnostic::Diagnostic]) -> Vec<(&str, &str)> {
    e.iter()
        .map(|d| (d.file.as_str(), d.message.as_str()))
        .collect()
}

#[tokio::test]
async fn an_evaluation_reports_only_what_the_session_added() {
    let (ws, engine) = setup(|_| {});
    let id = engine
        .session_open(me(), &["a.fk".into(), "b.fk".into(), "new.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    let edits = [
        replace("a.fk", "@error(old)", "@error(old) @error(mine)"),
        Edit::Write {
            path: "new.fk".into(),
            content: "@error(created)\n".into(),
        },
        Edit::Patch {
            patch: "--- a/b.fk\n+++ b/b.fk\n@@ -1 +1 @@\n-fine\n+@warning(careful)\n".into(),
        },
    ];
    let answer = engine
        .session_edit(me(), &id, &edits, true)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        messages(&answer.new_errors),
        [("a.fk", "mine"), ("new.fk", "created")]
    );
    let states: Vec<(&str, bool, bool)> = answer
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.changed, f.created))
        .collect();
    assert_eq!(
        states,
        [
            ("a.fk", true, false),
            ("b.fk", true, false),
            ("new.fk", true, true)
        ]
    );
    assert!(!ws.root.join("new.fk").exists());
    let commit = engine
        .session_commit(me(), &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        commit.message.contains("3 file(s) written"),
        "{}",
        commit.message
    );
    assert_eq!(read(&ws, "new.fk"), "@error(created)\n");
    assert_eq!(read(&ws, "b.fk"), "@warning(careful)\n");
    engine.shutdown().await;
}

#[tokio::test]
async fn refusals_name_the_problem_and_change_nothing() {
    let (ws, engine) = setup(|c| {
        c.sessions.max_open = 2;
        c.sessions.max_bytes = 64;
    });
    let one = engine
        .session_open(me(), &["a.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    engine
        .session_open(me(), &["b.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let err = |r: Result<_, SessionError>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        err(engine.session_open(me(), &["b.fk".into()]).await),
        "2 sessions are open, the most lsp.sessions.maxOpen allows; commit or discard one first"
    );
    let big = Edit::Write {
        path: "a.fk".into(),
        content: "x".repeat(100),
    };
    assert_eq!(
        err(engine.session_edit(me(), &one, &[big], false).await),
        // 100 bytes of new text and the 12 of the disk's it opened with.
        "session s1 would hold 112 bytes of text, over the 64 bytes lsp.sessions.maxEditedMiB allows; nothing was changed"
    );
    // All or none: the second edit fails, so the first is not kept.
    let edits = [
        replace("a.fk", "old", "new"),
        replace("a.fk", "absent", "x"),
    ];
    let refused = err(engine.session_edit(me(), &one, &edits, false).await);
    assert!(
        refused.starts_with("a.fk: old_string not found"),
        "{refused}"
    );
    assert!(refused.ends_with("; the session is unchanged"), "{refused}");
    let outside = err(engine
        .session_edit(me(), &one, &[replace("b.fk", "fine", "x")], false)
        .await);
    assert_eq!(
        outside,
        "b.fk is not in session s1 (it holds a.fk); open a session over every file the change touches"
    );
    let delete = Edit::Patch {
        patch: "*** Begin Patch\n*** Delete File: a.fk\n*** End Patch\n".into(),
    };
    let refused = err(engine.session_edit(me(), &one, &[delete], false).await);
    assert!(
        refused.contains("a session cannot delete or rename files"),
        "{refused}"
    );
    let evaluated = engine
        .session_evaluate(me(), &one)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(evaluated.new_errors.is_empty());
    assert!(evaluated.files.iter().all(|f| !f.changed));
    assert_eq!(
        err(engine.session_evaluate(me(), "s9").await),
        "no session s9 is open to this client (it has s1, s2); a session belongs to the connection or MCP session that opened it, and is discarded when that ends or after 30 minutes untouched"
    );
    assert_eq!(read(&ws, "a.fk"), "@error(old)\n");
    engine.shutdown().await;
}

#[tokio::test]
async fn an_idle_session_is_discarded_at_the_next_call() {
    let (_ws, engine) = setup(|c| c.sessions.idle = Duration::ZERO);
    let id = engine
        .session_open(me(), &["a.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    assert!(matches!(
        engine.session_evaluate(me(), &id).await,
        Err(SessionError::Unknown { .. })
    ));
    assert!(engine.sessions().ids(me()).is_empty());
    engine.shutdown().await;
}

#[tokio::test]
async fn a_check_during_an_evaluation_waits_for_it_and_reads_the_disk() {
    let (ws, engine) = setup(|_| {});
    let a = ws.root.join("a.fk");
    let before = stamp(&a);
    let id = engine
        .session_open(me(), &["a.fk".into()])
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    let edit = [replace("a.fk", "@error(old)", "@error(speculative)")];
    // The evaluation is polled first: it holds the servers before the
    // check asks for them.
    let (evaluated, checked) = tokio::join!(
        engine.session_edit(me(), &id, &edit, true),
        engine.check_files(vec![FileInput::on_disk(&a)], HeldOthers::Skip),
    );
    let evaluated = evaluated.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(messages(&evaluated.new_errors), [("a.fk", "speculative")]);
    assert_eq!(messages(&checked.files[0].diagnostics), [("a.fk", "old")]);
    assert_eq!(stamp(&a), before);
    engine.shutdown().await;
}
