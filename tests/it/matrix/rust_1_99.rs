//! The Rust matrix on today's stable rust-analyzer (toolchain 1.99.1, which
//! `scripts/install-servers.sh` installs beside the active one): its own
//! diagnostics by pull, cargo check's by push, both in the answer.

use crate::support;

use std::process::Command;

use crate::support::matrix::*;
use squiggle::diagnostic::Outcome;

const TOOLCHAIN: &str = "1.99.1";

/// Whether toolchain 1.99.1's rust-analyzer runs here (under the rule of
/// `support::require`).
fn toolchain_runs() -> bool {
    let runs = Command::new("rustup")
        .args(["run", TOOLCHAIN, "rust-analyzer", "--version"])
        .output()
        .is_ok_and(|out| out.status.success());
    let what = format!("toolchain {TOOLCHAIN}'s rust-analyzer (rustup)");
    support::require(runs.then(Default::default), &what).is_some()
}

#[tokio::test]
async fn rust_analyzer_1_99() {
    if !toolchain_runs() {
        return;
    }
    let version = rust::rust_analyzer_matrix(Some(TOOLCHAIN)).await;
    assert!(
        version.as_deref().is_some_and(|v| v.starts_with(TOOLCHAIN)),
        "the server said it was {version:?}"
    );
}

#[tokio::test]
async fn rust_analyzer_1_99_with_a_check_command_that_reports_nothing() {
    if !toolchain_runs() {
        return;
    }
    // Eight edits: at most the first two (the cold first touch, and a warm
    // edit while rust-analyzer still loads) run to a deadline while the
    // client learns that its checks report nothing; none after.
    let outcomes = rust::quiet_check_matrix(TOOLCHAIN).await;
    assert!(
        outcomes[2..].iter().all(|o| *o != Outcome::TimedOut),
        "{outcomes:?}"
    );
}
