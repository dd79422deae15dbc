//! What a client talks to: a server process it spawned (and owns: stopping
//! the client stops it), or a server someone else runs that it attached to
//! over a connection (`connect` in the configuration: stopping the client
//! closes the connection and leaves the server running). Everything that
//! differs between the two — a pid, a stderr tail, an exit status, what
//! "kill" means — is answered here, so the client's code is one.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::task::AbortHandle;

use super::process::ServerProcess;
use crate::mutex::lock;
use crate::platform::endpoint::Endpoint;

pub(super) enum Link {
    Process(ServerProcess),
    Attached(Attached),
}

/// A connection to a server squiggle did not start.
pub(super) struct Attached {
    pub(super) endpoint: Endpoint,
    connected: Instant,
    /// The reader and writer tasks: aborting both drops the stream's two
    /// halves, which closes the connection.
    tasks: Mutex<Vec<AbortHandle>>,
}

impl Attached {
    pub(super) fn new(endpoint: Endpoint) -> Attached {
        Attached {
            endpoint,
            connected: Instant::now(),
            tasks: Mutex::default(),
        }
    }

    pub(super) fn hold(&self, task: AbortHandle) {
        lock(&self.tasks).push(task);
    }

    fn disconnect(&self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.disconnect();
    }
}

impl Link {
    /// The spawned process's id; none for an attached server (its process
    /// is not squiggle's to inspect or stop).
    pub(super) fn pid(&self) -> Option<u32> {
        match self {
            Link::Process(p) => Some(p.pid),
            Link::Attached(_) => None,
        }
    }

    pub(super) fn endpoint(&self) -> Option<&Endpoint> {
        match self {
            Link::Process(_) => None,
            Link::Attached(a) => Some(&a.endpoint),
        }
    }

    /// When the process was spawned or the connection opened.
    pub(super) fn started(&self) -> Instant {
        match self {
            Link::Process(p) => p.spawned,
            Link::Attached(a) => a.connected,
        }
    }

    pub(super) fn stderr_tail(&self) -> String {
        match self {
            Link::Process(p) => p.stderr_tail(),
            Link::Attached(_) => String::new(),
        }
    }

    /// What became of the other end once the stream closed: the process's
    /// exit status (waiting up to `wait` for it), or the endpoint.
    pub(super) async fn ended(&self, wait: Duration) -> String {
        match self {
            Link::Process(p) => {
                let status = p.wait_exit(wait).await;
                let status = status.map_or_else(|| "still running".to_string(), |s| s.to_string());
                format!("process {status}")
            }
            Link::Attached(a) => format!("connection to {} closed", a.endpoint),
        }
    }

    /// Stops the spawned process tree now, or closes the connection (an
    /// attached server is never stopped). Idempotent.
    pub(super) fn kill(&self) {
        match self {
            Link::Process(p) => p.kill(),
            Link::Attached(a) => a.disconnect(),
        }
    }
}
