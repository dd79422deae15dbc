//! `squiggle doctor`: starts every installed server on a small sample project
//! of its language and reports what it really does — whether it starts, how
//! fast, how it delivers diagnostics (pull, dynamic pull, push), its sync
//! kind and position encoding, whether the first check of a file with a
//! deliberate mistake finds it, and which navigation features it declares.
//!
//! Servers run one at a time so the timings mean something on a small
//! machine. Every resolved server counts, enabled or not, so an alternative
//! (basedpyright, tsgo) can be tried before switching to it. `--require`
//! turns the report into a gate for CI: exit 2 unless each listed server is
//! `working`. A server that runs on the project's compiler (TypeScript) is
//! started with the workspace's own, and the report names it.

mod probe;
mod samples;
mod table;

use std::io::IsTerminal;
use std::time::Duration;

use crate::engine::{Engine, ResolvedServer};
use crate::registry::toolchain::{Lookup, launch, lookup};
use probe::{ServerReport, Status};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
    /// Print the reports as a JSON array.
    #[arg(long)]
    pub json: bool,
    /// Only these servers (comma-separated ids).
    #[arg(long, value_delimiter = ',', value_name = "ID[,ID]")]
    pub only: Vec<String>,
    /// Exit 2 unless each of these servers is working (comma-separated ids).
    #[arg(long, value_delimiter = ',', value_name = "ID[,ID]")]
    pub require: Vec<String>,
    /// Report the project's hook files instead of the servers: which hosts
    /// read each, whether it is what `squiggle init` writes now, and host
    /// versions known to drop hook output.
    #[arg(long)]
    pub hooks: bool,
    /// Limit for a server's start, and separately for its first check.
    #[arg(long, default_value_t = 60, value_name = "N")]
    pub timeout_secs: u64,
}

pub async fn run(args: Args) -> u8 {
    if args.hooks {
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        let root = args.workspace.root.as_deref();
        return match crate::workspace::Workspace::discover(root, &cwd) {
            Ok(ws) => {
                crate::out!("{}", super::init::hook_files::report(ws.root()));
                0
            }
            Err(e) => {
                eprintln!("squiggle doctor: {e}");
                2
            }
        };
    }
    let engine = match args.workspace.engine(Default::default()) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    if let Err(message) = known_ids(&engine, &args) {
        eprintln!("squiggle doctor: {message}");
        return 2;
    }
    let selected = engine.servers().iter().filter(|s| {
        args.only.is_empty() || args.only.contains(&s.spec.id) || args.require.contains(&s.spec.id)
    });
    let reports = probe_all(&engine, selected, args.timeout_secs).await;
    let root = engine.workspace().root().to_path_buf();
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&reports).unwrap_or_default()
        );
    } else {
        crate::out!("{}", table::render(&reports));
        // Hooks installed by `squiggle init` that the agent will not run.
        for note in super::init::doctor_notes(&root) {
            crate::outln!("{note}");
        }
    }
    let unmet: Vec<&str> = args
        .require
        .iter()
        .filter(|id| {
            !reports
                .iter()
                .any(|r| &r.id == *id && r.status == Status::Working)
        })
        .map(String::as_str)
        .collect();
    // An untrusted server is not started at all: say why, and the remedy.
    for report in &reports {
        if unmet.contains(&report.id.as_str())
            && report.status == Status::Untrusted
            && let Some(reason) = &report.error
        {
            eprintln!("squiggle doctor: {}: {reason}", report.id);
        }
    }
    if unmet.is_empty() {
        0
    } else {
        eprintln!(
            "squiggle doctor: required servers not working: {}",
            unmet.join(", ")
        );
        2
    }
}

/// Refuses a server id in `--only` or `--require` that names no server.
fn known_ids(engine: &Engine, args: &Args) -> Result<(), String> {
    let known: Vec<&str> = engine
        .servers()
        .iter()
        .map(|s| s.spec.id.as_str())
        .collect();
    let Some(unknown) = args
        .only
        .iter()
        .chain(&args.require)
        .find(|id| !known.contains(&id.as_str()))
    else {
        return Ok(());
    };
    Err(format!(
        "unknown server id {unknown:?}; known ids: {}",
        known.join(", ")
    ))
}

/// Starts and checks each selected server, one after the other.
async fn probe_all<'a>(
    engine: &Engine,
    selected: impl Iterator<Item = &'a ResolvedServer>,
    timeout_secs: u64,
) -> Vec<ServerReport> {
    let timeout = Duration::from_secs(timeout_secs.max(1));
    let root = engine.workspace().root().to_path_buf();
    let path_var = std::env::var_os("PATH");
    let progress = std::io::stderr().is_terminal();
    let mut reports = Vec::new();
    for server in selected {
        let found = launch(&server.spec, &root, &root, path_var.as_deref());
        let compiler = lookup(&server.spec, &root, &root);
        let mut report = match (found, &server.untrusted, &server.connect) {
            (_, Some(reason), _) => {
                let mut report = ServerReport::new(server, Status::Untrusted);
                report.error = Some(reason.clone());
                report
            }
            (_, None, Some(endpoint)) => probe::attached(server, endpoint, timeout).await,
            (None, None, None) => not_installed(server),
            (Some(launch), None, None) => {
                if progress {
                    eprintln!("squiggle doctor: starting {}…", server.spec.id);
                }
                probe::probe(server, launch, timeout).await
            }
        };
        if compiler != Lookup::NotApplicable {
            report.compiler = Some(compiler.to_string());
        }
        reports.push(report);
    }
    reports
}

fn not_installed(server: &ResolvedServer) -> ServerReport {
    let mut report = ServerReport::new(server, Status::NotInstalled);
    report.install_hint = Some(server.remedy());
    report
}
