//! A daemon started by a short process holds none of that process's
//! handles: whoever reads the starter's output sees its end when the
//! starter exits, though the daemon lives on. On Windows a child inherits
//! every inheritable handle its parent has (Rust's standard library starts
//! children with `bInheritHandles`), the parent's own stdout and stderr
//! among them, so a daemon started by a hook, a test or `squiggle check`
//! would keep the caller's pipe open and its reader (an agent waiting on
//! its hook, a test runner) waiting for as long as the daemon lives.

use std::process::Stdio;

use squiggle::daemon::client::{self, alive};

use crate::support::process::Reaper;
use crate::support::service::Workspace;

#[tokio::test]
async fn a_started_daemon_leaves_its_starters_output_pipes_closed() {
    let ws = Workspace::pull();
    // `output()` reads stdout and stderr to their end: it returns only when
    // every process holding their write ends has closed them. A daemon that
    // held one would keep this test waiting for as long as it lives.
    let out = ws
        .command(&["daemon", "start", "--trust-workspace", "--root"])
        .arg(&ws.root)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("squiggle daemon start: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("running (pid"),
        "{text}"
    );
    let opts = client::Options {
        exe: env!("CARGO_BIN_EXE_squiggle").into(),
        trust_workspace: true,
        runtime_dir: Some(ws.runtime_dir.clone()),
        env: vec![("XDG_CONFIG_HOME".into(), ws.config_home.clone().into())],
    };
    let status = client::status(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("status: {e}"));
    let _reaper = Reaper(status.pid);
    // The end of output came while the daemon was still running: it was
    // not the daemon's exit that closed the pipes.
    assert!(alive(status.pid), "the daemon exited");
    client::stop(&ws.root, &opts)
        .await
        .unwrap_or_else(|e| panic!("stop: {e}"));
}
