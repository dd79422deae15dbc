//! Talking to a workspace's daemon: connect, start one when there is none,
//! and the calls hooks and `squiggle check` make. Every call has a deadline
//! and every failure is an `Err`, so callers fall back to checking
//! in-process; the daemon is an optimization, never a dependency.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::BufReader;

use super::socket::{self, Paths};
use super::{DaemonError, DaemonStatus, method};
use crate::engine::Mutation;
use crate::engine::tools::ToolResult;
use crate::jsonrpc::framing::{FrameReader, write_frame};
use crate::jsonrpc::message::{Message, RequestId};
use crate::platform::transport::{self, Reader, Writer};
use crate::service::wire::method::{Check, Warm};
use crate::service::wire::{CheckParams, Method, NoParams, WarmParams};
use crate::workspace::Workspace;

/// How long a started daemon has to start listening.
pub const START_TIMEOUT: Duration = Duration::from_secs(3);
/// The deadline of `squiggle/check` (servers' own deadlines are shorter).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(60);
/// The deadline of small requests (status, shutdown).
pub const SMALL_TIMEOUT: Duration = Duration::from_secs(5);

/// How to find and start daemons.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `squiggle` binary to start as `daemon run` (default: this one).
    pub exe: PathBuf,
    /// Connect to (and start) the daemon that trusts the workspace config.
    pub trust_workspace: bool,
    /// Instead of `$XDG_RUNTIME_DIR`.
    pub runtime_dir: Option<PathBuf>,
    /// Extra environment for a started daemon.
    pub env: Vec<(OsString, OsString)>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("squiggle")),
            trust_workspace: false,
            runtime_dir: None,
            env: Vec::new(),
        }
    }
}

impl Options {
    /// The canonical workspace root for `root` and its daemon's paths.
    pub fn locate(&self, root: &Path) -> Result<(PathBuf, Paths), DaemonError> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let workspace =
            Workspace::discover(Some(root), &cwd).map_err(|source| DaemonError::Workspace {
                root: root.to_path_buf(),
                source,
            })?;
        let root = workspace.root().to_path_buf();
        let paths = socket::paths(&root, self.trust_workspace, self.runtime_dir.as_deref());
        Ok((root, paths))
    }
}

/// One connection to a daemon; requests go one at a time.
pub struct Connection {
    reader: FrameReader<BufReader<Reader>>,
    writer: Writer,
    next_id: i64,
}

impl Connection {
    fn new((read, writer): (Reader, Writer)) -> Connection {
        Connection {
            reader: FrameReader::new(BufReader::new(read)),
            writer,
            next_id: 0,
        }
    }

    /// Sends `M` with `params` and reads its answer, until `timeout`.
    pub async fn call<M: Method>(
        &mut self,
        params: &M::Params,
        timeout: Duration,
    ) -> Result<M::Answer, DaemonError> {
        let params = serde_json::to_value(params).map_err(|e| DaemonError::BadRequest {
            method: M::NAME.to_string(),
            reason: e.to_string(),
        })?;
        let value = self.request(M::NAME, params, timeout).await?;
        serde_json::from_value(value).map_err(|e| DaemonError::BadReply {
            method: M::NAME.to_string(),
            reason: e.to_string(),
        })
    }

