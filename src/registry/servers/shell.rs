//! Shell scripts: bash-language-server, which runs shellcheck when it is
//! installed and reports only syntax errors otherwise.

use crate::registry::{ServerSpec, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        // One versioned publish per change: the version says it is final.
        wait: settle(0),
        ..spec(
            "bash-language-server",
            &["bash-language-server", "start"],
            &["shellscript"],
            &[".git"],
            "npm i -g bash-language-server",
        )
    }]
}
