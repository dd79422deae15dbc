//! `squiggle status`: every built-in and configured server — installed or
//! not (with the exact install command), enabled, disabled or untrusted —
//! and, when a daemon runs for this workspace, its live instances (project
//! root, state, pid). Reads nothing else and starts nothing.

use serde_json::{Value, json};

use crate::registry::toolchain::{Lookup, launch, lookup};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: Args) -> u8 {
    let engine = match args.workspace.engine(Default::default()) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    let root = engine.workspace.root().to_path_buf();
    let daemon_opts = crate::daemon::client::Options {
        trust_workspace: args.workspace.trust_workspace,
        ..Default::default()
    };
    let live = crate::daemon::client::status(&root, &daemon_opts)
        .await
        .ok();
    let path_var = std::env::var_os("PATH");
    let mut rows = Vec::new();
    for server in &engine.servers {
        let found = launch(&server.spec, &root, &root, path_var.as_deref());
        let compiler = lookup(&server.spec, &root, &root);
        let state = match (&server.untrusted, server.enabled, &found) {
            (Some(_), _, _) => "untrusted",
            (None, false, _) => "disabled",
            (None, true, None) => "unavailable",
            (None, true, Some(_)) => "available",
        };
        let instances: Vec<Value> = live
            .iter()
            .flat_map(|d| &d.servers)
            .filter(|s| s.id == server.spec.id && s.root.is_some())
            .map(instance_json)
            .collect();
        rows.push(json!({
            "id": server.spec.id,
            "status": state,
            "path": found.as_ref().map(|l| l.program.display().to_string()),
            "compiler": compiler_json(&compiler),
            "installHint": server.spec.install_hint,
            "languages": server.spec.languages,
            "detail": server.untrusted,
            "running": instances,
        }));
    }
    if args.json {
        let daemon = live.as_ref().map(|d| {
            json!({
                "pid": d.pid,
                "uptimeSecs": d.uptime_secs,
                "requests": d.requests,
                "rssKb": d.rss_kb,
                "pool": d.pool,
            })
        });
        let out = json!({ "workspace": root, "daemon": daemon, "servers": rows });
        crate::outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return 0;
    }
    print_table(&root, live.as_ref(), &rows);
    0
}

/// The human-readable form: the daemon line, then a line per server and
/// one per instance.
fn print_table(root: &std::path::Path, live: Option<&crate::daemon::DaemonStatus>, rows: &[Value]) {
    match live {
        Some(d) => crate::outln!(
            "workspace {} · daemon pid {} · up {}s · {} requests · {} · {} live instance(s), servers {}",
            root.display(),
            d.pid,
            d.uptime_secs,
            d.requests,
            super::daemon::kib(d.rss_kb),
            d.pool.live,
            super::daemon::kib(d.pool.servers_rss_kb)
        ),
        None => crate::outln!("workspace {} · no daemon running", root.display()),
    }
    for r in rows {
        let text = |k: &str| r[k].as_str().unwrap_or_default().to_string();
        let status = text("status");
        let detail = match status.as_str() {
            "available" => match r["compiler"]["text"].as_str() {
                Some(compiler) => format!("{} · compiler: {compiler}", text("path")),
                None => text("path"),
            },
            "unavailable" => format!(
                "install: {}",
                crate::install::hint(&text("id"), &text("installHint"))
            ),
            _ => text("detail"),
        };
        crate::outln!("{:<28} {:<12} {}", text("id"), status, detail);
        for i in r["running"].as_array().into_iter().flatten() {
            crate::outln!("{:<28} {}", "", i["line"].as_str().unwrap_or_default());
        }
    }
}

/// The compiler a server runs on in this workspace (the project's package
/// it was given, or why it runs its own); `null` for a server that runs on
/// no package.
fn compiler_json(lookup: &Lookup) -> Value {
    if *lookup == Lookup::NotApplicable {
        return Value::Null;
    }
    let package = lookup.package();
    json!({
        "package": package.map(|p| p.name.clone()),
        "version": package.map(|p| p.version.clone()),
        "dir": package.map(|p| p.dir.display().to_string()),
        "origin": package.map(|p| p.origin),
        "used": matches!(lookup, Lookup::Found(..)),
        "text": lookup.to_string(),
    })
}

/// One live or stopped instance, as `status --json` lists it under its server.
fn instance_json(s: &crate::service::ServerStatus) -> Value {
    json!({
        "root": s.root,
        "status": s.status,
        "serverPid": s.server_pid,
        "rssKb": s.rss_kb,
        "idleMs": s.idle_ms,
        "inFlight": s.in_flight,
        "openDocuments": s.open_documents,
        "stopped": s.stopped,
        "line": instance_line(s),
    })
}

/// One instance in a line: state, root, pid, memory, idle time, checks in
/// flight, open documents; or why the pool stopped it.
pub(super) fn instance_line(s: &crate::service::ServerStatus) -> String {
    let root = s
        .root
        .as_ref()
        .map(|r| r.display().to_string())
        .unwrap_or_default();
    let mut line = format!("{:<10} {root}", s.status);
    if let Some(pid) = s.server_pid {
        line.push_str(&format!(" (pid {pid}"));
        if let Some(kb) = s.rss_kb {
            line.push_str(&format!(", {}", super::daemon::kib(kb)));
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
            crate::engine::pool::StopReason::Evicted => "evicted for the cap",
            crate::engine::pool::StopReason::Idle => "stopped when idle",
        };
        line.push_str(&format!(" ({why}; starts again on demand)"));
    }
    line
}
