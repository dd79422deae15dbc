//! Rust: rust-analyzer, rooted at the outermost `Cargo.toml` so that every
//! member of a Cargo workspace shares one server. Its diagnostics arrive in
//! waves (native first, then `cargo check` on save), so it settles longer.

use crate::registry::{RootStrategy, ServerSpec, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::Outermost,
        settle_ms: 300,
        pull_is_partial: true,
        ..spec(
            "rust-analyzer",
            &["rust-analyzer"],
            &["rust"],
            &["Cargo.toml"],
            "rustup component add rust-analyzer",
        )
    }]
}
