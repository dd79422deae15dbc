//! C, C++ and Objective-C: clangd.
//!
//! Background indexing is off: it compiles every file of the project in the
//! background, competing for CPU with the diagnostics of the file just edited,
//! and diagnostics need only the open file and its includes.

use serde_json::json;

use crate::registry::{OthersDone, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        // One versioned publish per change. After a saved header changes,
        // it queues every open file including it (`fileStatus`, which it
        // sends when asked in the initialization options), rebuilds and
        // republishes each (docs/servers.md).
        initialization_options: json!({ "clangdFileStatus": true }),
        wait: WaitProfile {
            others_done: OthersDone::RebuildStatus,
            status_method: Some("textDocument/clangd.fileStatus".to_string()),
            ..settle(0)
        },
        ..spec(
            "clangd",
            &["clangd", "--background-index=false"],
            &["c", "cpp", "objective-c", "objective-cpp", "cuda-cpp"],
            &[
                "compile_commands.json",
                "compile_flags.txt",
                ".clangd",
                "CMakeLists.txt",
            ],
            "apt install clangd (or brew install llvm)",
        )
    }]
}
