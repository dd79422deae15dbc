//! Concurrency and soak against one daemon: many clients editing at once
//! (every call answered, every write intact, no deadlock, the daemon's fds
//! flat), the daemon killed in the middle of a check (the CLI falls back to
//! an in-process check) and of an edit (the edit has landed exactly once),
//! and starters racing to be the one daemon.
//!
//! `SQUIGGLE_SOAK_CLIENTS` and `SQUIGGLE_SOAK_EDITS` scale the first test
//! (default 8 × 50); `scripts/soak` runs it with 8 × 500 and 10 × 1,000.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use squiggle::daemon::client::{self, Options};

use crate::support::process::{Reaper, fds_within, open_fds, rss_kib};
use crate::support::service::Workspace;
#[cfg(target_os = "linux")]
use crate::support::{
    poll_until_async,
    process::{processes_in, subreaper},
};

/// How long one edit through the daemon may take, however loaded.
const CALL_DEADLINE: Duration = Duration::from_secs(30);

fn options(ws: &Workspace) -> Options {
    Options {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_squiggle")),
        trust_workspace: true,
        runtime_dir: Some(ws.runtime_dir.clone()),
        env: vec![("XDG_CONFIG_HOME".into(), ws.config_home.clone().into())],
    }
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_clients_against_one_daemon() {
    let clients = env_or("SQUIGGLE_SOAK_CLIENTS", 8);
    let edits = env_or("SQUIGGLE_SOAK_EDITS", 50);
    let ws = Workspace::pull();
    let slots: String = (0..clients).map(|c| format!("slot{c}=0\n")).collect();
    ws.write("shared.fk", &slots);
    for c in 0..clients {
        ws.write(&format!("c{c}.fk"), &format!("@error(c{c})\nEND\n"));
    }
    let opts = options(&ws);
    let mut watcher = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("start the daemon: {e}"));
    let pid = watcher
        .status()
        .await
        .unwrap_or_else(|e| panic!("status: {e}"))
        .pid;
    let _reaper = Reaper(pid);

    // Sample the daemon's RSS and fds while the clients run.
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            let started = Instant::now();
            while !done.load(Ordering::SeqCst) {
                samples.push((
                    started.elapsed().as_secs_f64(),
                    rss_kib(pid).unwrap_or(0),
                    open_fds(Some(pid)),
                ));
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            samples
        })
    };

    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..clients {
        let (root, opts) = (ws.root.clone(), opts.clone());
        tasks.spawn(async move {
            let mut connection = client::try_connect_or_spawn(&root, &opts)
                .await
                .unwrap_or_else(|e| panic!("client {c}: connect: {e}"));
            let mut slowest = Duration::ZERO;
            for i in 0..edits {
                let (file, old, new) = if i % 2 == 0 {
                    (
                        format!("c{c}.fk"),
                        "END".to_string(),
                        format!("line{i}\nEND"),
                    )
                } else {
                    let slot = format!("slot{c}={}\n", i / 2);
                    (
                        "shared.fk".to_string(),
                        slot,
                        format!("slot{c}={}\n", i / 2 + 1),
                    )
                };
                let params = json!({"filePath": file, "oldString": old, "newString": new});
                let call = Instant::now();
                let reply = connection
                    .request("squiggle/edit", params, CALL_DEADLINE)
                    .await
                    .unwrap_or_else(|e| panic!("client {c}, edit {i}: {e}"));
                slowest = slowest.max(call.elapsed());
                assert_eq!(
                    reply["message"], "Edit applied successfully.",
                    "client {c}, edit {i}: {reply}"
                );
                if i % 2 == 0 {
                    let messages: Vec<&str> = reply["diagnostics"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|d| d["message"].as_str())
                        .collect();
                    assert_eq!(messages, [format!("c{c}")], "client {c}, edit {i}: {reply}");
                }
            }
            slowest
        });
    }
    let mut slowest = Duration::ZERO;
    while let Some(joined) = tasks.join_next().await {
        slowest = slowest.max(joined.unwrap_or_else(|e| panic!("a client failed: {e}")));
    }
    let took = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let samples = sampler.await.unwrap_or_default();

    for c in 0..clients {
        let lines: String = (0..edits)
            .step_by(2)
            .map(|i| format!("line{i}\n"))
            .collect();
        let expected = format!("@error(c{c})\n{lines}END\n");
        let got = std::fs::read_to_string(ws.root.join(format!("c{c}.fk"))).unwrap_or_default();
        assert_eq!(got, expected, "client {c}'s file");
    }
    let shared: String = (0..clients)
        .map(|c| format!("slot{c}={}\n", edits / 2))
        .collect();
    let got = std::fs::read_to_string(ws.root.join("shared.fk")).unwrap_or_default();
    assert_eq!(got, shared, "the shared file lost an edit");

    let status = watcher.status().await.unwrap_or_else(|e| panic!("{e}"));
    let total = clients * edits;
    assert_eq!(status.requests as usize, total + 2, "{status:?}");
    println!(
        "soak: {clients} clients × {edits} edits = {total} in {:.1} s ({:.0} edits/s), slowest call {} ms",
        took.as_secs_f64(),
        total as f64 / took.as_secs_f64(),
        slowest.as_millis()
    );
    println!("soak: t(s)  rss(KiB)  fds");
    let step = (samples.len() / 12).max(1);
    for (t, rss, fds) in samples.iter().step_by(step) {
        println!("soak: {t:5.1}  {rss:8}  {fds:?}");
    }
    // Flat: the fds after the run are those of the connections, no more.
    if let (Some(first), Some(last)) = (samples.get(step.min(samples.len() - 1)), samples.last()) {
        assert!(
            fds_within(last.2, first.2, 2),
            "the daemon's fds grew from {:?} to {:?}",
            first.2,
            last.2
        );
    }
    client::stop(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("stop: {e}"));
}

