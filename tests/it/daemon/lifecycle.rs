//! The daemon's life, with the real binary and the scripted fake server:
//! auto-start and reuse, `daemon stop`, idling out, two starters racing, a
//! stale socket file, file permissions, and a daemon killed mid-request
//! (the client must fail fast so callers fall back to in-process checks).

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::json;
use squiggle::daemon::client::{self, Options, alive};
use squiggle::engine::Mutation;

use crate::support;
use crate::support::process::Reaper;
use crate::support::service::Workspace;

fn options(ws: &Workspace, idle_ms: Option<u64>) -> Options {
    let mut env = vec![("XDG_CONFIG_HOME".into(), ws.config_home.clone().into())];
    if let Some(ms) = idle_ms {
        env.push(("SQUIGGLE_DAEMON_IDLE_MS".into(), ms.to_string().into()));
    }
    Options {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_squiggle")),
        trust_workspace: true,
        runtime_dir: Some(ws.runtime_dir.clone()),
        env,
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `squiggle daemon status --json` for the trusted daemon.
fn status_json(ws: &Workspace) -> serde_json::Value {
    let out = ws.daemon(&["status", "--json", "--trust-workspace"]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("daemon status --json: {e}"))
}

#[tokio::test]
async fn starts_on_demand_reuses_servers_and_stops() {
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(first)\n");
    let opts = options(&ws, None);
    let first = client::check_with(&ws.root, vec!["a.fk".into()], Mutation::Edit, &opts)
        .await
        .unwrap_or_else(|e| panic!("check: {e}"));
    assert_eq!(first.diagnostics[0].diagnostic.message, "first");
    assert!(
        first.feedback.contains("ERROR [1:1] first"),
        "{}",
        first.feedback
    );
    ws.write("a.fk", "@error(second)\n");
    let second = client::check_with(&ws.root, vec![ws.root.join("a.fk")], Mutation::Write, &opts)
        .await
        .unwrap_or_else(|e| panic!("check: {e}"));
    assert_eq!(second.diagnostics[0].diagnostic.message, "second");

    let status = client::status(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("status: {e}"));
    let _reaper = Reaper(status.pid);
    assert_eq!(status.workspace, ws.root);
    assert_eq!(status.requests, 3, "two checks and this status");
    let fake = status.servers.iter().find(|s| s.id == "fake");
    let fake = fake.unwrap_or_else(|| panic!("no fake in {:?}", status.servers));
    assert_eq!((fake.status.as_str(), fake.starts), ("active", 1));

    let (_, paths) = opts.locate(&ws.root).unwrap_or_else(|e| panic!("{e}"));
    // Unix: the directory and the socket are the user's alone by mode. On
    // Windows the endpoint is a token file (tests/it/platform/transport.rs).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &PathBuf| {
            std::fs::metadata(p)
                .map(|m| m.permissions().mode() & 0o777)
                .ok()
        };
        assert_eq!(mode(&paths.dir), Some(0o700));
        assert_eq!(mode(&paths.socket), Some(0o600));
    }
    assert_eq!(paths.dir, ws.runtime_dir.join("squiggle"));

    let text = stdout(&ws.daemon(&["status", "--trust-workspace"]));
    assert!(
        text.contains(&format!("pid        {}", status.pid)),
        "{text}"
    );
    // The machine-readable form: the pool and each live instance's memory
    // and idle time (benchmarks read it).
    let json = status_json(&ws);
    assert_eq!(json["running"], true, "{json}");
    assert_eq!(json["pid"], status.pid, "{json}");
    assert!(json["rssKb"].as_u64().is_some_and(|kb| kb > 0), "{json}");
    let pool = &json["pool"];
    assert_eq!(
        (pool["live"].as_u64(), pool["cap"].as_u64()),
        (Some(1), Some(8)),
        "{json}"
    );
    assert_eq!(pool["overCapMoments"], 0, "{json}");
    let fake = json["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == "fake"));
    let fake = fake.unwrap_or_else(|| panic!("no fake in {json}"));
    assert!(fake["rssKb"].as_u64().is_some_and(|kb| kb > 0), "{json}");
    assert!(fake["idleMs"].is_u64() && fake["inFlight"] == 0, "{json}");
    assert_eq!(fake["openDocuments"], 1, "{json}");

    let out = ws.daemon(&["stop", "--trust-workspace"]);
    let text = stdout(&out);
    assert!(out.status.success() && text.contains("stopped"), "{text}");
    assert!(!alive(status.pid), "stop waits for the exit");
    assert!(!paths.socket.exists());

    let text = stdout(&ws.daemon(&["status", "--trust-workspace"]));
    assert_eq!(text.trim(), format!("no daemon for {}", ws.root.display()));
    let json = status_json(&ws);
    assert_eq!(json["running"], false, "{json}");
}

#[tokio::test]
async fn cli_start_then_idle_exit() {
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(e)\n");
    let out = ws
        .command(&["daemon", "start", "--trust-workspace", "--root"])
        .arg(&ws.root)
        .env("SQUIGGLE_DAEMON_IDLE_MS", "400")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("running (pid"),
        "{text}"
    );
    let opts = options(&ws, None);
    let status = client::status(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("status: {e}"));
    let _reaper = Reaper(status.pid);
    assert_eq!(status.idle_timeout_ms, 400);
    let (_, paths) = opts.locate(&ws.root).unwrap_or_else(|e| panic!("{e}"));
    let exited = support::poll_until_async(Duration::from_secs(10), || !alive(status.pid)).await;
    assert!(exited, "timed out waiting until the idle daemon exits");
    assert!(!paths.socket.exists(), "an idle daemon removes its socket");
}

