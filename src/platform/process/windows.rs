//! Windows' side of processes: standard handles kept from children, Job
//! Objects, waiting on and looking at a process by its handle.

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, STILL_ACTIVE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SET_QUOTA,
    PROCESS_TERMINATE,
};

/// Runs `spawn` with this process's standard handles not inheritable.
///
/// Rust's standard library starts every child with `bInheritHandles`, so
/// a child receives each inheritable handle of its parent, whatever its
/// own standard streams are: a daemon would hold its starter's stdout
/// and stderr (pipes its reader waits on) for its whole life. The
/// standard library hands a child that inherits a stream a duplicate of
/// its own, so children started the usual way are unaffected; the flags
/// are put back afterwards for code that starts children otherwise.
/// Other handles the standard library opens are never inheritable, and
/// the ones it makes for a child's pipes exist only while it holds its
/// own lock around `CreateProcess`.
pub fn without_inherited_std_handles<T>(spawn: impl FnOnce() -> T) -> T {
    use std::os::windows::io::AsRawHandle;
    use std::sync::Mutex;
    use windows_sys::Win32::Foundation::{
        GetHandleInformation, HANDLE_FLAG_INHERIT, SetHandleInformation,
    };
    // Two starters at once must not put a flag back while the other spawns.
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let handles = [
        std::io::stdin().as_raw_handle(),
        std::io::stdout().as_raw_handle(),
        std::io::stderr().as_raw_handle(),
    ];
    let mut cleared = Vec::new();
    for handle in handles {
        let mut flags = 0u32;
        // SAFETY: `handle` is this process's standard handle (or null
        // or invalid, which both calls reject); `flags` is a valid
        // place to write.
        let inheritable = unsafe { GetHandleInformation(handle.cast(), &mut flags) } != 0
            && flags & HANDLE_FLAG_INHERIT != 0;
        // SAFETY: as above; only the inherit flag changes.
        if inheritable
            && unsafe { SetHandleInformation(handle.cast(), HANDLE_FLAG_INHERIT, 0) } != 0
        {
            cleared.push(handle);
        }
    }
    let result = spawn();
    for handle in cleared {
        // SAFETY: as above; puts back the flag cleared just before.
        unsafe { SetHandleInformation(handle.cast(), HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT) };
    }
    result
}

/// An owned handle, closed when dropped.
pub struct Handle(pub HANDLE);

// SAFETY: a kernel handle may be used and closed from any thread.
unsafe impl Send for Handle {}
// SAFETY: as above; the calls made through it are thread-safe.
unsafe impl Sync for Handle {}

impl Handle {
    pub fn open_process(pid: u32, access: u32) -> Option<Handle> {
        // SAFETY: no pointers; a null result is a failure.
        let raw = unsafe { OpenProcess(access, 0, pid) };
        (!raw.is_null()).then_some(Handle(raw))
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: a handle we own, closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// A Job Object that kills its processes when its last handle closes —
/// ours, at the latest when squiggle exits.
pub struct Job(Handle);

impl Job {
    pub fn adopt(pid: u32) -> Option<Job> {
        // SAFETY: null attributes and name are allowed.
        let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if raw.is_null() {
            tracing::debug!(
                "cannot create a job object: {}",
                std::io::Error::last_os_error()
            );
            return None;
        }
        let job = Job(Handle(raw));
        // SAFETY: a zeroed limit structure is valid; only one flag is set.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        let size = std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32;
        // SAFETY: the pointer and size describe `limits`, alive for the call.
        let set = unsafe {
            SetInformationJobObject(
                job.0.0,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                size,
            )
        };
        let process = Handle::open_process(pid, PROCESS_SET_QUOTA | PROCESS_TERMINATE)?;
        // SAFETY: two valid handles.
        let assigned = unsafe { AssignProcessToJobObject(job.0.0, process.0) };
        if set == 0 || assigned == 0 {
            tracing::debug!(
                pid,
                "cannot put the server in a job object: {}",
                std::io::Error::last_os_error()
            );
            return None;
        }
        Some(job)
    }

    pub fn terminate(&self) {
        // SAFETY: a valid job handle.
        unsafe { TerminateJobObject(self.0.0, 1) };
    }
}

/// `None` when the process cannot be opened (gone, or not ours).
pub fn wait_gone(pid: u32, timeout: std::time::Duration) -> Option<bool> {
    use windows_sys::Win32::Foundation::WAIT_OBJECT_0;
    use windows_sys::Win32::System::Threading::{PROCESS_SYNCHRONIZE, WaitForSingleObject};
    let process = Handle::open_process(pid, PROCESS_SYNCHRONIZE)?;
    let ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX - 1);
    // SAFETY: a valid process handle opened for waiting.
    Some(unsafe { WaitForSingleObject(process.0, ms) } == WAIT_OBJECT_0)
}

pub fn alive(pid: u32) -> bool {
    let Some(process) = Handle::open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION) else {
        return false;
    };
    let mut code = 0u32;
    // SAFETY: a valid handle and a pointer to a live u32.
    let ok = unsafe { GetExitCodeProcess(process.0, &mut code) };
    ok != 0 && code == STILL_ACTIVE as u32
}
