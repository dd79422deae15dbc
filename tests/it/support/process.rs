//! Processes, for the fault, bad-input, daemon and soak tests: which
//! processes descend from a pid (walking `/proc` on Linux, squiggle's own
//! process listing elsewhere), which of them work in a given directory,
//! how many file descriptors a process holds; the test process as a child
//! subreaper; a daemon killed when its test ends; and a test run alone in
//! a fresh copy of this binary, for a test that measures the whole process.
//!
//! Linux is where all of it is measured. Elsewhere (Windows under wine)
//! two facts have no counterpart the tests can trust: a process's working
//! directory (so [`descendants_in`] cannot tell one test's servers from
//! another's: it answers `None`) and its open descriptors (wine's handle
//! count is a stub: [`open_fds`] answers `None`). Tests skip only those
//! assertions there and say so.

use std::path::Path;
use std::process::Command;

use squiggle::daemon::client::alive;

/// Every live (non-zombie) process with its parent, from `/proc/*/stat`.
#[cfg(target_os = "linux")]
fn parents() -> std::collections::HashMap<u32, u32> {
    let mut map = std::collections::HashMap::new();
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
#[cfg(not(target_os = "linux"))]
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut found: Vec<u32> = Vec::new();
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for child in squiggle::platform::proc_info::children(p) {
            if !found.contains(&child) && alive(child) {
                found.push(child);
                frontier.push(child);
            }
        }
    }
    found
}

/// The live descendants of `pid` (children, grandchildren, …).
#[cfg(target_os = "linux")]
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
/// run their own. `None` where a process's working directory cannot be
/// read (off Linux).
pub fn descendants_in(pid: u32, dir: &Path) -> Option<Vec<u32>> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    Some(
        descendants(pid)
            .into_iter()
            .filter(|p| {
                std::fs::read_link(format!("/proc/{p}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
            })
            .collect(),
    )
}

/// Every live process whose working directory is under `dir`, whoever
/// its parent: one test's daemons, found without a subreaper. A daemon
/// that `squiggle check` starts outlives its starter and is re-parented to
/// the nearest subreaper; under qemu-user there is none (qemu 7.2 refuses
/// `PR_SET_CHILD_SUBREAPER` with EINVAL, so [`subreaper`] does nothing),
/// and the daemon is no descendant of the test there.
#[cfg(target_os = "linux")]
pub fn processes_in(dir: &Path) -> Vec<u32> {
    parents()
        .into_keys()
        .filter(|p| {
            std::fs::read_link(format!("/proc/{p}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .collect()
}

/// Open file descriptors of `pid` (this process for `None`); `None` off
/// Linux, where there is no count to trust (wine's handle count is a stub).
pub fn open_fds(pid: Option<u32>) -> Option<usize> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let dir = match pid {
        Some(pid) => format!("/proc/{pid}/fd"),
        None => "/proc/self/fd".to_string(),
    };
    Some(std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0))
}

/// Whether `now` open descriptors are at most `before` plus `slack`; true
/// where descriptors are not counted (`None`, off Linux).
pub fn fds_within(now: Option<usize>, before: Option<usize>, slack: usize) -> bool {
    match (now, before) {
        (Some(now), Some(before)) => now <= before + slack,
        _ => true,
    }
}

/// Whether no descendant of `pid` works under `dir` (the servers of one
/// test are gone); true where that cannot be told (`None`, off Linux).
pub fn none_left_in(pid: u32, dir: &Path) -> bool {
    descendants_in(pid, dir).is_none_or(|d| d.is_empty())
}

/// Resident set size of `pid` in KiB, from squiggle's own process facts
/// off Linux.
#[cfg(not(target_os = "linux"))]
pub fn rss_kib(pid: u32) -> Option<u64> {
    squiggle::platform::proc_info::rss_kb(pid)
}

/// Resident set size of `pid` in KiB, from `/proc/PID/status`.
#[cfg(target_os = "linux")]
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Makes this process a child subreaper, so that a process orphaned by one
/// the test started (a server left by `squiggle serve` or `squiggle mcp`) is
/// re-parented here and found by [`descendants`]. It marks the whole test
/// process, for every test after it: that is why the walks that look for a
/// test's leftovers filter by working directory ([`descendants_in`]), and
/// why liveness checks count a zombie as gone (an orphan re-parented here
/// is never reaped before the binary exits).
/// Elsewhere it does nothing: there is no subreaper off Linux (an orphan
/// keeps its dead parent's pid on Windows).
pub fn subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with an integer argument; it only marks this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    };
}

/// Kills a daemon the test started if the test ends with it alive.
pub struct Reaper(pub u32);

impl Drop for Reaper {
    fn drop(&mut self) {
        if alive(self.0) {
            kill(self.0);
        }
    }
}

/// Kills process `pid` now (SIGKILL; TerminateProcess on Windows).
pub fn kill(pid: u32) {
    #[cfg(unix)]
    // SAFETY: a plain kill(2) of a process the test started.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::Foundation::CloseHandle;
        use windows_sys::Win32::System::Threading::{
            OpenProcess, PROCESS_TERMINATE, TerminateProcess,
        };
        // SAFETY: no pointers; a null handle is a failure, and the handle
        // opened here is closed once.
        unsafe {
            let handle = OpenProcess(PROCESS_TERMINATE, 0, pid);
            if !handle.is_null() {
                TerminateProcess(handle, 1);
                CloseHandle(handle);
            }
        }
    }
}

/// Set in the copy of this binary that [`alone`] starts: the test it names
/// runs its body there.
const ALONE: &str = "SQUIGGLE_TEST_ALONE";

/// Runs `body` as the test `name` (its path as `--list` prints it, e.g.
/// `fault::engine::hang_forever`) alone in a fresh copy of this test
/// binary, and fails when it fails there. For a test that measures the
/// whole process (its open file descriptors): the other tests of this
/// binary run as threads beside it and open files of their own, so its
/// numbers would not be its own here.
pub fn alone(name: &str, body: impl FnOnce()) {
    if std::env::var_os(ALONE).is_some_and(|v| v == name) {
        body();
        return;
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}"));
    // Under an emulator with no binfmt_misc (qemu-user: scripts/cross-test
    // sets SQUIGGLE_TEST_RUNNER), the copy starts through the emulator.
    let runner = std::env::var("SQUIGGLE_TEST_RUNNER").unwrap_or_default();
    let mut argv: Vec<std::ffi::OsString> = runner.split_whitespace().map(Into::into).collect();
    argv.push(exe.clone().into());
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ALONE, name)
        .output()
        .unwrap_or_else(|e| panic!("run {} {name}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name}, run alone, failed:\n{}",
        super::both(&out)
    );
}