/// Waits until the daemon has a request in flight besides the status call.
async fn wait_in_flight(watcher: &mut client::Connection) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = watcher.status().await.unwrap_or_else(|e| panic!("{e}"));
        if status.in_flight >= 2 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the request never reached the daemon"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_daemon_killed_mid_check_falls_back_in_process() {
    let ws = Workspace::new(json!({"diagnosticMode": "pull", "pullDelayMs": 1500}));
    ws.write("a.fk", "@error(slow)\n");
    let opts = options(&ws);
    let mut watcher = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("start: {e}"));
    let pid = watcher
        .status()
        .await
        .map(|s| s.pid)
        .unwrap_or_else(|e| panic!("{e}"));
    let _reaper = Reaper(pid);
    let cli = ws
        .command(&["check", "--trust-workspace", "a.fk"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn squiggle check: {e}"));
    wait_in_flight(&mut watcher).await;
    crate::support::process::kill(pid);
    let killed = Instant::now();
    let out = tokio::task::spawn_blocking(move || cli.wait_with_output())
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("slow"), "{stdout}");
    let took = killed.elapsed();
    assert!(
        took < Duration::from_millis(1500) + Duration::from_secs(4),
        "the fallback took {took:?}"
    );
}

#[tokio::test]
async fn a_daemon_killed_mid_edit_leaves_the_edit_landed_once() {
    let ws = Workspace::new(json!({"diagnosticMode": "pull", "pullDelayMs": 3000}));
    let path = ws.write("a.fk", "before\n");
    let opts = options(&ws);
    let mut watcher = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("start: {e}"));
    let pid = watcher
        .status()
        .await
        .map(|s| s.pid)
        .unwrap_or_else(|e| panic!("{e}"));
    let _reaper = Reaper(pid);
    let mut editor = client::try_connect_or_spawn(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let edit = tokio::spawn(async move {
        let params = json!({"filePath": "a.fk", "oldString": "before", "newString": "after"});
        editor.request("squiggle/edit", params, CALL_DEADLINE).await
    });
    wait_in_flight(&mut watcher).await;
    // Kill it inside the diagnostics wait (the fake answers pulls after 3 s):
    // once the write is on disk, not between receiving the request and
    // writing, which on a loaded machine can take a while.
    let until = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&path).ok().as_deref() != Some("after\n") {
        assert!(Instant::now() < until, "the daemon never wrote the edit");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    crate::support::process::kill(pid);
    let killed = Instant::now();
    let result = edit.await.unwrap_or_else(|e| panic!("{e}"));
    assert!(result.is_err(), "{result:?}");
    assert!(
        killed.elapsed() < Duration::from_secs(2),
        "the failure was slow"
    );
    // The mutation is written before the diagnostics wait: it has landed,
    // once, and a blind retry is refused rather than applied twice.
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        Some("after\n")
    );
    let out = ws
        .command(&[
            "edit",
            "a.fk",
            "--old-string",
            "before",
            "--new-string",
            "after",
        ])
        .env("SQUIGGLE_NO_DAEMON", "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("old_string not found"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        Some("after\n")
    );
}

