//! `squiggle ack`: acknowledge one diagnostic as a false positive, with a
//! reason, so that no surface shows it again until its line's text
//! changes (`crate::hidden::acks`); list the workspace's
//! acknowledgements (`--list`); or remove them (`--remove`). The file is
//! checked first (through the warm daemon, else in this process), so what
//! is acknowledged is a diagnostic a server reports now, keyed by its
//! server and code. Exit 0 done, 1 nothing to acknowledge or remove, 2
//! usage, configuration or environment error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::warm::Route;
use crate::engine::{AckRequest, CheckReport, Engine};
use crate::evidence::{Origin, Surface, origin};
use crate::hidden::Ack;
use crate::render::ReportMode;
use crate::service::wire::{CheckParams, RenderOverrides};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The file the diagnostic is in.
    pub file: Option<PathBuf>,
    /// The 1-based line it is on.
    #[arg(long)]
    pub line: Option<u32>,
    /// Its code, when the line has several diagnostics.
    #[arg(long)]
    pub code: Option<String>,
    /// Why it is a false positive (kept with it, and in the evidence log).
    #[arg(long)]
    pub reason: Option<String>,
    /// List the workspace's acknowledgements.
    #[arg(long, conflicts_with_all = ["line", "code", "reason", "remove"])]
    pub list: bool,
    /// Remove the acknowledgements of FILE (on --line, with --code, when given).
    #[arg(long, conflicts_with = "reason")]
    pub remove: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Check in this process instead of through the workspace's daemon.
    #[arg(long)]
    pub no_daemon: bool,
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
}

pub async fn run(args: Args) -> u8 {
    let engine = match args
        .workspace
        .engine(args.workspace.interactive_overrides())
    {
        Ok(engine) => Arc::new(engine),
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    let work = async {
        if args.list {
            return list(&engine, args.json);
        }
        let Some(file) = &args.file else {
            eprintln!("squiggle ack: name the file (or give --list)");
            return 2;
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let file = cwd.join(file);
        if args.remove {
            return remove(&engine, &file, &args);
        }
        acknowledge(&engine, &file, &args).await
    };
    origin::scope(Origin::new(Surface::Cli, None, "ack"), work).await
}

fn list(engine: &Engine, json: bool) -> u8 {
    let acks = match engine.ack_store().load() {
        Ok(acks) => acks,
        Err(e) => {
            eprintln!("squiggle ack: {e}");
            return 2;
        }
    };
    if json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&acks).unwrap_or_default()
        );
    } else if acks.is_empty() {
        crate::outln!(
            "No acknowledgements in {}",
            engine.ack_store().path().display()
        );
    } else {
        for ack in &acks {
            crate::outln!("{}", describe(ack));
        }
    }
    0
}

/// `a.py:3 pyright reportX: reason (at TIME; while the line reads "…")`.
fn describe(ack: &Ack) -> String {
    let code = ack
        .code
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    format!(
        "{}:{} {}{code}: {} (at {}; while the line reads {:?})",
        ack.file, ack.line, ack.server, ack.reason, ack.time, ack.line_text
    )
}

fn remove(engine: &Engine, file: &Path, args: &Args) -> u8 {
    match engine.unacknowledge(file, args.line, args.code.as_deref()) {
        Ok(removed) if removed.is_empty() => {
            eprintln!(
                "squiggle ack: no acknowledgement of {} matches",
                file.display()
            );
            1
        }
        Ok(removed) => {
            for ack in &removed {
                crate::outln!("Removed {}", describe(ack));
            }
            0
        }
        Err(e) => {
            eprintln!("squiggle ack: {e}");
            2
        }
    }
}

async fn acknowledge(engine: &Arc<Engine>, file: &Path, args: &Args) -> u8 {
    let (Some(line), Some(reason)) = (args.line, args.reason.as_deref()) else {
        eprintln!("squiggle ack: give --line and --reason (or --list, or --remove)");
        return 2;
    };
    // A listing, not an edit: every diagnostic, shown or hidden.
    let params = CheckParams {
        file_paths: vec![file.to_path_buf()],
        options: RenderOverrides {
            report: Some(ReportMode::All),
            ..RenderOverrides::default()
        },
        origin: Some(Origin::new(Surface::Cli, None, "ack")),
        ..CheckParams::default()
    };
    let route = Route {
        no_daemon: args.no_daemon,
        trust_workspace: args.workspace.trust_workspace,
    };
    let root = engine.workspace().root().to_path_buf();
    let reply = match super::warm::check(Some(&root), &root, params, route, Some(engine)).await {
        Ok(reply) => reply,
        Err(e) => {
            eprintln!("squiggle ack: {e}");
            return 2;
        }
    };
    let report = CheckReport::from(reply);
    let found: Vec<_> = report
        .files
        .into_iter()
        .flat_map(|f| f.diagnostics)
        .chain(report.ignored.into_iter().map(|h| h.diagnostic))
        .collect();
    let request = AckRequest {
        file,
        line,
        code: args.code.as_deref(),
        reason,
    };
    match engine.acknowledge(&request, &found) {
        Ok(ack) => {
            if args.json {
                crate::outln!("{}", serde_json::to_string_pretty(&ack).unwrap_or_default());
            } else {
                crate::outln!("Acknowledged {}", describe(&ack));
            }
            0
        }
        Err(e) => {
            eprintln!("squiggle ack: {e}");
            1
        }
    }
}
