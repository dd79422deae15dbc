//! The daemon process (`squiggle daemon run`): bind the workspace's socket,
//! serve every connection with the service protocol on one shared engine,
//! exit after the idle timeout or on `squiggle/daemonShutdown`.
//!
//! Binding, under the starters' file lock, is what makes one daemon win a
//! race: a second daemon finds a live endpoint and exits 0. An endpoint
//! nobody answers on (a daemon that was killed) is removed first, under
//! that lock, so that two starters never remove each other's live one.
//! The transport is the platform's ([`crate::platform::transport`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use super::method::{DaemonShutdown, DaemonStatus as DaemonStatusMethod};
use super::socket::{self, Paths};
use super::{DaemonError, DaemonStatus};
use crate::engine::{Engine, EngineOptions, Live};
use crate::jsonrpc::message::ResponseError;
use crate::mutex::lock;
use crate::platform::transport::Listener;
use crate::service::wire::Method;
use crate::service::{Host, respond_now, serve_connection_with};

/// Overrides `daemonIdleMinutes` in milliseconds (tests, debugging).
pub const IDLE_ENV: &str = "SQUIGGLE_DAEMON_IDLE_MS";

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub root: Option<PathBuf>,
    pub trust_workspace: bool,
    /// Where sockets live instead of `$XDG_RUNTIME_DIR`.
    pub runtime_dir: Option<PathBuf>,
}

/// How `run` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Another daemon serves this workspace already.
    AlreadyRunning,
    Idle,
    Shutdown,
}

struct Daemon {
    /// The engine, kept in step with the configuration files.
    live: Live,
    trusted: bool,
    started: std::time::Instant,
    /// `SQUIGGLE_DAEMON_IDLE_MS`, which overrides `daemonIdleMinutes`.
    idle_override: Option<Duration>,
    requests: AtomicU64,
    /// Requests being answered; watched by the shutdown, which lets them
    /// finish writing their answers first.
    in_flight: watch::Sender<u64>,
    last_activity: Mutex<Instant>,
    shutdown: Notify,
}

impl Daemon {
    /// How long the daemon waits idle before it exits: the configuration's
    /// as it is now, unless the environment overrides it.
    fn idle(&self) -> Duration {
        self.idle_override
            .unwrap_or_else(|| self.live.current().config().daemon_idle)
    }
}

impl Host for Daemon {
    fn request_started(&self) {
        self.requests.fetch_add(1, Ordering::SeqCst);
        self.in_flight.send_modify(|n| *n += 1);
        *lock(&self.last_activity) = Instant::now();
    }

    fn request_finished(&self) {
        self.in_flight.send_modify(|n| *n = n.saturating_sub(1));
        *lock(&self.last_activity) = Instant::now();
    }

    fn engine(&self) -> Option<Arc<Engine>> {
        Some(self.live.current())
    }

    /// A client that hung up gave up on its answer: its mutation must not
    /// land later.
    fn cancel_on_disconnect(&self) -> bool {
        true
    }

    fn handle(&self, method: &str, params: &Value) -> Option<Result<Value, ResponseError>> {
        let answer = match method {
            DaemonStatusMethod::NAME => respond_now::<DaemonStatusMethod>(params.clone(), |_| {
                let engine = self.live.current();
                let status = DaemonStatus {
                    pid: std::process::id(),
                    uptime_secs: self.started.elapsed().as_secs(),
                    workspace: engine.workspace().root().to_path_buf(),
                    trusted: self.trusted,
                    servers: engine.status(),
                    requests: self.requests.load(Ordering::SeqCst),
                    in_flight: *self.in_flight.borrow(),
                    idle_timeout_ms: self.idle().as_millis() as u64,
                    rss_kb: crate::engine::pool::rss_kb(std::process::id()).unwrap_or(0),
                    pool: engine.pool().summary(),
                };
                Ok(status)
            }),
            DaemonShutdown::NAME => respond_now::<DaemonShutdown>(params.clone(), |_| {
                self.shutdown.notify_one();
                Ok(())
            }),
            _ => return None,
        };
        Some(answer)
    }
}

