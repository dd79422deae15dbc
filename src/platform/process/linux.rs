//! Linux's side of processes: waiting on a pidfd.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// `None` when no pidfd could be had for a process that may still be
/// there, or the wait was interrupted.
pub fn wait_gone(pid: u32, timeout: Duration) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new
    // descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        let gone = std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        return gone.then_some(true);
    }
    // SAFETY: the descriptor the kernel just returned, owned from here.
    let fd = unsafe { OwnedFd::from_raw_fd(i32::try_from(fd).ok()?) };
    let mut poll = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one pollfd, alive for the call.
    match unsafe { libc::poll(&mut poll, 1, ms) } {
        0 => Some(false),
        n if n > 0 => Some(true),
        _ => None,
    }
}