    /// Sends `method` with raw `params` and waits for its answer until
    /// `timeout`; squiggle itself sends typed requests through [`call`](Self::call).
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, DaemonError> {
        self.next_id += 1;
        let id = RequestId::Number(self.next_id);
        let request = Message::Request {
            id: id.clone(),
            method: method.to_string(),
            params,
        };
        let exchange = async {
            write_frame(&mut self.writer, &request.to_bytes())
                .await
                .map_err(|_| DaemonError::Closed)?;
            loop {
                let body = match self.reader.read_frame().await {
                    Ok(Some(body)) => body,
                    Ok(None) | Err(_) => return Err(DaemonError::Closed),
                };
                if let Ok(Message::Response {
                    id: Some(got),
                    result,
                }) = Message::parse(&body)
                    && got == id
                {
                    return result.map_err(|error| DaemonError::Rpc {
                        method: method.to_string(),
                        error,
                    });
                }
            }
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .unwrap_or_else(|_| Err(DaemonError::Timeout(method.to_string())))
    }

    pub async fn status(&mut self) -> Result<DaemonStatus, DaemonError> {
        self.call::<method::DaemonStatus>(&NoParams {}, SMALL_TIMEOUT)
            .await
    }

    /// Checks `files` on disk after `mutation` (`otherFiles` decides
    /// whether their importers are reported too).
    pub async fn check(
        &mut self,
        files: &[PathBuf],
        mutation: Mutation,
    ) -> Result<ToolResult, DaemonError> {
        let params = CheckParams {
            file_paths: files.to_vec(),
            mutation,
            ..CheckParams::default()
        };
        self.call::<Check>(&params, CHECK_TIMEOUT).await
    }
}

/// The running daemon for `root`, or `None` when there is none.
pub async fn connect(root: &Path, opts: &Options) -> Result<Option<Connection>, DaemonError> {
    let (_, paths) = opts.locate(root)?;
    socket::ensure_private_dir(&paths.dir)?;
    connect_at(&paths.socket).await
}

async fn connect_at(socket: &Path) -> Result<Option<Connection>, DaemonError> {
    match transport::connect(socket).await {
        Ok(stream) => Ok(stream.map(Connection::new)),
        Err(e) => Err(DaemonError::io(format!(
            "cannot connect to {}",
            socket.display()
        ))(e)),
    }
}

/// Connects to the daemon for `root`, starting one when there is none.
/// `None` when that failed (the reason is logged): check in-process.
pub async fn connect_or_spawn(root: &Path, opts: &Options) -> Option<Connection> {
    match try_connect_or_spawn(root, opts).await {
        Ok(connection) => Some(connection),
        Err(e) => {
            tracing::debug!("no daemon: {e}");
            None
        }
    }
}

/// [`connect_or_spawn`] with the reason it failed.
pub async fn try_connect_or_spawn(root: &Path, opts: &Options) -> Result<Connection, DaemonError> {
    let (root, paths) = opts.locate(root)?;
    socket::ensure_private_dir(&paths.dir)?;
    if let Some(connection) = connect_at(&paths.socket).await? {
        return Ok(connection);
    }
    let mut child = spawn(&root, &paths, opts)?;
    // The daemon says one line once its endpoint is bound (or a live one was
    // found); it exits without one when it failed. Either ends the wait.
    if let Some(stdout) = child.stdout.take() {
        let _ = tokio::time::timeout(START_TIMEOUT, said_or_exited(stdout)).await;
    }
    let connection = connect_at(&paths.socket).await?;
    // Reap the daemon when it exits, so it never lingers as a zombie.
    std::thread::spawn(move || child.wait());
    connection.ok_or(DaemonError::DidNotStart {
        root,
        log: paths.log,
    })
}

/// Resolves once the daemon has written its line or closed its stdout (it
/// exited). Read on a thread of its own, which ends with the daemon's
/// line, so a daemon that never answers holds no runtime thread.
fn said_or_exited(stdout: std::process::ChildStdout) -> tokio::sync::oneshot::Receiver<()> {
    let (said, heard) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        let _ = std::io::BufReader::new(stdout).read_line(&mut String::new());
        let _ = said.send(());
    });
    heard
}

