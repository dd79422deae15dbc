//! Go: gopls, rooted at the `go.work` workspace when there is one (anywhere
//! above the file), else at the nearest module.

use crate::registry::{RootStrategy, ServerSpec, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::PreferFirstMarker,
        // Publishes exactly one versioned wave per change (docs/servers.md,
        // measured table: 1 wave, 0 ms spread), so the version says the
        // answer is final: no settle window.
        settle_ms: 0,
        ..spec(
            "gopls",
            &["gopls"],
            &["go", "go.mod", "go.sum", "go.work"],
            &["go.work", "go.mod"],
            "go install golang.org/x/tools/gopls@latest",
        )
    }]
}
