//! Rust: rust-analyzer, rooted at the outermost `Cargo.toml` so that every
//! member of a Cargo workspace shares one server. Its diagnostics arrive in
//! waves (native first, then `cargo check` on save), so it settles longer.

use std::time::Duration;

use serde_json::json;

use crate::registry::{ProgressPattern, RootStrategy, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::Outermost,
        wait: WaitProfile {
            pull_is_partial: true,
            // Cache priming produces no diagnostics and must not hold a wait.
            background_progress: vec![
                ProgressPattern::token("cachePriming"),
                ProgressPattern::title("Indexing"),
            ],
            // cargo check (or clippy) after didSave, under a flycheck token;
            // it publishes around its progress's end: before it in 59 of 60
            // probed edits, at most 3.6 ms after it (docs/servers.md). A
            // check cancelled by a later save ends having published and
            // reported nothing, and does not count as ended.
            check_progress: vec![
                ProgressPattern::token("flycheck"),
                ProgressPattern::title("check"),
                ProgressPattern::title("clippy"),
            ],
            check_end_grace: Duration::ZERO,
            // What it publishes at the end comes before its answer to a
            // pull sent after the end, given one worker thread (below;
            // docs/servers.md).
            repull_after_check: true,
            // It waits 50 ms after a save for more before it starts cargo.
            check_save_debounce: Duration::from_millis(50),
            // checkOnSave is on unless the user's settings turn it off.
            save_starts_check: true,
            // cargo check checks the whole workspace: an importer opened
            // after the edit is not saved (that would start a second check).
            check_covers_project: true,
            ..settle(300)
        },
        // One worker thread: rust-analyzer sends each publish from its
        // worker pool, so with two a check's last publish could still be
        // queued behind a busy core when the answer to a pull sent after
        // the check's end went out (under load, 25 ms and more); with one,
        // the pool runs in order and the re-pull's answer comes after
        // every publish queued before it.
        initialization_options: json!({ "numThreads": 1 }),
        ..spec(
            "rust-analyzer",
            &["rust-analyzer"],
            &["rust"],
            &["Cargo.toml"],
            "rustup component add rust-analyzer",
        )
    }]
}