/// Starts `squiggle daemon run` in its own session, stdin detached, stdout
/// a pipe it says it is listening on, stderr to the log file next to the
/// socket.
fn spawn(root: &Path, paths: &Paths, opts: &Options) -> Result<std::process::Child, DaemonError> {
    let log = crate::platform::paths::private_file()
        .create(true)
        .append(true)
        .open(&paths.log)
        .map_err(DaemonError::io(format!(
            "cannot open {}",
            paths.log.display()
        )))?;
    let mut command = std::process::Command::new(&opts.exe);
    command.args(["daemon", "run", "--root"]).arg(root);
    if opts.trust_workspace {
        command.arg("--trust-workspace");
    }
    if let Some(dir) = &opts.runtime_dir {
        command.env("XDG_RUNTIME_DIR", dir);
    }
    command
        .envs(opts.env.iter().map(|(k, v)| (k, v)))
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log);
    crate::platform::process::spawn_detached(&mut command).map_err(DaemonError::io(format!(
        "cannot start {} daemon run",
        opts.exe.display()
    )))
}

/// Checks `files` in the daemon for `root` (started when needed). Any
/// `Err` means: check in-process instead.
pub async fn check(
    root: &Path,
    files: Vec<PathBuf>,
    mutation: Mutation,
) -> Result<ToolResult, DaemonError> {
    check_with(root, files, mutation, &Options::default()).await
}

/// [`check`] with explicit options.
pub async fn check_with(
    root: &Path,
    files: Vec<PathBuf>,
    mutation: Mutation,
    opts: &Options,
) -> Result<ToolResult, DaemonError> {
    let mut connection = try_connect_or_spawn(root, opts).await?;
    connection.check(&files, mutation).await
}

/// Asks the daemon for `root` (started when needed) to warm its servers in
/// the background; answers with the files it checks, relative to the root,
/// without waiting for them.
pub async fn warm(root: &Path, opts: &Options) -> Result<Vec<String>, DaemonError> {
    let mut connection = try_connect_or_spawn(root, opts).await?;
    let reply = connection
        .call::<Warm>(&WarmParams::default(), SMALL_TIMEOUT)
        .await?;
    Ok(reply.files)
}

/// How long `daemon start --warm` waits for the warm-up and the survey.
pub const SURVEY_TIMEOUT: Duration = Duration::from_secs(600);

/// [`warm`], answered once the warm-up and the survey of the workspace's
/// files have ended: how many files the survey remembered.
pub async fn warm_and_wait(root: &Path, opts: &Options) -> Result<usize, DaemonError> {
    let mut connection = try_connect_or_spawn(root, opts).await?;
    let reply = connection
        .call::<Warm>(&WarmParams { wait: true }, SURVEY_TIMEOUT)
        .await?;
    Ok(reply.surveyed.unwrap_or_default())
}

/// The running daemon's status; `Err(NotRunning)` when there is none.
pub async fn status(root: &Path, opts: &Options) -> Result<DaemonStatus, DaemonError> {
    let (canonical, _) = opts.locate(root)?;
    let mut connection = connect(root, opts)
        .await?
        .ok_or(DaemonError::NotRunning(canonical))?;
    connection.status().await
}

/// Stops the daemon for `root` and waits until its process is gone.
/// `Err(NotRunning)` when there is none.
pub async fn stop(root: &Path, opts: &Options) -> Result<u32, DaemonError> {
    let (canonical, _) = opts.locate(root)?;
    let mut connection = connect(root, opts)
        .await?
        .ok_or(DaemonError::NotRunning(canonical))?;
    let pid = connection.status().await?.pid;
    match connection
        .call::<method::DaemonShutdown>(&NoParams {}, SMALL_TIMEOUT)
        .await
    {
        Ok(_) | Err(DaemonError::Closed) => {}
        Err(e) => return Err(e),
    }
    let wait = SMALL_TIMEOUT + Duration::from_secs(5);
    let gone = tokio::task::spawn_blocking(move || crate::platform::process::wait_gone(pid, wait))
        .await
        .unwrap_or(false);
    if !gone {
        return Err(DaemonError::Timeout("squiggle/daemonShutdown".into()));
    }
    Ok(pid)
}

/// Whether process `pid` exists (a zombie counts as gone).
pub fn alive(pid: u32) -> bool {
    crate::platform::process::alive(pid)
}
