//! A status row as one line of text: what `squiggle status`, `daemon
//! status` and MCP's `lsp_status` print for a server, one rendering.

use super::pool::{ServerState, StopReason};
use super::status::ServerStatus;

/// One row after its id: an instance's state, root, pid, memory, idle
/// time, checks in flight and open documents (or why the pool stopped it);
/// a server without one, its state and the program found or why none runs.
pub fn row_line(s: &ServerStatus) -> String {
    let Some(root) = &s.root else {
        if s.status == ServerState::NotStarted {
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
        if s.status == ServerState::Stopped {
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
pub fn kib(kb: u64) -> String {
    format!("{:.1} MiB", kb as f64 / 1024.0)
}
