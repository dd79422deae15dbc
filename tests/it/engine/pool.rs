//! The instance lifecycle, driven through the engine against the
//! scripted fake server: one instance per package (a directory holding
//! `fk.root`), at most `max_instances_per_server` live, the least recently
//! used idle one evicted, never one a check holds; over the cap when every
//! instance is busy, and back under it as checks end; idle instances and
//! documents stopped and closed; and after each, the answer still current
//! and no server process left behind. Waits end on the pool's own events
//! (`Pool::changes`, `Pool::wait_stops`), not on sleeps.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use squiggle::config::{Config, FileKind, parse_str};
use squiggle::diagnostic::Outcome;
use squiggle::engine::HeldOthers;
use squiggle::engine::pool::{Checkout, MAX_OPEN_DOCUMENTS, StopReason};
use squiggle::engine::tools::Mode;
use squiggle::engine::{Engine, FileInput, InstanceStatus, ServerState};

use crate::support;
use crate::support::fake_server::{FakeServer, logged, started_pids};
use crate::support::scratch::Scratch;

/// A scratch workspace whose packages `p0`, `p1`, … each hold `fk.root`
/// and `a.fk`; the fakes log beside it.
struct Monorepo {
    _scratch: Scratch,
    root: PathBuf,
    log: PathBuf,
}

impl Monorepo {
    /// A workspace with `packages` packages `p0`, `p1`, … each with `a.fk`.
    fn new(packages: usize) -> Monorepo {
        let scratch = Scratch::bare();
        for p in 0..packages {
            scratch.write(&format!("p{p}/fk.root"), "");
            scratch.write(&format!("p{p}/a.fk"), &format!("@error(first in p{p})\n"));
        }
        Monorepo {
            root: scratch.root.clone(),
            log: scratch.outer.join("fake-log.jsonl"),
            _scratch: scratch,
        }
    }

    fn file(&self, package: usize) -> PathBuf {
        self.root.join(format!("p{package}")).join("a.fk")
    }

    fn package(&self, package: usize) -> PathBuf {
        self.root.join(format!("p{package}"))
    }

    fn engine(&self, tweak: impl FnOnce(&mut Config)) -> Arc<Engine> {
        let fake = FakeServer::new(json!({ "logFile": self.log.display().to_string() }))
            .root_markers(&["fk.root"]);
        let mut config = Config::default();
        config.servers.insert("fake".into(), fake.to_override());
        // No reaping unless a test asks for it.
        config.server_idle = Duration::ZERO;
        config.document_idle = Duration::ZERO;
        tweak(&mut config);
        support::engine(&self.root, config)
    }

    /// Every fake server process started so far (from the fake's log).
    fn pids(&self) -> Vec<u32> {
        started_pids(&self.log)
    }

    /// How many `didClose` the fake servers received.
    fn closes(&self) -> usize {
        logged(&self.log)
            .iter()
            .filter(|v| v["dir"] == "in" && v["msg"]["method"] == "textDocument/didClose")
            .count()
    }

