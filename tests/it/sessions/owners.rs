//! A session belongs to the JSON-RPC connection that opened it: another
//! connection to the same daemon (or engine) is answered as for an id that
//! was never opened — it can neither evaluate, read, edit, commit nor
//! discard it, nor learn its id — and the session's own connection still
//! can. When the connection ends, its sessions are discarded.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::daemon::DaemonError;
use squiggle::daemon::client::{self, Connection, Options};
use squiggle::engine::Engine;
use squiggle::jsonrpc::framing::{FrameReader, write_frame};
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::process::Reaper;
use crate::support::scratch::Scratch;
use crate::support::service::{DEADLINE, Workspace};

/// The refusal a client gets for `id` when it has no session open.
pub fn unknown(id: &str) -> String {
    format!(
        "no session {id} is open to this client (it has none); a session belongs to the connection or MCP session that opened it, and is discarded when that ends or after 30 minutes untouched"
    )
}

/// Every call that names a session, as `(method, params)`.
fn session_calls(id: &str) -> Vec<(&'static str, Value)> {
    let edit = json!([{"filePath": "a.fk", "oldString": "@error(old)", "newString": "stolen"}]);
    vec![
        ("squiggle/sessionEvaluate", json!({"session": id})),
        (
            "squiggle/sessionEdit",
            json!({"session": id, "edits": edit}),
        ),
        (
            "squiggle/sessionChain",
            json!({"session": id, "edits": edit}),
        ),
        ("squiggle/sessionCommit", json!({"session": id})),
        ("squiggle/sessionDiscard", json!({"session": id})),
    ]
}

fn daemon_options(ws: &Workspace) -> Options {
    Options {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_squiggle")),
        trust_workspace: true,
        runtime_dir: Some(ws.runtime_dir.clone()),
        env: vec![("XDG_CONFIG_HOME".into(), ws.config_home.clone().into())],
    }
}

async fn call(c: &mut Connection, method: &str, params: Value) -> Result<Value, String> {
    match c.request(method, params, DEADLINE).await {
        Ok(value) => Ok(value),
        Err(DaemonError::Rpc { error, .. }) => Err(error.message),
        Err(e) => panic!("{method}: {e}"),
    }
}

