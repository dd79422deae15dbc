//! A status row as one line of text: what `squiggle status`, `daemon
//! status` and MCP's `lsp_status` print for a server, one rendering.

use super::pool::{ServerState, StopReason};
use super::status::ServerStatus;

/// One row after its id: an instance's state, root, pid, memory, idle
/// time, checks in flight and open documents (or why the pool stopped it),
/// version, restarts and indexing; a server without one, its state and the
/// program found or why none runs.
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
    if let Some(process) = process_facts(s) {
        line.push_str(&format!(" ({process})"));
    } else if let Some(reason) = s.stopped {
        line.push_str(&format!(" ({})", stopped(s, reason)));
    } else if let Some(detail) = &s.detail {
        line.push_str(&format!(" ({detail})"));
    }
    if let Some(version) = &s.version {
        line.push_str(&format!(", version {version}"));
    }
    if s.starts > 1 {
        line.push_str(&format!(", started {} times", s.starts));
    }
    if !s.progress.is_empty() {
        line.push_str(&format!(", indexing: {}", s.progress.join(", ")));
    }
    // A live instance's detail (why it answers as it does) after the rest.
    if let (Some(_), Some(detail)) = (process_facts(s), &s.detail) {
        line.push_str(&format!(" — {detail}"));
    }
    line
}

/// A live instance's process (or where it is attached), memory, idle
/// time, checks in flight and open documents; `None` for one not live.
fn process_facts(s: &ServerStatus) -> Option<String> {
    let mut facts = match (s.server_pid, &s.endpoint) {
        (Some(pid), _) => format!("pid {pid}"),
        (None, Some(endpoint)) if s.open_documents.is_some() => format!("attached at {endpoint}"),
        _ => return None,
    };
    if let Some(kb) = s.rss_kb {
        facts.push_str(&format!(", {}", kib(kb)));
    }
    if let Some(ms) = s.idle_ms {
        facts.push_str(&format!(", idle {}s", ms / 1000));
    }
    if let Some(n) = s.in_flight.filter(|n| *n > 0) {
        facts.push_str(&format!(", {n} check(s) in flight"));
    }
    if let Some(n) = s.open_documents {
        facts.push_str(&format!(", {n} open"));
    }
    Some(facts)
}

/// Why the pool stopped an instance, and whether it starts again: only a
/// stopped server does; one the configuration now turns off or holds
/// back says why instead.
fn stopped(s: &ServerStatus, reason: StopReason) -> String {
    let why = match reason {
        StopReason::Evicted => "evicted for the cap",
        StopReason::Idle => "stopped when idle",
        StopReason::Reconfigured => "stopped for a configuration change",
    };
    if s.status == ServerState::Stopped {
        return format!("{why}; starts again on demand");
    }
    match &s.detail {
        Some(detail) => format!("{why}; {detail}"),
        None => why.to_string(),
    }
}

/// KiB as MiB with one decimal.
pub fn kib(kb: u64) -> String {
    format!("{:.1} MiB", kb as f64 / 1024.0)
}
