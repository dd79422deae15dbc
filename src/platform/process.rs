//! Starting and stopping processes the platform's way: a language server
//! and everything it spawns (tsserver, node workers) is one tree that dies
//! together — on Unix a process group squiggle kills with one signal, on
//! Windows a Job Object that closes with squiggle (nothing outlives it,
//! even when squiggle itself is killed). Finding a program on Windows
//! follows `PATHEXT`, so the `.cmd` shims npm installs are found; Rust's
//! standard library then starts a `.cmd`/`.bat` through `cmd.exe` with
//! its arguments escaped for it (and refuses arguments it cannot escape).
//! The daemon is started detached from the terminal and the caller's
//! process group, so it outlives the short process that started it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where `program` is in `dir`: `dir/program` on Unix when executable; on
/// Windows also `dir/program.EXT` for each of `PATHEXT`'s extensions when
/// `program` has none of its own.
pub fn find_in_dir(dir: &Path, program: &str) -> Option<PathBuf> {
    candidates(program, pathext().as_deref())
        .into_iter()
        .map(|name| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// The names `program` may have on disk: itself, then (with `pathext`,
/// Windows' `PATHEXT`, and no extension of its own) itself with each
/// extension. Pure, so that it is tested on every platform.
pub fn candidates(program: &str, pathext: Option<&str>) -> Vec<OsString> {
    let mut names = vec![OsString::from(program)];
    let Some(pathext) = pathext else {
        return names;
    };
    if Path::new(program).extension().is_some() {
        return names;
    }
    for ext in pathext
        .split(';')
        .filter(|e| e.starts_with('.') && e.len() > 1)
    {
        names.push(OsString::from(format!(
            "{program}{}",
            ext.to_ascii_lowercase()
        )));
    }
    names
}

#[cfg(windows)]
fn pathext() -> Option<String> {
    Some(std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".to_string()))
}

#[cfg(not(windows))]
fn pathext() -> Option<String> {
    None
}

/// A regular file (symlinks followed, as `node_modules/.bin` entries are)
/// that may be executed: on Unix an execute bit must be set.
#[cfg(unix)]
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
}

/// Lets anyone execute the file at `path` (mode 0755 on Unix; nothing to do
/// on Windows, where the extension decides).
#[cfg(unix)]
pub fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
pub fn make_executable(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Makes a server's process the root of a tree of its own before it
/// starts: on Unix the leader of a new process group; on Windows without
/// a console window of its own (its tree joins a Job Object once started,
/// [`Tree::adopt`]).
pub fn own_tree(command: &mut tokio::process::Command) {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(windows)]
    command.creation_flags(windows_sys::Win32::System::Threading::CREATE_NO_WINDOW);
}

/// Starts the daemon in a session of its own (Unix: `setsid`; Windows:
/// detached from the console and the caller's Ctrl-C group), holding none
/// of its starter's handles but the ones `command` names: whoever reads
/// the starter's output (an agent waiting on its hook, a test runner) sees
/// its end when the starter exits, though the daemon lives on.
pub fn spawn_detached(command: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe; the closure touches nothing else.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        // Unix children inherit only descriptors without close-on-exec,
        // which Rust's standard library sets on every one it opens; the
        // standard streams are those `command` names.
        command.spawn()
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        use windows_sys::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS};
        command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
        windows::without_inherited_std_handles(|| command.spawn())
    }
}

/// A started server's process tree, killed as one.
pub struct Tree {
    pid: u32,
    #[cfg(windows)]
    job: Option<windows::Job>,
}

impl Tree {
    /// Takes the process `pid` (started with [`own_tree`]) and all it will
    /// start as one tree. On Windows the Job Object is created here: a
    /// child the server started before this call is not in it.
    pub fn adopt(pid: u32) -> Tree {
        Tree {
            pid,
            #[cfg(windows)]
            job: windows::Job::adopt(pid),
        }
    }

    /// Kills the whole tree now. Harmless when it is gone already.
    pub fn kill(&self) {
        if self.pid == 0 {
            return;
        }
        #[cfg(unix)]
        {
            let Ok(pgid) = i32::try_from(self.pid) else {
                return;
            };
            // SAFETY: kill(2) with a negative pid signals the process group
            // `own_tree` made the server the leader of; it has no
            // memory-safety preconditions. ESRCH (already gone) is fine.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        #[cfg(windows)]
        if let Some(job) = &self.job {
            job.terminate();
        }
    }
}

/// Whether process `pid` exists (a zombie counts as gone).
pub fn alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        return !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
    }
    #[cfg(unix)]
    {
        let Ok(pid) = i32::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid, 0) == 0 }
    }
    #[cfg(windows)]
    {
        windows::alive(pid)
    }
}

#[cfg(windows)]
mod windows {
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
            unsafe {
                SetHandleInformation(handle.cast(), HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)
            };
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

    pub fn alive(pid: u32) -> bool {
        let Some(process) = Handle::open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION) else {
            return false;
        };
        let mut code = 0u32;
        // SAFETY: a valid handle and a pointer to a live u32.
        let ok = unsafe { GetExitCodeProcess(process.0, &mut code) };
        ok != 0 && code == STILL_ACTIVE as u32
    }
}

#[cfg(windows)]
pub(crate) use windows::Handle as WindowsHandle;

/// For tests that need a child doing one small thing: the system's shell
/// and its arguments to run the script written for it (`/bin/sh -c unix`;
/// `cmd /c windows` on Windows).
#[cfg(test)]
pub(crate) fn test_shell(unix: &str, windows: &str) -> (PathBuf, Vec<String>) {
    if cfg!(windows) {
        ("cmd".into(), vec!["/c".into(), windows.into()])
    } else {
        ("/bin/sh".into(), vec!["-c".into(), unix.into()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_names_follow_pathext_unless_the_program_has_an_extension() {
        assert_eq!(
            candidates("pyright-langserver", Some(".COM;.EXE;.BAT;.CMD")),
            [
                "pyright-langserver",
                "pyright-langserver.com",
                "pyright-langserver.exe",
                "pyright-langserver.bat",
                "pyright-langserver.cmd"
            ]
        );
        assert_eq!(candidates("gopls.exe", Some(".EXE;.CMD")), ["gopls.exe"]);
        assert_eq!(candidates("gopls", None), ["gopls"]);
        assert_eq!(candidates("x", Some(";;.CMD;bad")), ["x", "x.cmd"]);
    }

    #[test]
    fn a_shim_is_found_by_its_extension() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let shim = dir.path().join("server.cmd");
        std::fs::write(&shim, "@echo off\r\n").unwrap_or_else(|e| panic!("{e}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755));
        }
        let names = candidates("server", Some(".EXE;.CMD"));
        let found = names
            .iter()
            .map(|n| dir.path().join(n))
            .find(|p| is_executable(p));
        assert_eq!(found, Some(shim));
    }

    #[test]
    fn we_are_alive_and_a_missing_process_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX - 1));
    }
}