/// Two clients of one daemon: the second is refused every call on the
/// first's session exactly as for an id never opened; the first evaluates
/// and commits it afterwards; once the first hangs up, the session it left
/// open no longer holds the one place `maxOpen = 1` allows.
#[tokio::test]
async fn another_daemon_client_cannot_reach_a_session() {
    let ws = Workspace::pull();
    let toml = std::fs::read_to_string(ws.root.join(".squiggle.toml")).unwrap_or_default();
    ws.write(
        ".squiggle.toml",
        &format!("{toml}\n[lsp.sessions]\nmaxOpen = 1\n"),
    );
    ws.write("a.fk", "@error(old)\n");
    let opts = daemon_options(&ws);
    let mut first = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("start the daemon: {e}"));
    let pid = first.status().await.unwrap_or_else(|e| panic!("{e}")).pid;
    let _reaper = Reaper(pid);
    let mut second = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));

    let opened = call(
        &mut first,
        "squiggle/sessionOpen",
        json!({"paths": ["a.fk"]}),
    )
    .await;
    let id = opened.unwrap_or_else(|e| panic!("{e}"))["session"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let edit =
        json!([{"filePath": "a.fk", "oldString": "@error(old)", "newString": "@error(mine)"}]);
    call(
        &mut first,
        "squiggle/sessionEdit",
        json!({"session": id, "edits": edit, "evaluate": false}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));

    // Its own unknown id lists none of the first client's sessions.
    let never = call(
        &mut second,
        "squiggle/sessionEvaluate",
        json!({"session": "s99"}),
    )
    .await;
    assert_eq!(never, Err(unknown("s99")));
    for (method, params) in session_calls(&id) {
        let refused = call(&mut second, method, params).await;
        assert_eq!(refused, Err(unknown(&id)), "{method}");
    }

    let evaluated = call(
        &mut first,
        "squiggle/sessionEvaluate",
        json!({"session": id}),
    )
    .await;
    let evaluated = evaluated.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(evaluated["newErrors"][0]["message"], "mine", "{evaluated}");
    call(&mut first, "squiggle/sessionCommit", json!({"session": id}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.fk")).unwrap_or_default(),
        "@error(mine)\n"
    );

    call(
        &mut first,
        "squiggle/sessionOpen",
        json!({"paths": ["a.fk"]}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    drop(first);
    // The daemon learns of the hang-up on its own time: nothing to wait on
    // but the room coming free.
    let until = Instant::now() + DEADLINE;
    let reopened = loop {
        let tried = call(
            &mut second,
            "squiggle/sessionOpen",
            json!({"paths": ["a.fk"]}),
        )
        .await;
        if tried.is_ok() || Instant::now() >= until {
            break tried;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(reopened.is_ok(), "{reopened:?}");
    let stopped = ws.daemon(&["stop", "--trust-workspace"]);
    assert!(stopped.status.success(), "{}", support::both(&stopped));
}

/// One end of an in-process `serve` connection to a shared engine.
struct Peer {
    reader: FrameReader<BufReader<ReadHalf<DuplexStream>>>,
    writer: Option<WriteHalf<DuplexStream>>,
    served: tokio::task::JoinHandle<std::io::Result<squiggle::service::ConnectionEnd>>,
    next: i64,
}

impl Peer {
    fn serve(engine: &Arc<Engine>) -> Peer {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        let served = tokio::spawn(squiggle::service::serve_connection(
            engine.clone(),
            their_read,
            their_write,
        ));
        let (read, write) = tokio::io::split(ours);
        Peer {
            reader: FrameReader::new(BufReader::new(read)),
            writer: Some(write),
            served,
            next: 0,
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next += 1;
        let request =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let writer = self.writer.as_mut().unwrap_or_else(|| panic!("closed"));
        write_frame(writer, request.to_string().as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        loop {
            let body = self.reader.read_frame().await;
            let body = body.ok().flatten().unwrap_or_else(|| panic!("no answer"));
            let reply: Value = serde_json::from_slice(&body).unwrap_or_default();
            if reply["id"] != self.next {
                continue;
            }
            return match reply.get("error") {
                Some(error) => Err(error["message"].as_str().unwrap_or_default().into()),
                None => Ok(reply["result"].clone()),
            };
        }
    }

    /// Ends its input and waits until the connection is over.
    async fn close(mut self) {
        if let Some(mut writer) = self.writer.take() {
            writer.shutdown().await.unwrap_or_else(|e| panic!("{e}"));
        }
        let ended = (&mut self.served).await.unwrap_or_else(|e| panic!("{e}"));
        assert!(ended.is_ok(), "{ended:?}");
    }
}

/// A connection that ends leaves no session behind: the one it opened no
/// longer holds the one place `maxOpen = 1` allows (it stayed until it
/// idled out, 30 minutes later).
#[tokio::test]
async fn a_closed_connection_s_sessions_are_discarded() {
    let ws = Scratch::bare();
    ws.write("a.fk", "@error(old)\n");
    let mut config = Config::default();
    let fake = FakeServer::new(json!({}));
    config.servers.insert("fake".into(), fake.to_override());
    config.sessions.max_open = 1;
    let engine = support::engine(&ws.root, config);
    let mut first = Peer::serve(&engine);
    let mut second = Peer::serve(&engine);
    let open = json!({"paths": ["a.fk"]});
    first
        .call("squiggle/sessionOpen", open.clone())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = second.call("squiggle/sessionOpen", open.clone()).await;
    assert!(
        refused.as_ref().is_err_and(|e| e.contains("maxOpen")),
        "{refused:?}"
    );
    first.close().await;
    let reopened = second.call("squiggle/sessionOpen", open).await;
    assert!(reopened.is_ok(), "{reopened:?}");
    second.close().await;
    engine.shutdown().await;
}
