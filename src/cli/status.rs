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
use crate::engine::pool::{PoolSummary, StopReason};

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

/// One row after its id: an instance's state, root, pid, memory, idle
/// time, checks in flight and open documents (or why the pool stopped it);
/// a server without one, its state and the program found or why none runs.
pub(super) fn row_line(s: &ServerStatus) -> String {
    let Some(root) = &s.root else {
        if s.status == crate::engine::ServerState::NotStarted {
            // `not started (strict)`: the cause, before the remedy.
            let detail = s.detail.as_deref().unwrap_or_default();
            let (cause, remedy) = detail.split_once(": ").unwrap_or((detail, ""));
            return format!("not started ({cause}) {remedy}")
                .trim_end()
                .to_string();
        }
        let what = match (&s.detail, &s.command) {
            (Some(detail), _) => detail.clone(),
            (None, None) if s.endpoint.is_some() => {
                format!("attaches to {}", s.endpoint.as_deref().unwrap_or_default())
            }
            (None, Some(command)) => match &s.compiler {
                Some(compiler) => format!("{} · compiler: {}", command.display(), compiler.text),
                None => command.display().to_string(),
            },
            (None, None) => String::new(),
        };
        return format!("{:<12} {what}", s.status).trim_end().to_string();
    };
    let mut line = format!("{:<12} {}", s.status, root.display());
    // A live instance: its process, or where it is attached.
    let head = match (s.server_pid, &s.endpoint) {
        (Some(pid), _) => Some(format!("pid {pid}")),
        (None, Some(endpoint)) if s.open_documents.is_some() => {
            Some(format!("attached at {endpoint}"))
        }
        _ => None,
    };
    if let Some(head) = head {
        line.push_str(&format!(" ({head}"));
        if let Some(kb) = s.rss_kb {
            line.push_str(&format!(", {}", kib(kb)));
        }
        if let Some(ms) = s.idle_ms {
            line.push_str(&format!(", idle {}s", ms / 1000));
        }
        if let Some(n) = s.in_flight.filter(|n| *n > 0) {
            line.push_str(&format!(", {n} check(s) in flight"));
        }
        if let Some(n) = s.open_documents {
            line.push_str(&format!(", {n} open"));
        }
        line.push(')');
    } else if let Some(reason) = s.stopped {
        let why = match reason {
            StopReason::Evicted => "evicted for the cap",
            StopReason::Idle => "stopped when idle",
            StopReason::Reconfigured => "stopped for a configuration change",
        };
        // Only a stopped server starts again: one the configuration now
        // turns off or holds back says so instead.
        if s.status == crate::engine::ServerState::Stopped {
            line.push_str(&format!(" ({why}; starts again on demand)"));
        } else {
            let detail = s
                .detail
                .as_deref()
                .map(|d| format!("; {d}"))
                .unwrap_or_default();
            line.push_str(&format!(" ({why}{detail})"));
        }
    } else if let Some(detail) = &s.detail {
        line.push_str(&format!(" ({detail})"));
    }
    line
}

/// KiB as MiB with one decimal.
pub(super) fn kib(kb: u64) -> String {
    format!("{:.1} MiB", kb as f64 / 1024.0)
}
