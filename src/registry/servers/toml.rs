//! TOML: tombi by default, taplo as the opt-in alternative; only one of them
//! serves a file, as both report the same syntax errors.

use crate::registry::{ServerSpec, spec};

const GROUP: &str = "toml";

pub fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            exclusive_group: Some(GROUP.to_string()),
            ..spec(
                "tombi",
                &["tombi", "lsp"],
                &["toml"],
                &["tombi.toml", "pyproject.toml", "Cargo.toml"],
                "brew install tombi",
            )
        },
        ServerSpec {
            enabled_by_default: false,
            exclusive_group: Some(GROUP.to_string()),
            ..spec(
                "taplo",
                &["taplo", "lsp", "stdio"],
                &["toml"],
                &[".taplo.toml", "taplo.toml", "Cargo.toml"],
                "cargo install taplo-cli --locked --features lsp",
            )
        },
    ]
}
