//! Scenario 5b: the session's first edit, pre-warmed or not. Per real
//! server, interleaved runs in fresh workspaces: "cold" is the first edit
//! through a daemon the check itself starts (as scenario 5); "pre-warmed"
//! first sends `squiggle/warm` as the agents' `SessionStart` hook does
//! (timed: what the session start waits for), then waits `think_ms` — the
//! model writing its first reply — and times the first edit.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use squiggle::daemon::client::{check_with, stop, warm};
use squiggle::engine::Mutation;

use crate::fixtures::{runtime, sibling};
use crate::projects::{Project, selected};
use crate::stats::{Samples, median_p95, ms};

pub fn run(runs: usize, only: &[String], think_ms: u64) -> Result<()> {
    let rt = runtime()?;
    let squiggle = sibling("squiggle")?;
    println!(
        "| server | first edit, cold | session start (`squiggle/warm` answered) | first edit {think_ms} ms after session start | cold / pre-warmed | runs |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for project in selected(only) {
        let (mut cold, mut start, mut warmed) =
            (Samples::default(), Samples::default(), Samples::default());
        for _ in 0..runs {
            match first_edit(&rt, &squiggle, &project, None) {
                Ok((_, edit)) => cold.push(edit),
                Err(e) => eprintln!("{} cold: {e:#}", project.server),
            }
            match first_edit(&rt, &squiggle, &project, Some(think_ms)) {
                Ok((session, edit)) => {
                    start.push(session);
                    warmed.push(edit);
                }
                Err(e) => eprintln!("{} pre-warmed: {e:#}", project.server),
            }
        }
        println!(
            "| {} | {} | {} | {} | {:.1}x | {} |",
            project.server,
            median_p95(&cold),
            ms(start.median()),
            median_p95(&warmed),
            cold.median() / warmed.median().max(f64::EPSILON),
            warmed.len()
        );
    }
    Ok(())
}

/// One fresh workspace: optionally the session start and a pause, then the
/// first edit's check. Returns (session start, first edit) wall times.
fn first_edit(
    rt: &tokio::runtime::Runtime,
    squiggle: &Path,
    project: &Project,
    think_ms: Option<u64>,
) -> Result<(Duration, Duration)> {
    let (_dir, root, opts) = project.daemon_copy(squiggle)?;
    let mut session = Duration::ZERO;
    if let Some(think) = think_ms {
        let t = Instant::now();
        rt.block_on(warm(&root, &opts))?;
        session = t.elapsed();
        std::thread::sleep(Duration::from_millis(think));
    }
    let path = root.join(project.edited);
    std::fs::write(&path, (project.edit)(1))?;
    let t = Instant::now();
    let reply = rt.block_on(check_with(&root, vec![path], Mutation::Edit, &opts));
    let edit = t.elapsed();
    let _ = rt.block_on(stop(&root, &opts));
    reply?;
    Ok((session, edit))
}
