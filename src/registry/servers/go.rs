//! Go: gopls, rooted at the `go.work` workspace when there is one (anywhere
//! above the file), else at the nearest module.

use crate::registry::{RootStrategy, ServerSpec, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::PreferFirstMarker,
        ..spec(
            "gopls",
            &["gopls"],
            &["go", "go.mod", "go.sum", "go.work"],
            &["go.work", "go.mod"],
            "go install golang.org/x/tools/gopls@latest",
        )
    }]
}
