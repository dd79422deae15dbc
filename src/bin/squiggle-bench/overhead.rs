//! Scenario 1: squiggle's own time per `check_files` against the fake, in
//! pull mode and push-with-version mode, for 1, 10 and 100 files. The fake
//! waits a scripted delay before each answer (pullDelayMs / publishDelayMs);
//! subtracting it leaves squiggle's time plus the fake's little own work and
//! the pipe hops. A second fake with no delay is interleaved as a check on
//! the subtraction.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use serde_json::json;
use squiggle::engine::{Engine, FileInput, HeldOthers};

use crate::fixtures::{fake_engine, runtime, workspace_dir};
use crate::stats::{Samples, header, ratio, row};

const COUNTS: [usize; 3] = [1, 10, 100];

struct Case {
    name: String,
    engine: Arc<Engine>,
    paths: Vec<std::path::PathBuf>,
    delay: Duration,
    count: usize,
    samples: Samples,
}

pub fn run(runs: usize, delay_ms: u64) -> Result<()> {
    let rt = runtime()?;
    let mut cases = Vec::new();
    // The workspaces live as long as their engines.
    let mut dirs = Vec::new();
    for mode in ["pull", "push"] {
        for delay in [delay_ms, 0] {
            let (dir, root) = workspace_dir()?;
            let key = if mode == "pull" {
                "pullDelayMs"
            } else {
                "publishDelayMs"
            };
            let script = json!({"diagnosticMode": mode, "sync": "incremental", key: delay});
            let engine = fake_engine(&root, script)?;
            for count in COUNTS {
                let paths = (0..count)
                    .map(|i| root.join(format!("f{count}_{i}.fk")))
                    .collect();
                cases.push(Case {
                    name: format!("{mode}, server delay {delay} ms, {count} files"),
                    engine: engine.clone(),
                    paths,
                    delay: Duration::from_millis(delay),
                    count,
                    samples: Samples::default(),
                });
            }
            dirs.push(dir);
        }
    }
    let body: String = (0..100)
        .map(|i| format!("let value_{i} = compute({i});\n"))
        .collect();
    // Warm-up: opens every document and starts every server.
    for n in 0..5u64 {
        for case in &mut cases {
            check(&rt, case, &body, n, false)?;
        }
    }
    for n in 5..5 + runs as u64 {
        for case in &mut cases {
            check(&rt, case, &body, n, true)?;
        }
    }
    header("check_files (our time = wall time − server delay)");
    for case in &cases {
        row(&case.name, &case.samples);
    }
    print_ratios(&cases, delay_ms);
    for case in &cases {
        rt.block_on(case.engine.shutdown());
    }
    // The fakes have exited and been reaped: their CPU time is the children's.
    let (ours, fakes) = (cpu_seconds(Who::Ours), cpu_seconds(Who::Children));
    // Every file check of the run, warm-up included, as the CPU times are.
    let checks: usize = cases.iter().map(|c| c.count).sum::<usize>() * (5 + runs);
    println!();
    println!(
        "CPU time over the whole run: squiggle (this process) {ours:.2} s, the fake servers {fakes:.2} s; \
         per file check: squiggle {:.0} µs, fake {:.0} µs ({checks} file checks)",
        ours * 1e6 / checks as f64,
        fakes * 1e6 / checks as f64,
    );
    Ok(())
}

/// 100 files against 1, per mode and delay, as ratios of the medians.
fn print_ratios(cases: &[Case], delay_ms: u64) {
    println!();
    println!("| ratio (same run) | medians |");
    println!("| --- | --- |");
    for mode in ["pull", "push"] {
        for delay in [delay_ms, 0] {
            let find = |count: usize| {
                cases
                    .iter()
                    .find(|c| c.name == format!("{mode}, server delay {delay} ms, {count} files"))
                    .map(|c| &c.samples)
            };
            if let (Some(one), Some(hundred)) = (find(1), find(100)) {
                ratio(
                    &format!("{mode}, delay {delay} ms: 100 files / 1 file"),
                    hundred,
                    one,
                );
            }
        }
    }
}

enum Who {
    Ours,
    Children,
}

/// User plus system CPU seconds of this process or of its reaped children
/// (`platform::proc_info`; NaN, printed as unknown, where it cannot tell).
fn cpu_seconds(who: Who) -> f64 {
    squiggle::platform::proc_info::cpu_seconds(matches!(who, Who::Children))
}

fn check(
    rt: &tokio::runtime::Runtime,
    case: &mut Case,
    body: &str,
    n: u64,
    record: bool,
) -> Result<()> {
    let inputs: Vec<FileInput> = case
        .paths
        .iter()
        .map(|p| FileInput {
            path: p.clone(),
            content: Some(Arc::from(format!("{body}x = {n} @error(e{n})\n"))),
            before: None,
        })
        .collect();
    let started = Instant::now();
    let report = rt.block_on(case.engine.check_files(inputs, HeldOthers::Skip));
    let elapsed = started.elapsed();
    let found: usize = report.files.iter().map(|f| f.diagnostics.len()).sum();
    ensure!(
        found == case.count,
        "{}: {found} diagnostics for {} files",
        case.name,
        case.count
    );
    if record {
        case.samples.push(elapsed.saturating_sub(case.delay));
    }
    Ok(())
}
