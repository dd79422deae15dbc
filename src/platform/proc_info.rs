//! What a process costs and what it started, for `status` and the pool's
//! memory figures: resident memory in KiB and the direct children of a
//! process. Linux reads `/proc`; macOS asks libproc (`proc_pidinfo`,
//! `proc_listchildpids`, in libSystem: no framework to link); Windows asks
//! for the working set (`K32GetProcessMemoryInfo`) and walks a toolhelp
//! snapshot for children. `None` or empty when the process is gone or may
//! not be inspected.

/// Resident memory of one process, in KiB.
pub fn rss_kb(pid: u32) -> Option<u64> {
    imp::rss_kb(pid)
}

/// The direct children of `pid`.
pub fn children(pid: u32) -> Vec<u32> {
    imp::children(pid)
}

#[cfg(any(target_os = "linux", target_os = "android"))]
mod imp {
    pub fn rss_kb(pid: u32) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    }

    /// The children of every thread of `pid`.
    pub fn children(pid: u32) -> Vec<u32> {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for task in tasks.flatten() {
            let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
        out
    }
}

#[cfg(target_os = "macos")]
mod imp {
    pub fn rss_kb(pid: u32) -> Option<u64> {
        let pid = i32::try_from(pid).ok()?;
        // SAFETY: a zeroed proc_taskinfo is valid; the size passed is its own.
        let mut info: libc::proc_taskinfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::proc_taskinfo>() as libc::c_int;
        // SAFETY: the buffer is `info`, `size` bytes, alive for the call.
        let got = unsafe {
            libc::proc_pidinfo(pid, libc::PROC_PIDTASKINFO, 0, (&raw mut info).cast(), size)
        };
        (got == size).then_some(info.pti_resident_size / 1024)
    }

    pub fn children(pid: u32) -> Vec<u32> {
        let Ok(pid) = i32::try_from(pid) else {
            return Vec::new();
        };
        let mut pids = vec![0 as libc::pid_t; 256];
        let bytes = (pids.len() * std::mem::size_of::<libc::pid_t>()) as libc::c_int;
        // SAFETY: the buffer holds `bytes` bytes and outlives the call.
        let n = unsafe { libc::proc_listchildpids(pid, pids.as_mut_ptr().cast(), bytes) };
        let count = usize::try_from(n).unwrap_or(0).min(pids.len());
        pids[..count]
            .iter()
            .filter_map(|p| u32::try_from(*p).ok())
            .filter(|p| *p != 0)
            .collect()
    }
}

#[cfg(windows)]
mod imp {
    use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW,
        TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::ProcessStatus::{
        K32GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS,
    };
    use windows_sys::Win32::System::Threading::{
        PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_VM_READ,
    };

    use crate::platform::process::WindowsHandle as Handle;

    pub fn rss_kb(pid: u32) -> Option<u64> {
        let process =
            Handle::open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ)?;
        // SAFETY: a zeroed counters structure is valid.
        let mut counters: PROCESS_MEMORY_COUNTERS = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
        counters.cb = size;
        // SAFETY: a valid handle; the buffer is `counters`, `size` bytes.
        let ok = unsafe { K32GetProcessMemoryInfo(process.0, &mut counters, size) };
        (ok != 0).then_some(counters.WorkingSetSize as u64 / 1024)
    }

    pub fn children(pid: u32) -> Vec<u32> {
        // SAFETY: no pointers; INVALID_HANDLE_VALUE is a failure.
        let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
        if raw == INVALID_HANDLE_VALUE {
            return Vec::new();
        }
        let snapshot = Handle(raw);
        // SAFETY: a zeroed entry with its size set is what the walk expects.
        let mut entry: PROCESSENTRY32W = unsafe { std::mem::zeroed() };
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut out = Vec::new();
        // SAFETY: a valid snapshot and a pointer to a live entry, each call.
        let mut more = unsafe { Process32FirstW(snapshot.0, &mut entry) } != 0;
        while more {
            if entry.th32ParentProcessID == pid && entry.th32ProcessID != pid {
                out.push(entry.th32ProcessID);
            }
            // SAFETY: as above.
            more = unsafe { Process32NextW(snapshot.0, &mut entry) } != 0;
        }
        out
    }
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    windows
)))]
mod imp {
    pub fn rss_kb(_pid: u32) -> Option<u64> {
        None
    }

    pub fn children(_pid: u32) -> Vec<u32> {
        Vec::new()
    }
}

/// User plus system CPU seconds of this process, or of its reaped children
/// when `children` (Unix: `getrusage`); NaN where it cannot tell.
#[cfg(unix)]
pub fn cpu_seconds(children: bool) -> f64 {
    let who = if children {
        libc::RUSAGE_CHILDREN
    } else {
        libc::RUSAGE_SELF
    };
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// NaN: no CPU time reading here yet.
#[cfg(not(unix))]
pub fn cpu_seconds(_children: bool) -> f64 {
    f64::NAN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_our_own_rss() {
        assert!(rss_kb(std::process::id()).is_some_and(|kb| kb > 0));
    }

    #[cfg(unix)]
    #[test]
    fn a_child_is_found_and_has_memory() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let found = children(std::process::id()).contains(&child.id());
        let memory = rss_kb(child.id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(found, "the child is not among our children");
        assert!(memory.is_some_and(|kb| kb > 0), "{memory:?}");
    }

    #[test]
    fn a_missing_process_has_no_rss_and_no_children() {
        assert_eq!(rss_kb(u32::MAX - 1), None);
        assert!(children(u32::MAX - 1).is_empty());
    }
}