#[tokio::test]
async fn racing_starters_share_one_daemon() {
    let ws = Workspace::pull();
    let opts = options(&ws, None);
    let (a, b) = tokio::join!(
        client::try_connect_or_spawn(&ws.root, &opts),
        client::try_connect_or_spawn(&ws.root, &opts)
    );
    let (mut a, mut b) = (
        a.unwrap_or_else(|e| panic!("a: {e}")),
        b.unwrap_or_else(|e| panic!("b: {e}")),
    );
    let pid_a = a
        .status()
        .await
        .map(|s| s.pid)
        .unwrap_or_else(|e| panic!("{e}"));
    let _reaper = Reaper(pid_a);
    let pid_b = b
        .status()
        .await
        .map(|s| s.pid)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pid_a, pid_b);
    client::stop(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("stop: {e}"));
}

/// Unix only: a socket file is Unix's endpoint. Windows' is a file naming a
/// loopback port and a token, whose stale case (a dead pid, a port that
/// does not answer) is `platform::transport::tcp`'s unit test, run under
/// wine.
#[cfg(unix)]
#[tokio::test]
async fn a_stale_socket_file_is_replaced() {
    let ws = Workspace::pull();
    let opts = options(&ws, None);
    let (_, paths) = opts.locate(&ws.root).unwrap_or_else(|e| panic!("{e}"));
    squiggle::daemon::socket::ensure_private_dir(&paths.dir).unwrap_or_else(|e| panic!("{e}"));
    // The stale socket is bound by a process that then exits: a listener
    // bound and dropped here would live on, still listening, in any child
    // another test forks in between (until its exec closes it), and the
    // client would connect to that instead of starting a daemon.
    let bound = std::process::Command::new("python3")
        .args([
            "-c",
            "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])",
        ])
        .arg(&paths.socket)
        .status()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    assert!(
        bound.success(),
        "python3 could not bind {}",
        paths.socket.display()
    );
    assert!(paths.socket.exists(), "a socket file nobody listens on");
    let mut connection = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("start over a stale socket: {e}"));
    let pid = connection
        .status()
        .await
        .map(|s| s.pid)
        .unwrap_or_else(|e| panic!("{e}"));
    let _reaper = Reaper(pid);
    client::stop(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("stop: {e}"));
}

#[tokio::test]
async fn a_killed_daemon_fails_the_check_fast() {
    let ws = Workspace::new(json!({"diagnosticMode": "pull", "pullDelayMs": 5000}));
    ws.write("a.fk", "@error(slow)\n");
    let opts = options(&ws, None);
    let mut watcher = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("start: {e}"));
    let pid = watcher
        .status()
        .await
        .map(|s| s.pid)
        .unwrap_or_else(|e| panic!("{e}"));
    let _reaper = Reaper(pid);
    let check = {
        let (root, opts) = (ws.root.clone(), opts.clone());
        tokio::spawn(async move {
            let result =
                client::check_with(&root, vec!["a.fk".into()], Mutation::Edit, &opts).await;
            (result, Instant::now())
        })
    };
    // Wait until the check is inside the daemon (it and this status in flight).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = watcher.status().await.unwrap_or_else(|e| panic!("{e}"));
        if status.in_flight >= 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the check never reached the daemon"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    crate::support::process::kill(pid);
    let killed = Instant::now();
    let (result, ended) = check.await.unwrap_or_else(|e| panic!("{e}"));
    assert!(result.is_err(), "{result:?}");
    assert!(
        ended.duration_since(killed) < Duration::from_secs(2),
        "the failure was slow"
    );
}
