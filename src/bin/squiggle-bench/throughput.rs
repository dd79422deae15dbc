//! Scenario 4a: a server that publishes diagnostics for many files in one
//! burst. N documents are opened through `check_files` (N didOpens in one
//! call); then each round changes one of them and the fake (`otherFiles`)
//! re-publishes every open document. Measured: the time until every publish
//! of the burst is stored, then collecting the other files' diagnostics
//! (`check_files` with others) and rendering the capped block.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use serde_json::json;
use squiggle::engine::FileInput;
use squiggle::render::{FileDiagnostics, render_feedback};

use crate::fixtures::{fake_engine, runtime, workspace_dir};
use crate::stats::{Samples, header, row};

pub fn run(files: usize, runs: usize) -> Result<()> {
    let rt = runtime()?;
    let (_dir, root) = workspace_dir()?;
    let script = json!({"diagnosticMode": "push", "otherFiles": true, "saveNotify": false});
    let engine = fake_engine(&root, script)?;
    let paths: Vec<_> = (0..files)
        .map(|i| root.join(format!("f{i:05}.fk")))
        .collect();
    for (i, p) in paths.iter().enumerate() {
        std::fs::write(p, format!("x = {i} @error(file {i})\n"))?;
    }
    let inputs = paths.iter().map(FileInput::on_disk).collect();
    let t = Instant::now();
    let opened = rt.block_on(engine.check_files(inputs, false));
    let open_time = t.elapsed();
    let found: usize = opened.files.iter().map(|f| f.diagnostics.len()).sum();
    ensure!(
        found == files,
        "{found} diagnostics for {files} opened files"
    );
    let client = engine
        .pool
        .clients()
        .into_iter()
        .next()
        .context("no fake client")?;
    let opts = engine.render_options();
    let (mut store, mut others, mut render) =
        (Samples::default(), Samples::default(), Samples::default());
    let mut rendered = String::new();
    for n in 0..runs {
        // Let the previous burst finish before counting the next one.
        let before = client.publish_count();
        let text: Arc<str> = Arc::from(format!("x = changed {n} @error(round {n})\n"));
        let edited = FileInput {
            path: paths[0].clone(),
            content: Some(text.clone()),
        };
        let mut events = client.events();
        let t = Instant::now();
        rt.block_on(engine.check_files(vec![edited.clone()], false));
        // The changed file's publish plus one for every other open document.
        let target = before + files as u64;
        rt.block_on(async {
            while client.publish_count() < target {
                let _ = tokio::time::timeout(Duration::from_secs(60), events.changed()).await;
            }
        });
        store.push(t.elapsed());
        // Same text again: nothing is sent, the wait finds the answer held,
        // and the other files' diagnostics are collected from the store.
        let t = Instant::now();
        let report = rt.block_on(engine.check_files(vec![edited], true));
        others.push(t.elapsed());
        ensure!(
            report.others.len() == files - 1,
            "{} other files",
            report.others.len()
        );
        let t = Instant::now();
        let edited: Vec<FileDiagnostics> = report
            .files
            .iter()
            .map(|f| FileDiagnostics {
                file: f.file.clone(),
                diagnostics: f.diagnostics.clone(),
                baseline_hidden: 0,
            })
            .collect();
        let other: Vec<FileDiagnostics> = report
            .others
            .iter()
            .map(|(file, diagnostics)| FileDiagnostics {
                file: file.clone(),
                diagnostics: diagnostics.clone(),
                baseline_hidden: 0,
            })
            .collect();
        rendered = render_feedback(&edited, &other, &opts);
        render.push(t.elapsed());
    }
    header(&format!("{files} files"));
    let mut open = Samples::default();
    open.push(open_time);
    row(
        &format!("open {files} documents in one `check_files` (once)"),
        &open,
    );
    row(
        &format!("burst of {files} publishes: change → all stored"),
        &store,
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
