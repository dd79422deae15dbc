//! The Rust matrix on today's stable rust-analyzer (toolchain 1.99.1, which
//! `scripts/install-servers.sh` installs beside the active one): its own
//! diagnostics by pull, cargo check's by push, both in the answer.

use crate::support;

use std::process::Command;

use crate::support::matrix::*;

const TOOLCHAIN: &str = "1.99.1";

#[tokio::test]
async fn rust_analyzer_1_99() {
    let runs = Command::new("rustup")
        .args(["run", TOOLCHAIN, "rust-analyzer", "--version"])
        .output()
        .is_ok_and(|out| out.status.success());
    let what = format!("toolchain {TOOLCHAIN}'s rust-analyzer (rustup)");
    if support::require(runs.then(Default::default), &what).is_none() {
        return;
    }
    let version = rust::rust_analyzer_matrix(Some(TOOLCHAIN)).await;
    assert!(
        version.as_deref().is_some_and(|v| v.starts_with(TOOLCHAIN)),
        "the server said it was {version:?}"
    );
}
