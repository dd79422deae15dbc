//! `squiggle check PATHS…`: the pre-commit check (grown by its own change).

use std::path::PathBuf;
use std::sync::Arc;

use crate::diagnostic::Severity;
use crate::engine::{Engine, EngineOptions, FileInput};
use crate::render::{FileDiagnostics, render_files};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Files to check.
    pub paths: Vec<PathBuf>,
    /// Lowest severity that fails the check.
    #[arg(long, default_value = "error")]
    pub fail_on: String,
    /// Workspace root (default: the git top-level, else the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Print the structured result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: Args) -> u8 {
    let Some(fail_on) = Severity::parse(&args.fail_on) else {
        eprintln!(
            "squiggle: --fail-on: expected error, warning, info or hint, found {:?}",
            args.fail_on
        );
        return 2;
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let opts = EngineOptions {
        root: args.root.clone(),
        ..Default::default()
    };
    let engine = match Engine::new(&opts, &cwd) {
        Ok(e) => Arc::new(e),
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    let inputs: Vec<FileInput> = args.paths.into_iter().map(FileInput::on_disk).collect();
    let report = engine.check_files(inputs, false).await;
    engine.shutdown().await;
    for file in &report.files {
        for o in &file.outcomes {
            if let Some(detail) = &o.detail {
                eprintln!(
                    "squiggle: {}: {} {}: {detail}",
                    file.file,
                    o.server,
                    o.outcome.as_str()
                );
            }
        }
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        let files: Vec<FileDiagnostics> = report
            .files
            .iter()
            .map(|f| FileDiagnostics {
                file: f.file.clone(),
                diagnostics: f.diagnostics.clone(),
                baseline_hidden: 0,
            })
            .collect();
        print!("{}", render_files(&files, &engine.render_options()));
    }
    let failing = report
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .any(|d| d.severity <= fail_on);
    u8::from(failing)
}
