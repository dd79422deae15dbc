//! Process and resource accounting for the fault, bad-input and soak tests:
//! which processes descend from a pid (walking `/proc`), which of them work
//! in a given directory, and how many file descriptors a process holds; and
//! the fault matrix the engine, service and MCP fault tests share (`table`).
#![allow(dead_code)]

pub mod table;

use std::collections::HashMap;
use std::path::Path;

/// Every live (non-zombie) process with its parent, from `/proc/*/stat`.
fn parents() -> HashMap<u32, u32> {
    let mut map = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return map;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("");
        let ppid = fields.next().and_then(|s| s.parse::<u32>().ok());
        if let (false, Some(ppid)) = (state == "Z", ppid) {
            map.insert(pid, ppid);
        }
    }
    map
}

/// The live descendants of `pid` (children, grandchildren, …).
pub fn descendants(pid: u32) -> Vec<u32> {
    let parents = parents();
    let mut found = Vec::new();
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for (&child, &parent) in &parents {
            if parent == p && !found.contains(&child) {
                found.push(child);
                frontier.push(child);
            }
        }
    }
    found
}

/// The live descendants of `pid` whose working directory is under `dir`:
/// the servers one test started, even while other tests of the same binary
/// run their own.
pub fn descendants_in(pid: u32, dir: &Path) -> Vec<u32> {
    descendants(pid)
        .into_iter()
        .filter(|p| {
            std::fs::read_link(format!("/proc/{p}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .collect()
}

/// Open file descriptors of `pid` (`None` for this process).
pub fn open_fds(pid: Option<u32>) -> usize {
    let dir = match pid {
        Some(pid) => format!("/proc/{pid}/fd"),
        None => "/proc/self/fd".to_string(),
    };
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// Resident set size of `pid` in KiB, from `/proc/PID/status`.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
