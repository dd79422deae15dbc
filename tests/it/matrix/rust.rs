//! The per-server matrix for Rust on `tests/fixtures/rust`: rust-analyzer on
//! a crate with a `geometry` module used by `main`. The first edit of a fresh
//! engine must already carry cargo check's type error: rust-analyzer ignores
//! a save sent while its workspace is still loading, and the wait re-saves.

use crate::support;
use crate::support::matrix::*;

#[tokio::test]
async fn rust_analyzer() {
    if support::require_program("rust-analyzer").is_none()
        || support::require_program("cargo").is_none()
    {
        return;
    }
    rust::rust_analyzer_matrix(None).await;
}