/// Runs the daemon in the foreground until it idles out or is told to stop.
pub async fn run(opts: Options) -> Result<Ended, DaemonError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let engine_opts = EngineOptions {
        root: opts.root.clone(),
        trust_workspace: opts.trust_workspace,
        ..Default::default()
    };
    let engine = Arc::new(Engine::new(&engine_opts, &cwd)?);
    let paths = socket::paths(
        engine.workspace().root(),
        opts.trust_workspace,
        opts.runtime_dir.as_deref(),
    );
    socket::ensure_private_dir(&paths.dir)?;
    // Bind before the slow part of starting (the watch walks the whole
    // workspace): a daemon that lost a start race finds the winner here at
    // once, instead of binding late, after the winner was stopped, and
    // living on as a daemon nobody asked for.
    let bound = bind(&paths)?;
    say_listening(&paths, bound.is_some());
    let Some(listener) = bound else {
        return Ok(Ended::AlreadyRunning);
    };
    engine.watch_disk();
    let idle_override = std::env::var(IDLE_ENV)
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        // Bounded like daemonIdleMinutes (one week), so no deadline overflows.
        .map(|ms| Duration::from_millis(ms.min(7 * 24 * 60 * 60 * 1000)));
    let daemon = Arc::new(Daemon {
        live: Live::new(engine.clone(), &engine_opts),
        trusted: opts.trust_workspace,
        started: std::time::Instant::now(),
        idle_override,
        requests: AtomicU64::new(0),
        in_flight: watch::Sender::new(0),
        last_activity: Mutex::new(Instant::now()),
        shutdown: Notify::new(),
    });
    tracing::info!(socket = %paths.socket.display(), root = %engine.workspace().root().display(), "daemon listening");
    let mut connections = tokio::task::JoinSet::new();
    let ended = serve(&daemon, &listener, &mut connections).await;
    // Unlink first, so no new client connects into a closing daemon; only
    // our own endpoint, in case another daemon has replaced it.
    listener.close();
    // Give the connection that asked for shutdown a moment to write its answer.
    let mut in_flight = daemon.in_flight.subscribe();
    let _ = tokio::time::timeout(Duration::from_millis(200), in_flight.wait_for(|n| *n == 0)).await;
    connections.abort_all();
    daemon.live.current().shutdown().await;
    tracing::info!(?ended, "daemon done");
    Ok(ended)
}

/// Accepts connections until the daemon is told to stop, is terminated, or
/// has been idle (no request in flight, none for `idle`).
async fn serve(
    daemon: &Arc<Daemon>,
    listener: &Listener,
    connections: &mut tokio::task::JoinSet<std::io::Result<crate::service::ConnectionEnd>>,
) -> Ended {
    let terminated = crate::signals::terminated();
    tokio::pin!(terminated);
    loop {
        while connections.try_join_next().is_some() {}
        let idle = daemon.idle();
        let busy = *daemon.in_flight.borrow() > 0;
        let deadline = if busy {
            Instant::now() + idle
        } else {
            *lock(&daemon.last_activity) + idle
        };
        tokio::select! {
            accepted = listener.accept() => match accepted {
                // Refused: another user, or no token.
                Ok(None) => continue,
                Ok(Some((read, write))) => {
                    *lock(&daemon.last_activity) = Instant::now();
                    let host: Arc<dyn Host> = daemon.clone();
                    connections.spawn(serve_connection_with(daemon.live.current(), host, read, write));
                }
                Err(e) => tracing::warn!("accept failed: {e}"),
            },
            _ = daemon.shutdown.notified() => return Ended::Shutdown,
            () = &mut terminated => return Ended::Shutdown,
            _ = tokio::time::sleep_until(deadline) => {
                let quiet = *daemon.in_flight.borrow() == 0
                    && lock(&daemon.last_activity).elapsed() >= idle;
                if quiet {
                    return Ended::Idle;
                }
            }
        }
    }
}

/// One line on stdout once a daemon listens on the endpoint, this one or
/// another: the starter waits for it (or for this process's exit) instead
/// of trying to connect again and again.
fn say_listening(paths: &Paths, this_one: bool) {
    use std::io::Write;
    let who = if this_one {
        "listening"
    } else {
        "already running"
    };
    let mut stdout = std::io::stdout().lock();
    // Nobody may read it (a daemon run by hand, a starter that gave up).
    let _ = writeln!(
        stdout,
        "squiggle daemon {who} on {}",
        paths.socket.display()
    );
    let _ = stdout.flush();
}

/// Binds the endpoint, or `None` when a live daemon already has it.
fn bind(paths: &Paths) -> Result<Option<Listener>, DaemonError> {
    let _lock = socket::lock(&paths.lock)?;
    Listener::bind(&paths.socket).map_err(DaemonError::io(format!(
        "cannot listen on {}",
        paths.socket.display()
    )))
}
