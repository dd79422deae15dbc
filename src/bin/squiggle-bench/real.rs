//! Scenarios 3 and 5: real servers on small projects.
//!
//! Warm (3): the engine in-process, after a first edit has started the
//! server. Per round, interleaved: edit → settled diagnostics through
//! squiggle; the server's own final answer as seen on the wire (the pull
//! response's arrival, or the last publish's); and the command-line checker
//! on the same edit.
//!
//! Cold (5): the first edit in a fresh workspace through the daemon, which
//! the check itself starts, as the first hook of a session does.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use squiggle::daemon::client::{check_with, stop};
use squiggle::engine::{Engine, EngineOptions, FileInput, HeldOthers, Mutation};

use crate::fixtures::{runtime, sibling, workspace_dir};
use crate::projects::{Project, selected};
use crate::stats::{Samples, median_p95};

/// `settle`: override the server's settle window (ms) to see what it costs.
pub fn warm(runs: usize, only: &[String], settle: Option<u64>) -> Result<()> {
    let rt = runtime()?;
    println!(
        "| server | squiggle: edit → settled | server's final answer on the wire | CLI checker | squiggle / wire | checker / squiggle | outcomes |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for project in selected(only) {
        if let Err(e) = warm_one(&rt, &project, runs, settle) {
            eprintln!("{}: {e:#}", project.server);
        }
    }
    Ok(())
}

fn warm_one(
    rt: &tokio::runtime::Runtime,
    project: &Project,
    runs: usize,
    settle: Option<u64>,
) -> Result<()> {
    let (_dir, root) = workspace_dir()?;
    project.create(&root)?;
    let engine = warm_engine(project, &root, settle)?;
    let path = root.join(project.edited);
    let mut stats = WarmStats::default();
    // Rounds 0 and 1 start the server and warm it; the checker's first run
    // fills its caches.
    for n in 0..2 + runs {
        std::fs::write(&path, (project.edit)(n))?;
        let published_before = engine
            .pool()
            .clients()
            .into_iter()
            .find(|c| c.server_id() == project.server)
            .map_or(0, |c| c.publish_count());
        let t0 = Instant::now();
        let report =
            rt.block_on(engine.check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip));
        let elapsed = t0.elapsed();
        let client = engine
            .pool()
            .clients()
            .into_iter()
            .find(|c| c.server_id() == project.server)
            .with_context(|| format!("{} did not start", project.server))?;
        let (response, publish) = client.answer_times(&path);
        let published = client.publish_count() - published_before;
        let answered = [response, publish]
            .into_iter()
            .flatten()
            .filter(|t| *t >= t0)
            .max();
        let t = Instant::now();
        run_checker(project, &root)?;
        let checker = t.elapsed();
        if n < 2 {
            continue;
        }
        stats.ours.push(elapsed);
        if let Some(at) = answered {
            stats.wire.push(at - t0);
        }
        stats.cli.push(checker);
        stats.publishes.push(published);
        stats.add(&report.files[0]);
    }
    stats.print(project, runs);
    rt.block_on(engine.shutdown());
    Ok(())
}

/// An engine for `project` at `root`, with the server's settle window
/// overridden when `settle` is given.
fn warm_engine(project: &Project, root: &Path, settle: Option<u64>) -> Result<Arc<Engine>> {
    let mut opts = EngineOptions {
        root: Some(root.to_path_buf()),
        ..Default::default()
    };
    if let Some(ms) = settle {
        opts.cli.servers.insert(
            project.server.to_string(),
            squiggle::config::ServerOverride {
                settle_ms: Some(ms),
                ..Default::default()
            },
        );
    }
    Ok(Arc::new(Engine::new(&opts, root)?))
}

/// One server's warm rounds: squiggle's time, the wire's, the checker's.
#[derive(Default)]
struct WarmStats {
    ours: Samples,
    wire: Samples,
    cli: Samples,
    outcomes: Vec<String>,
    found_errors: usize,
    publishes: Vec<u64>,
}

impl WarmStats {
    fn add(&mut self, file: &squiggle::engine::FileReport) {
        if file
            .diagnostics
            .iter()
            .any(|d| d.severity == squiggle::diagnostic::Severity::Error)
        {
            self.found_errors += 1;
        }
        for o in &file.outcomes {
            let text = format!("{} {}", o.server, o.outcome.as_str());
            if !self.outcomes.contains(&text) {
                self.outcomes.push(text);
            }
        }
    }

    fn print(&self, project: &Project, runs: usize) {
        let (ours, wire, cli) = (&self.ours, &self.wire, &self.cli);
        println!(
            "| {} | {} | {} | {} | {:.2}× | {:.2}× | {}; error reported {}/{runs}; publishes per edit {:?} |",
            project.server,
            median_p95(ours),
            median_p95(wire),
            median_p95(cli),
            ours.median() / wire.median(),
            cli.median() / ours.median(),
            self.outcomes.join(", "),
            self.found_errors,
            self.publishes,
        );
    }
}

fn run_checker(project: &Project, root: &Path) -> Result<()> {
    Command::new(project.checker[0])
        .args(&project.checker[1..])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("run {}", project.checker[0]))?;
    Ok(())
}

pub fn cold(runs: usize, only: &[String]) -> Result<()> {
    let rt = runtime()?;
    let squiggle = sibling("squiggle")?;
    println!("| server | first edit → diagnostics, daemon start included | runs | outcomes |");
    println!("| --- | --- | --- | --- |");
    for project in selected(only) {
        let mut samples = Samples::default();
        let mut outcomes: Vec<String> = Vec::new();
        for _ in 0..runs {
            let (_dir, root, opts) = project.daemon_copy(&squiggle)?;
            let path = root.join(project.edited);
            let t = Instant::now();
            let reply = rt.block_on(check_with(&root, vec![path], Mutation::Edit, &opts));
            let elapsed = t.elapsed();
            match reply {
                Ok(reply) => {
                    let reply = squiggle::engine::CheckReport::from(reply);
                    samples.push(elapsed);
                    for o in reply.files.iter().flat_map(|f| &f.outcomes) {
                        let errors = reply.files[0].diagnostics.len();
                        let text =
                            format!("{} {} ({errors} diagnostics)", o.server, o.outcome.as_str());
                        if !outcomes.contains(&text) {
                            outcomes.push(text);
                        }
                    }
                }
                Err(e) => eprintln!("{}: {e}", project.server),
            }
            if let Err(e) = rt.block_on(stop(&root, &opts)) {
                eprintln!("{}: daemon stop: {e}", project.server);
            }
        }
        println!(
            "| {} | {} | {} | {} |",
            project.server,
            median_p95(&samples),
            samples.len(),
            outcomes.join(", ")
        );
    }
    Ok(())
}
