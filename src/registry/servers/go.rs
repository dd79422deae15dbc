//! Go: gopls, rooted at the `go.work` workspace when there is one (anywhere
//! above the file), else at the nearest module.

use std::time::Duration;

use serde_json::json;

use crate::registry::{ProgressPattern, RootStrategy, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::PreferFirstMarker,
        // Asked to, gopls wraps each diagnosis pass in a work-done progress
        // ("diagnosing changed files", "… saved files", …) and ends it once
        // it has published every file the pass changed; with no delay it
        // runs one pass per change, its analyzers and the packages that
        // import the changed one included, instead of type-checking the
        // changed package at once and the rest 250 ms–1 s later
        // (docs/servers.md). The pass's end answers the change for every
        // file.
        initialization_options: json!({
            "verboseWorkDoneProgress": true,
            "diagnosticsDelay": "0s",
        }),
        // Without those (a gopls that ignores them): one versioned publish
        // per change for the edited file, in one burst with those of the
        // other files whose diagnostics changed; files whose diagnostics
        // did not change are not republished. For an open the burst comes
        // a pass later. 15 ms of quiet lost the tenth of ten importers
        // once on a loaded machine (`matrix::go`), so the quiet stays
        // 50 ms.
        wait: WaitProfile {
            pass_progress: vec![ProgressPattern::title("diagnosing")],
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
