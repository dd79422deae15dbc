//! Go: gopls, rooted at the `go.work` workspace when there is one (anywhere
//! above the file), else at the nearest module.

use std::time::Duration;

use crate::registry::{RootStrategy, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::PreferFirstMarker,
        // One versioned publish per change for the edited file, in one
        // burst with those of the other files whose diagnostics changed
        // (0.1-0.3 ms apart); files whose diagnostics did not change are
        // not republished. For an open the burst comes a pass later
        // (docs/servers.md). 15 ms of quiet is fifty times the burst's
        // measured spread.
        wait: WaitProfile {
            others_quiet: Duration::from_millis(15),
            open_then_change: true,
            ..settle(0)
        },
        ..spec(
            "gopls",
            &["gopls"],
            &["go", "go.mod", "go.sum", "go.work"],
            &["go.work", "go.mod"],
            "go install golang.org/x/tools/gopls@latest",
        )
    }]
}
