//! Termination signals for the long-running modes (`mcp`, `serve`, the
//! daemon). Language servers run in process trees of their own
//! ([`crate::platform::process`]), so a signal sent to squiggle's group
//! does not reach them: whoever stops squiggle must let it stop its
//! servers, or they outlive it. Unix: SIGTERM, SIGINT, SIGHUP. Windows:
//! Ctrl-C, Ctrl-Break, and the console closing or the user logging off
//! or the system shutting down.

/// Resolves on the first termination signal.
pub async fn terminated() {
    imp::terminated().await;
    tracing::debug!("termination signal received");
}

#[cfg(unix)]
mod imp {
    use tokio::signal::unix::{Signal, SignalKind, signal};

    pub async fn terminated() {
        let mut term = signal(SignalKind::terminate()).ok();
        let mut int = signal(SignalKind::interrupt()).ok();
        let mut hup = signal(SignalKind::hangup()).ok();
        tokio::select! {
            () = recv(&mut term) => {}
            () = recv(&mut int) => {}
            () = recv(&mut hup) => {}
        }
    }

    async fn recv(signal: &mut Option<Signal>) {
        match signal {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    }
}

#[cfg(windows)]
mod imp {
    use tokio::signal::windows;

    pub async fn terminated() {
        let mut c = windows::ctrl_c().ok();
        let mut brk = windows::ctrl_break().ok();
        let mut close = windows::ctrl_close().ok();
        let mut logoff = windows::ctrl_logoff().ok();
        let mut shutdown = windows::ctrl_shutdown().ok();
        tokio::select! {
            () = recv(c.as_mut().map(|s| s.recv())) => {}
            () = recv(brk.as_mut().map(|s| s.recv())) => {}
            () = recv(close.as_mut().map(|s| s.recv())) => {}
            () = recv(logoff.as_mut().map(|s| s.recv())) => {}
            () = recv(shutdown.as_mut().map(|s| s.recv())) => {}
        }
    }

    async fn recv(signal: Option<impl std::future::Future<Output = Option<()>>>) {
        match signal {
            Some(s) => {
                s.await;
            }
            None => std::future::pending::<()>().await,
        }
    }
}

#[cfg(not(any(unix, windows)))]
mod imp {
    pub async fn terminated() {
        let _ = tokio::signal::ctrl_c().await;
    }
}
