//! Shell scripts: bash-language-server, which runs shellcheck when it is
//! installed and reports only syntax errors otherwise.

use crate::registry::{ServerSpec, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        // Publishes exactly one versioned wave per change (docs/servers.md,
        // measured table: 1 wave, 0 ms spread), so the version says the
        // answer is final: no settle window.
        settle_ms: 0,
        ..spec(
            "bash-language-server",
            &["bash-language-server", "start"],
            &["shellscript"],
            &[".git"],
            "npm i -g bash-language-server",
        )
    }]
}