    /// Shuts the engine down; then not one fake server may be left.
    async fn finish(&self, engine: &Engine) {
        engine.shutdown().await;
        let pids = self.pids();
        assert!(!pids.is_empty(), "the fake never started");
        for pid in pids {
            assert!(
                !support::process_exists(pid),
                "fake server {pid} outlived the engine"
            );
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Checks one package's file on disk; asserts the fake answered with the
/// file's current marker.
async fn check(engine: &Arc<Engine>, repo: &Monorepo, package: usize, expect: &str) {
    let report = engine
        .check_files(
            vec![FileInput::on_disk(repo.file(package))],
            HeldOthers::Skip,
        )
        .await;
    let file = &report.files[0];
    assert!(
        file.outcomes.iter().all(|o| o.outcome == Outcome::Settled),
        "p{package}: {:?}",
        file.outcomes
    );
    let messages: Vec<&str> = file
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages, [expect], "p{package}");
}

fn instance(engine: &Engine, repo: &Monorepo, package: usize) -> InstanceStatus {
    let root = repo.package(package);
    engine
        .pool()
        .statuses()
        .into_iter()
        .find(|s| s.root == root)
        .unwrap_or_else(|| panic!("no instance for p{package}"))
}

/// Holds p`package`'s instance as a check in flight would.
async fn hold(engine: &Arc<Engine>, repo: &Monorepo, package: usize) -> Checkout {
    let server = &engine.servers().iter().find(|s| s.spec.id == "fake");
    let Some(server) = server else {
        panic!("no fake server configured")
    };
    let held = engine
        .pool()
        .checkout(
            server,
            &repo.package(package),
            &repo.root,
            Duration::from_secs(30),
        )
        .await;
    held.unwrap_or_else(|e| panic!("checkout p{package}: {}", e.reason))
}

/// Waits (bounded, on the pool's change events) until `done` holds.
async fn until(engine: &Engine, what: &str, done: impl Fn(&Engine) -> bool) {
    let mut changes = engine.pool().changes();
    let waited = tokio::time::timeout(Duration::from_secs(30), async {
        while !done(engine) {
            if changes.changed().await.is_err() {
                return;
            }
        }
    })
    .await;
    assert!(
        waited.is_ok() && done(engine),
        "gave up waiting until {what}"
    );
}

/// Three packages under a cap of `cap` instances, p0 checked and then held
/// as a check in flight would hold it.
async fn p0_held(cap: usize) -> (Monorepo, Arc<Engine>, Checkout) {
    let repo = Monorepo::new(3);
    let engine = repo.engine(|c| c.max_instances_per_server = cap);
    check(&engine, &repo, 0, "first in p0").await;
    let held = hold(&engine, &repo, 0).await;
    (repo, engine, held)
}

#[tokio::test]
async fn the_cap_evicts_the_least_recently_used_idle_instance_never_a_busy_one() {
    // p0 is held first, so it is the least recently used of the two, and busy.
    let (repo, engine, held) = p0_held(2).await;
    let p0 = held.client.pid().expect("a spawned server has a pid");
    check(&engine, &repo, 1, "first in p1").await;
    let p1 = instance(&engine, &repo, 1).server_pid;

    check(&engine, &repo, 2, "first in p2").await;
    engine.pool().wait_stops().await;

    let summary = engine.pool().summary();
    assert_eq!((summary.live, summary.evictions), (2, 1), "{summary:?}");
    assert_eq!(summary.over_cap_moments, 0, "{summary:?}");
    let evicted = instance(&engine, &repo, 1);
    assert_eq!(evicted.status, ServerState::Stopped);
    assert_eq!(evicted.stopped, Some(StopReason::Evicted));
    let Some(p1) = p1 else {
        panic!("p1 had no pid")
    };
    assert!(
        !support::process_exists(p1),
        "the evicted server still runs"
    );
    let busy = instance(&engine, &repo, 0);
    assert_eq!(
        (busy.status, busy.server_pid),
        (ServerState::Active, Some(p0))
    );
    assert!(held.client.is_alive(), "the held instance was stopped");
    drop(held);
    repo.finish(&engine).await;
}

#[tokio::test]
async fn every_instance_busy_goes_over_the_cap_and_comes_back_under() {
    let (repo, engine, held) = p0_held(1).await;
    let held_too = hold(&engine, &repo, 1).await;
    assert_eq!(
        engine.pool().summary().live,
        2,
        "over the cap rather than blocked"
    );

    // Neither blocked nor failed: answered, over the cap.
    check(&engine, &repo, 2, "first in p2").await;
    let summary = engine.pool().summary();
    assert_eq!(summary.over_cap_moments, 2, "{summary:?}");
    assert_eq!(summary.max_over_cap, 2, "{summary:?}");
    // p2's check has ended: it was the idle one, so it went first.
    assert_eq!(summary.live, 2, "{summary:?}");
    assert_eq!(
        instance(&engine, &repo, 2).stopped,
        Some(StopReason::Evicted)
    );

    drop(held_too);
    assert_eq!(engine.pool().summary().live, 1, "back under the cap");
    assert_eq!(instance(&engine, &repo, 0).status, ServerState::Active);
    drop(held);
    engine.pool().wait_stops().await;
    assert_eq!(engine.pool().summary().live, 1);
    repo.finish(&engine).await;
}

#[tokio::test]
async fn an_evicted_instance_restarts_on_demand_without_spending_the_crash_budget() {
    let repo = Monorepo::new(2);
    let engine = repo.engine(|c| c.max_instances_per_server = 1);
    // Five switches: each evicts the other package's instance.
    for round in 0..5 {
        let package = round % 2;
        let path = repo.file(package);
        let text = format!("@error(round {round})\n");
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let edited = support::edit_applied(&engine, &path, old.trim_end(), text.trim_end()).await;
        assert!(
            edited.text().contains(&format!("round {round}")),
            "round {round}: {}",
            edited.text()
        );
        assert_eq!(engine.pool().summary().live, 1);
    }
    engine.pool().wait_stops().await;
    let p0 = instance(&engine, &repo, 0);
    assert_eq!(p0.starts, 3, "{p0:?}");
    assert_eq!(p0.status, ServerState::Active, "{p0:?}");
    let p1 = instance(&engine, &repo, 1);
    assert_eq!((p1.starts, p1.status), (2, ServerState::Stopped), "{p1:?}");
    assert_eq!(engine.pool().summary().evictions, 4);
    repo.finish(&engine).await;
}

#[tokio::test]
async fn an_idle_instance_is_stopped_and_the_next_edit_is_still_current() {
    let repo = Monorepo::new(1);
    let engine = repo.engine(|c| c.server_idle = Duration::from_millis(50));
    check(&engine, &repo, 0, "first in p0").await;
    // From the fake's log: the instance may already be stopped.
    let Some(&pid) = repo.pids().first() else {
        panic!("no fake started")
    };
    until(&engine, "the idle instance stops", |e| {
        e.pool().summary().idle_stops == 1
    })
    .await;
    engine.pool().wait_stops().await;
    assert!(!support::process_exists(pid), "the idle server still runs");
    let stopped = instance(&engine, &repo, 0);
    assert_eq!(stopped.stopped, Some(StopReason::Idle), "{stopped:?}");

    let path = repo.file(0);
    let edited = support::edit_applied(&engine, &path, "first in p0", "after the stop").await;
    assert!(
        edited.text().contains("after the stop"),
        "{}",
        edited.text()
    );
    assert!(!edited.text().contains("first in p0"), "{}", edited.text());
    let restarted = instance(&engine, &repo, 0);
    assert_eq!(restarted.starts, 2, "{restarted:?}");
    repo.finish(&engine).await;
}

#[tokio::test]
async fn idle_documents_are_closed_and_reopened_when_needed() {
    let repo = Monorepo::new(1);
    let (b, c) = (repo.package(0).join("b.fk"), repo.package(0).join("c.fk"));
    write(&b, "@error(in b)\n");
    write(&c, "@error(in c)\n");
    let engine = repo.engine(|c| c.document_idle = Duration::from_millis(50));
    let inputs = vec![FileInput::on_disk(repo.file(0)), FileInput::on_disk(&b)];
    let report = engine.check_files(inputs, HeldOthers::Skip).await;
    assert_eq!(report.files.len(), 2);
    // c is checked last: the most recently used document stays open.
    let report = engine
        .check_files(vec![FileInput::on_disk(&c)], HeldOthers::Skip)
        .await;
    assert_eq!(report.files[0].diagnostics[0].message, "in c");
    until(&engine, "both older documents are closed", |e| {
        e.pool().summary().documents_closed == 2
    })
    .await;
    assert_eq!(instance(&engine, &repo, 0).open_documents, 1);
    assert_eq!(engine.pool().summary().idle_stops, 0);
    assert_eq!(engine.pool().clients()[0].open_paths(), [c]);

    write(&repo.file(0), "@error(reopened)\n");
    check(&engine, &repo, 0, "reopened").await;
    assert!(
        repo.closes() >= 2,
        "the fake saw {} didClose",
        repo.closes()
    );
    repo.finish(&engine).await;
}

#[tokio::test]
async fn documents_past_the_cap_are_closed_however_recent_least_recently_used_first() {
    let repo = Monorepo::new(1);
    let file = |n: usize| repo.package(0).join(format!("f{n}.fk"));
    let total = MAX_OPEN_DOCUMENTS + 3;
    for n in 0..total {
        write(&file(n), &format!("@error(in f{n})\n"));
    }
    // Idle limits off: only the cap closes anything.
    let engine = repo.engine(|_| {});
    let old: Vec<FileInput> = (0..3).map(|n| FileInput::on_disk(file(n))).collect();
    engine.check_files(old, HeldOthers::Skip).await;
    let recent: Vec<FileInput> = (3..total).map(|n| FileInput::on_disk(file(n))).collect();
    let report = engine.check_files(recent, HeldOthers::Skip).await;
    assert_eq!(report.files.len(), MAX_OPEN_DOCUMENTS);
    until(&engine, "the three oldest are closed", |e| {
        e.pool().summary().documents_closed == 3
    })
    .await;
    let open = engine.pool().clients()[0].open_paths();
    assert_eq!(open.len(), MAX_OPEN_DOCUMENTS);
    assert!(
        (0..3).all(|n| !open.contains(&file(n))),
        "the oldest stayed open"
    );
    // A closed one is opened again with its current text.
    write(&file(0), "@error(f0 changed)\n");
    let report = engine
        .check_files(vec![FileInput::on_disk(file(0))], HeldOthers::Skip)
        .await;
    assert_eq!(report.files[0].diagnostics[0].message, "f0 changed");
    repo.finish(&engine).await;
}

#[tokio::test]
async fn a_closed_importer_is_reopened_by_the_other_files_phase_with_its_current_text() {
    let repo = Monorepo::new(1);
    let importer = repo.package(0).join("b.fk");
    write(&importer, "import a\n@error(in b)\n");
    let engine = repo.engine(|c| c.document_idle = Duration::from_millis(50));
    let path = repo.file(0);
    let first = engine
        .write(&path, "@error(second)\n", Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    // The importer's error was there before this first edit: counted, not
    // blamed on it.
    let text = first.text();
    assert!(!text.contains("in b"), "{text}");
    assert!(
        text.contains("1 error in 1 other file was there before this edit"),
        "{text}"
    );
    // Another file used last, so that both a and its importer close.
    let other = repo.package(0).join("c.fk");
    write(&other, "unrelated\n");
    engine
        .check_files(vec![FileInput::on_disk(&other)], HeldOthers::Skip)
        .await;
    until(&engine, "the importer is closed", |e| {
        e.pool().summary().documents_closed == 2
    })
    .await;
    assert_eq!(engine.pool().clients()[0].open_paths(), [other]);

    // Changed while closed: reopened from disk, waited on afresh.
    write(&importer, "import a\n@error(b changed)\n");
    let second = engine
        .write(&path, "@error(third)\n", Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    // The importer's current text is what was checked ("b changed", never
    // the stale "in b"); its error was on disk before this write, so it is
    // counted as there before, not blamed on the write.
    let text = second.text();
    assert!(!text.contains("in b"), "{text}");
    assert!(
        second
            .diagnostics
            .iter()
            .any(|r| r.diagnostic.file == "p0/b.fk" && r.diagnostic.message == "b changed"),
        "{:?}",
        second.diagnostics
    );
    let outcomes = &second.outcomes["p0/b.fk"];
    assert!(
        outcomes.iter().all(|o| o.outcome == Outcome::Settled),
        "{outcomes:?}"
    );
    repo.finish(&engine).await;
}

#[test]
fn lifecycle_keys_are_read_and_bad_values_refused_naming_file_and_key() {
    let origin = Path::new("/ws/.squiggle.toml");
    let good = "[lsp]\nmaxInstancesPerServer = 3\nserverIdleMinutes = 0\ndocumentIdleMinutes = 2\n";
    let partial = parse_str(good, origin, FileKind::Workspace)
        .unwrap_or_else(|e| panic!("good config refused: {e}"));
    assert_eq!(partial.max_instances_per_server, Some(3));
    assert_eq!(partial.server_idle, Some(Duration::ZERO));
    assert_eq!(partial.document_idle, Some(Duration::from_secs(120)));
    for (line, key) in [
        ("maxInstancesPerServer = 0", "lsp.maxInstancesPerServer"),
        ("maxInstancesPerServer = \"8\"", "lsp.maxInstancesPerServer"),
        ("serverIdleMinutes = -1", "lsp.serverIdleMinutes"),
        ("documentIdleMinutes = 1.5", "lsp.documentIdleMinutes"),
    ] {
        let text = format!("[lsp]\n{line}\n");
        let Err(e) = parse_str(&text, origin, FileKind::Workspace) else {
            panic!("{line} was accepted")
        };
        let message = e.to_string();
        assert!(
            message.starts_with("/ws/.squiggle.toml: ") && message.contains(key),
            "{line}: {message}"
        );
    }
}
