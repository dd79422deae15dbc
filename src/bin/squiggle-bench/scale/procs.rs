//! The process tree under a daemon, read from `/proc`: how many server
//! processes live (an instance is a direct child; tsserver and friends are
//! its children) and what the daemon and all of them hold resident.

use std::collections::HashMap;

/// One look at a daemon's process tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tree {
    /// The daemon's own RSS, KiB.
    pub daemon_kib: u64,
    /// Direct children: one per live server instance.
    pub instances: usize,
    /// Every descendant process.
    pub processes: usize,
    /// Daemon plus every descendant, KiB.
    pub total_kib: u64,
    /// The largest direct child's subtree, KiB.
    pub largest_instance_kib: u64,
}

impl Tree {
    /// Sums of several daemons' trees (worktrees).
    pub fn add(self, other: Tree) -> Tree {
        Tree {
            daemon_kib: self.daemon_kib + other.daemon_kib,
            instances: self.instances + other.instances,
            processes: self.processes + other.processes,
            total_kib: self.total_kib + other.total_kib,
            largest_instance_kib: self.largest_instance_kib.max(other.largest_instance_kib),
        }
    }
}

pub fn mib(kib: u64) -> String {
    format!("{:.0} MiB", kib as f64 / 1024.0)
}

/// The tree under `pid` now.
pub fn tree(pid: u32) -> Tree {
    let (parents, rss) = scan();
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&child, &parent) in &parents {
        children.entry(parent).or_default().push(child);
    }
    let subtree = |root: u32| -> (usize, u64) {
        let mut stack = vec![root];
        let (mut count, mut kib) = (0, 0);
        while let Some(p) = stack.pop() {
            count += 1;
            kib += rss.get(&p).copied().unwrap_or(0);
            stack.extend(children.get(&p).into_iter().flatten().copied());
        }
        (count, kib)
    };
    let direct = children.get(&pid).cloned().unwrap_or_default();
    let mut out = Tree {
        daemon_kib: rss.get(&pid).copied().unwrap_or(0),
        instances: direct.len(),
        ..Tree::default()
    };
    let (count, kib) = subtree(pid);
    out.processes = count.saturating_sub(1);
    out.total_kib = kib;
    out.largest_instance_kib = direct.iter().map(|&c| subtree(c).1).max().unwrap_or(0);
    out
}

/// Every process's parent and RSS (KiB). Processes that vanish mid-scan are
/// skipped.
fn scan() -> (HashMap<u32, u32>, HashMap<u32, u64>) {
    let mut parents = HashMap::new();
    let mut rss = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return (parents, rss);
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        };
        if let Some(ppid) = field("PPid:") {
            parents.insert(pid, ppid as u32);
        }
        rss.insert(pid, field("VmRSS:").unwrap_or(0));
    }
    (parents, rss)
}
