//! Go: gopls, rooted at the `go.work` workspace when there is one (anywhere
//! above the file), else at the nearest module.

use crate::registry::{OthersDone, RootStrategy, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        root_strategy: RootStrategy::PreferFirstMarker,
        // One versioned publish per change for the edited file, sent after
        // those of every other file whose diagnostics changed; files whose
        // diagnostics did not change are not republished (docs/servers.md).
        wait: WaitProfile {
            others_done: OthersDone::AfterEdited,
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
