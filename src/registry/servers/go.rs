//! Go: gopls, rooted at the `go.work` workspace when there is one (anywhere
//! above the file), else at the nearest module.

use std::time::Duration;

use crate::registry::{RootStrategy, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::PreferFirstMarker,
        // One versioned publish per change for the edited file, in one
        // burst with those of the other files whose diagnostics changed;
        // files whose diagnostics did not change are not republished. For
        // an open the burst comes a pass later (docs/servers.md). 15 ms of
        // quiet lost the tenth of ten importers once on a loaded machine
        // (`matrix::go`), so the quiet stays 50 ms.
        wait: WaitProfile {
            others_quiet: Duration::from_millis(50),
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
