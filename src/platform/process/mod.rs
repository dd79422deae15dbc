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

#[cfg(target_os = "linux")]
mod linux;
#[cfg(windows)]
mod windows;

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

/// Waits until process `pid` is gone (a zombie counts as gone), at most
/// `timeout`; whether it is. Blocks the calling thread: on Linux on a
/// pidfd, on Windows on the process handle. Where the process gives no
/// handle to wait on (macOS; Linux before 5.3) it looks every 10 ms.
pub fn wait_gone(pid: u32, timeout: std::time::Duration) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(gone) = linux::wait_gone(pid, timeout) {
        return gone;
    }
    #[cfg(windows)]
    if let Some(gone) = windows::wait_gone(pid, timeout) {
        return gone;
    }
    let deadline = std::time::Instant::now() + timeout;
    while alive(pid) {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    true
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

    #[test]
    fn waiting_for_a_process_ends_when_it_exits_and_not_before() {
        let (program, args) = test_shell("read line", "set /p line=");
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let pid = child.id();
        assert!(!wait_gone(pid, std::time::Duration::ZERO));
        drop(child.stdin.take());
        assert!(wait_gone(pid, std::time::Duration::from_secs(60)));
        let _ = child.wait();
        assert!(wait_gone(u32::MAX - 1, std::time::Duration::ZERO));
    }
}