// Linux only: the daemons are counted by their working directory and
// command line in /proc, which no other platform has (every process's, not
// only the test's descendants: under qemu-user no subreaper adopts them). The start lock and
// the bind race themselves are the transport's, tested on every platform
// (tests/it/platform/transport.rs).
#[cfg(target_os = "linux")]
#[tokio::test]
async fn racing_daemons_leave_exactly_one() {
    subreaper();
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(race)\n");
    // Two `daemon run` at once: one binds, the other exits 0.
    let mut runs: Vec<_> = (0..2)
        .map(|_| {
            ws.command(&["daemon", "run", "--trust-workspace", "--root"])
                .arg(&ws.root)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("spawn: {e}"))
        })
        .collect();
    let opts = options(&ws);
    let one_left = poll_until_async(Duration::from_secs(10), || {
        let mut running = 0;
        for run in runs.iter_mut() {
            running += usize::from(matches!(run.try_wait(), Ok(None)));
        }
        running == 1
    })
    .await;
    assert!(one_left, "two racing daemons did not resolve to one");
    for run in &mut runs {
        if let Ok(Some(status)) = run.try_wait() {
            assert!(status.success(), "the loser exited with {status}");
        }
    }
    let status = client::status(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("status: {e}"));
    let _reaper = Reaper(status.pid);
    client::stop(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("stop: {e}"));
    for mut run in runs {
        let _ = run.wait();
    }

    // Six cold `squiggle check` at once: all answered, one daemon.
    let checks: Vec<_> = (0..6)
        .map(|_| {
            ws.command(&["check", "--trust-workspace", "a.fk"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("spawn: {e}"))
        })
        .collect();
    for check in checks {
        let out = check.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains("race"), "{stdout}");
    }
    let running = || -> Vec<u32> {
        processes_in(&ws.root)
            .into_iter()
            .filter(|p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains("daemon\0run"))
            })
            .collect()
    };
    // A daemon that lost the bind exits on its own, but on a loaded machine
    // it may still be on its way out when the last check has its answer:
    // wait (bounded) for the losers to be gone, then there must be one.
    let mut daemons = running();
    poll_until_async(Duration::from_secs(30), || {
        daemons = running();
        daemons.len() == 1
    })
    .await;
    let _losers: Vec<Reaper> = daemons.iter().skip(1).map(|&p| Reaper(p)).collect();
    assert_eq!(daemons.len(), 1, "daemons running: {daemons:?}");
    let _reaper = Reaper(daemons[0]);
    let status = client::status(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("status: {e}"));
    assert_eq!(status.pid, daemons[0]);
    client::stop(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("stop: {e}"));
}
