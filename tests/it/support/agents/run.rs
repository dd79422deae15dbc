//! Running one agent CLI against the scripted model server, isolated from
//! the network: the CLI and the server share a fresh network namespace in
//! which only loopback is up.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Model, RUN_BOUND, Shared, lock};

/// One agent run: its output and every request the model server saw.
pub struct Run {
    pub output: Output,
    pub main: Vec<Value>,
    pub paths: Vec<String>,
}

impl Run {
    pub fn log(&self) -> String {
        format!(
            "status: {}\nstdout:\n{}\nstderr:\n{}\nrequests: {:?}",
            self.output.status,
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr),
            self.paths
        )
    }

    /// The main request that followed scripted step `step` (0-based).
    pub fn after_step(&self, step: usize) -> &Value {
        self.main
            .get(step + 1)
            .unwrap_or_else(|| panic!("no model request after step {step}\n{}", self.log()))
    }
}

/// Runs `cmd` (built once the model server's address is known) in a fresh
/// network namespace where only loopback is up, with the scripted model
/// server for `api` listening there on 127.0.0.1.
pub async fn run_agent(
    api: fn(Shared) -> axum::Router,
    steps: Vec<Value>,
    cmd: impl FnOnce(u16) -> Command + Send + 'static,
) -> Run {
    let model: Shared = Arc::new(Mutex::new(Model {
        steps,
        ..Default::default()
    }));
    let (tx, rx) = std::sync::mpsc::channel();
    // A namespace belongs to the thread that made it: sockets it binds and
    // children it spawns stay inside; the test's other threads are unchanged.
    let spawner = std::thread::spawn(move || {
        let result = enter_isolated_netns().and_then(|()| {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")
                .map_err(|e| format!("bind 127.0.0.1: {e}"))?;
            let port = listener
                .local_addr()
                .map_err(|e| format!("local_addr: {e}"))?
                .port();
            let child = cmd(port)
                .spawn()
                .map_err(|e| format!("spawn the agent: {e}"))?;
            Ok((listener, child))
        });
        let _ = tx.send(result);
    });
    let (listener, child) = match rx.recv() {
        Ok(Ok(pair)) => pair,
        Ok(Err(e)) => panic!("cannot start the isolated agent run: {e}"),
        Err(e) => panic!("the agent spawner died: {e}"),
    };
    let _ = spawner.join();
    listener
        .set_nonblocking(true)
        .unwrap_or_else(|e| panic!("nonblocking: {e}"));
    let listener =
        tokio::net::TcpListener::from_std(listener).unwrap_or_else(|e| panic!("listener: {e}"));
    let app = api(model.clone());
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let pid = child.id();
    let waited = tokio::task::spawn_blocking(move || child.wait_with_output());
    let output = match tokio::time::timeout(RUN_BOUND, waited).await {
        Ok(Ok(Ok(output))) => output,
        Ok(Ok(Err(e))) => panic!("wait for the agent: {e}"),
        Ok(Err(e)) => panic!("wait for the agent: {e}"),
        Err(_) => {
            crate::support::process::kill(pid);
            panic!(
                "the agent ran past {RUN_BOUND:?}; requests: {:?}",
                lock(&model).paths
            );
        }
    };
    server.abort();
    let m = lock(&model);
    if let Some(dir) = std::env::var_os("SQUIGGLE_E2E_CAPTURE") {
        let line = serde_json::json!({"paths": m.paths, "main": m.main});
        let path = Path::new(&dir).join("requests.jsonl");
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let _ = std::fs::write(&path, format!("{old}{line}\n"));
    }
    Run {
        output,
        main: m.main.clone(),
        paths: m.paths.clone(),
    }
}

/// Moves the calling thread into a new network namespace and brings its
/// loopback up. Needs root (CAP_SYS_ADMIN), which the tests have here and
/// in CI.
fn enter_isolated_netns() -> Result<(), String> {
    // SAFETY: unshare(2) with a flag constant; affects only this thread.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(format!(
            "unshare(CLONE_NEWNET): {} (the agent tests run as root to isolate the CLIs from the network)",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: a plain socket for the interface ioctls, closed below; the
    // ifreq is zeroed and its name is NUL-terminated.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
        if fd < 0 {
            return Err(format!("socket: {}", std::io::Error::last_os_error()));
        }
        let mut ifr: libc::ifreq = std::mem::zeroed();
        for (dst, src) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
            *dst = *src as libc::c_char;
        }
        let ok = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut ifr) == 0 && {
            ifr.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(fd, libc::SIOCSIFFLAGS, &ifr) == 0
        };
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        if !ok {
            return Err(format!("bring loopback up: {err}"));
        }
    }
    Ok(())
}
