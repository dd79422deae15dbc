//! A language server's process: spawned directly (no shell), as the root
//! of a process tree of its own ([`crate::platform::process::Tree`]: a
//! process group on Unix, a Job Object on Windows) so that killing it also
//! kills what it spawned (tsserver, node workers), with stderr drained in the background — a full stderr pipe
//! deadlocks the child — into a bounded tail kept for error messages.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use crate::platform::process::{Tree, own_tree};

/// How much of a server's stderr is kept for error messages.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// What to run. Arguments are passed as-is: never through a shell.
#[derive(Debug, Clone)]
pub struct Spawn {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
}

/// The last bytes a server wrote to stderr.
#[derive(Debug, Default)]
pub struct StderrTail {
    bytes: VecDeque<u8>,
    total: u64,
}

impl StderrTail {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let keep = chunk.len().min(STDERR_TAIL_BYTES);
        let chunk = &chunk[chunk.len() - keep..];
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(STDERR_TAIL_BYTES);
        self.bytes.drain(..overflow);
        self.bytes.extend(chunk);
    }

    pub fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut v = Vec::with_capacity(a.len() + b.len());
        v.extend_from_slice(a);
        v.extend_from_slice(b);
        String::from_utf8_lossy(&v).into_owned()
    }

    pub fn total_bytes(&self) -> u64 {
        self.total
    }
}

/// A running server process.
pub struct ServerProcess {
    pub pid: u32,
    /// When it was spawned: a check soon after a start (a session's warm-up)
    /// still gets the first-touch budget, counted from here.
    pub spawned: std::time::Instant,
    /// `Some` once the process has exited.
    pub exit: watch::Receiver<Option<ExitStatus>>,
    pub stderr: Arc<Mutex<StderrTail>>,
    kill: Mutex<Option<oneshot::Sender<()>>>,
    tree: Arc<Tree>,
}

impl ServerProcess {
    /// Spawns the server; returns the process handle and its stdio.
    pub fn spawn(
        spec: &Spawn,
        label: &str,
    ) -> std::io::Result<(ServerProcess, ChildStdin, ChildStdout)> {
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        own_tree(&mut command);
        let mut child = command.spawn()?;
        let pid = child.id().unwrap_or(0);
        let tree = Arc::new(Tree::adopt(pid));
        let missing = || std::io::Error::other("child stdio was not captured");
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr_pipe = child.stderr.take().ok_or_else(missing)?;

        let stderr = Arc::new(Mutex::new(StderrTail::default()));
        tokio::spawn(drain_stderr(stderr_pipe, stderr.clone(), label.to_string()));

        let (exit_tx, exit_rx) = watch::channel(None);
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let label = label.to_string();
        let waited_tree = tree.clone();
        tokio::spawn(async move {
            let status = tokio::select! {
                status = child.wait() => status,
                _ = kill_rx => {
                    waited_tree.kill();
                    child.wait().await
                }
            };
            // Whatever the server left behind in its tree goes with it.
            waited_tree.kill();
            match status {
                Ok(status) => {
                    tracing::debug!(server = %label, pid, %status, "server process exited");
                    exit_tx.send_replace(Some(status));
                }
                Err(e) => {
                    tracing::warn!(server = %label, pid, "waiting for server process failed: {e}")
                }
            }
        });
        let process = ServerProcess {
            spawned: std::time::Instant::now(),
            pid,
            exit: exit_rx,
            stderr,
            kill: Mutex::new(Some(kill_tx)),
            tree,
        };
        Ok((process, stdin, stdout))
    }

    /// Kills the process tree now (idempotent).
    pub fn kill(&self) {
        if let Ok(mut guard) = self.kill.lock()
            && let Some(tx) = guard.take()
            && tx.send(()).is_err()
        {
            self.tree.kill();
        }
    }

    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// Waits until the process has exited, or the timeout passes.
    pub async fn wait_exit(&self, timeout: std::time::Duration) -> Option<ExitStatus> {
        let mut rx = self.exit.clone();
        let waited = tokio::time::timeout(timeout, rx.wait_for(|s| s.is_some())).await;
        match waited {
            Ok(Ok(status)) => *status,
            _ => None,
        }
    }

    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|t| t.text()).unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.exit_status().is_none() {
            self.tree.kill();
        }
    }
}

async fn drain_stderr(
    mut pipe: tokio::process::ChildStderr,
    tail: Arc<Mutex<StderrTail>>,
    label: String,
) {
    // 64 KiB a read: on Windows each read of a child's pipe is a hop
    // through tokio's blocking pool, so a chatty server costs fewer hops.
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let chunk = &buf[..n];
                if tracing::enabled!(tracing::Level::TRACE) {
                    tracing::trace!(server = %label, "stderr: {}", String::from_utf8_lossy(chunk).trim_end());
                }
                if let Ok(mut t) = tail.lock() {
                    t.push(chunk);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_only_the_last_bytes() {
        let mut tail = StderrTail::default();
        tail.push(&vec![b'a'; STDERR_TAIL_BYTES]);
        tail.push(b"end");
        let text = tail.text();
        assert_eq!(text.len(), STDERR_TAIL_BYTES);
        assert!(text.ends_with("aend"));
        assert_eq!(tail.total_bytes(), STDERR_TAIL_BYTES as u64 + 3);
        tail.push(&vec![b'z'; 3 * STDERR_TAIL_BYTES]);
        assert_eq!(tail.text(), "z".repeat(STDERR_TAIL_BYTES));
    }

    #[tokio::test]
    async fn spawn_drains_stderr_and_reports_exit() {
        let (program, args) =
            crate::platform::process::test_shell("echo oops >&2; exit 7", "echo oops 1>&2& exit 7");
        let spec = Spawn {
            program,
            args,
            env: vec![],
            cwd: std::env::temp_dir(),
        };
        let Ok((process, _stdin, _stdout)) = ServerProcess::spawn(&spec, "sh") else {
            panic!("spawn failed")
        };
        let status = process.wait_exit(std::time::Duration::from_secs(5)).await;
        assert_eq!(status.and_then(|s| s.code()), Some(7));
        // stderr is drained concurrently; give the drain task a moment to finish.
        for _ in 0..100 {
            if process.stderr_tail().contains("oops") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(process.stderr_tail().contains("oops"));
    }
}
