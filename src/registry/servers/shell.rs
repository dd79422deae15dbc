//! Shell scripts: bash-language-server, which runs shellcheck when it is
//! installed and reports only syntax errors otherwise.

use crate::registry::{ServerSpec, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![spec(
        "bash-language-server",
        &["bash-language-server", "start"],
        &["shellscript"],
        &[".git"],
        "npm i -g bash-language-server",
    )]
}
