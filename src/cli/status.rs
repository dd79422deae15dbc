//! `squiggle status`: every built-in and configured server — installed or
//! not, enabled, disabled or untrusted — and, when a daemon runs for this
//! workspace, its live instances (project root, state, pid, memory). The
//! rows are `Engine::status()`'s, the same `lsp/status` and MCP `lsp_status`
//! answer: the daemon's when one runs, else this process's (which starts
//! nothing, so it has no instances).

use std::path::PathBuf;

use serde::Serialize;

use crate::daemon::DaemonStatus;
use crate::engine::ServerStatus;
use crate::engine::pool::PoolSummary;
use crate::engine::status_line::{kib, row_line};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// What `status --json` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusJson<'a> {
    workspace: &'a std::path::Path,
    /// The running daemon, `null` when there is none.
    daemon: Option<DaemonJson<'a>>,
    servers: &'a [ServerStatus],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DaemonJson<'a> {
    pid: u32,
    uptime_secs: u64,
    requests: u64,
    rss_kb: u64,
    pool: &'a PoolSummary,
}

pub async fn run(args: Args) -> u8 {
    let engine = match args.workspace.engine(Default::default()) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    let root: PathBuf = engine.workspace().root().to_path_buf();
    let daemon_opts = crate::daemon::client::Options {
        trust_workspace: args.workspace.trust_workspace,
        ..Default::default()
    };
    let live = crate::daemon::client::status(&root, &daemon_opts)
        .await
        .ok();
    let servers = match &live {
        Some(daemon) => daemon.servers.clone(),
        None => engine.status(),
    };
    if args.json {
        let out = StatusJson {
            workspace: &root,
            daemon: live.as_ref().map(|d| DaemonJson {
                pid: d.pid,
                uptime_secs: d.uptime_secs,
                requests: d.requests,
                rss_kb: d.rss_kb,
                pool: &d.pool,
            }),
            servers: &servers,
        };
        crate::outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return 0;
    }
    print_table(&root, live.as_ref(), &servers);
    0
}

/// The human-readable form: the daemon line, then a line per row.
fn print_table(root: &std::path::Path, live: Option<&DaemonStatus>, rows: &[ServerStatus]) {
    match live {
        Some(d) => crate::outln!(
            "workspace {} · daemon pid {} · up {}s · {} requests · {} · {} live instance(s), servers {}",
            root.display(),
            d.pid,
            d.uptime_secs,
            d.requests,
            kib(d.rss_kb),
            d.pool.live,
            kib(d.pool.servers_rss_kb)
        ),
        None => crate::outln!("workspace {} · no daemon running", root.display()),
    }
    for row in rows {
        crate::outln!("{:<28} {}", row.id, row_line(row));
    }
}
