//! Termination signals for the long-running modes (`mcp`, `serve`, the
//! daemon). Language servers run in their own process groups, so a signal
//! sent to squiggle's group does not reach them: whoever stops squiggle must
//! let it stop its servers, or they outlive it.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// Resolves on the first SIGTERM, SIGINT or SIGHUP.
pub async fn terminated() {
    let mut term = signal(SignalKind::terminate()).ok();
    let mut int = signal(SignalKind::interrupt()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    tokio::select! {
        () = recv(&mut term) => {}
        () = recv(&mut int) => {}
        () = recv(&mut hup) => {}
    }
    tracing::debug!("termination signal received");
}

async fn recv(signal: &mut Option<Signal>) {
    match signal {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}
