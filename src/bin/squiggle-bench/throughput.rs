//! Scenario 4a: a burst of publishes for many files. One `check_files` call
//! changes N documents at once (N didChanges; the first round opens them,
//! N didOpens) and the fake publishes for each: the call's time is the time
//! until all N answers are stored and matched. Then collecting the
//! diagnostics of the other N − 1 files (`check_files` with others, nothing
//! changed) and rendering the capped block.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use serde_json::json;
use squiggle::engine::{CheckReport, FileInput, HeldOthers};
use squiggle::render::{FileDiagnostics, render_feedback};

use crate::fixtures::{fake_engine_with, runtime, workspace_dir};
use crate::stats::{Samples, header, row};

pub fn run(files: usize, runs: usize) -> Result<()> {
    let rt = runtime()?;
    let (_dir, root) = workspace_dir()?;
    let script = json!({"diagnosticMode": "push", "saveNotify": false});
    // A 10,000-file burst takes longer than one file's 3 s budget.
    let engine = fake_engine_with(&root, script, |config| {
        config.diagnostic_timeout = Duration::from_secs(120);
        config.first_touch_timeout = Duration::from_secs(120);
    })?;
    let paths: Vec<_> = (0..files)
        .map(|i| root.join(format!("f{i:05}.fk")))
        .collect();
    for p in &paths {
        std::fs::write(p, "x\n")?;
    }
    let (mut open, mut burst, mut others, mut render): (Samples, Samples, Samples, Samples) =
        Default::default();
    let mut rendered = String::new();
    for n in 0..=runs {
        let inputs = paths
            .iter()
            .enumerate()
            .map(|(i, p)| FileInput {
                path: p.clone(),
                before: None,
                content: Some(Arc::from(format!("x = {n} @error(file {i} round {n})\n"))),
            })
            .collect();
        let t = Instant::now();
        let report = rt.block_on(engine.check_files(inputs, HeldOthers::Skip));
        let samples: &mut Samples = if n == 0 { &mut open } else { &mut burst };
        samples.push(t.elapsed());
        let found: usize = report.files.iter().map(|f| f.diagnostics.len()).sum();
        ensure!(found == files, "{found} diagnostics for {files} files");
        // Nothing changed: the wait finds the answer held, and the other
        // files' diagnostics are collected from the server's store.
        let again = vec![FileInput {
            path: paths[0].clone(),
            before: None,
            content: Some(Arc::from(format!("x = {n} @error(file 0 round {n})\n"))),
        }];
        let t = Instant::now();
        let report = rt.block_on(engine.check_files(again, HeldOthers::Include));
        others.push(t.elapsed());
        ensure!(
            report.others.len() == files - 1,
            "{} other files",
            report.others.len()
        );
        let t = Instant::now();
        rendered = render_block(&report, &engine.render_options());
        render.push(t.elapsed());
    }
    header(&format!("{files} files"));
    row(&format!("open {files} documents in one call (once)"), &open);
    row(
        &format!("change {files} documents in one call: all {files} publishes stored and matched"),
        &burst,
    );
    row(
        &format!("collect the other {} files' diagnostics", files - 1),
        &others,
    );
    row("render the capped block", &render);
    println!();
    println!(
        "rendered block: {} lines, {} bytes",
        rendered.lines().count(),
        rendered.len()
    );
    rt.block_on(engine.shutdown());
    Ok(())
}

fn render_block(report: &CheckReport, opts: &squiggle::render::RenderOptions) -> String {
    let edited: Vec<FileDiagnostics> = report
        .files
        .iter()
        .map(|f| FileDiagnostics {
            file: f.file.clone(),
            diagnostics: f.diagnostics.clone(),
            baseline_hidden: 0,
            fixes: Vec::new(),
        })
        .collect();
    let other: Vec<FileDiagnostics> = report
        .others
        .iter()
        .map(|(file, diagnostics)| FileDiagnostics {
            file: file.clone(),
            diagnostics: diagnostics.clone(),
            baseline_hidden: 0,
            fixes: Vec::new(),
        })
        .collect();
    render_feedback(&edited, &other, opts)
}
