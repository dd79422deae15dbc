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
            status_idle: Some("idle".to_string()),
            status_queued: Some("file is queued".to_string()),
            // Answered once every file's rebuild has published: an
            // includer rebuilt more than the quiet window after an
            // intermediate idle is still waited for, and a header re-read
            // without a rebuild is done once clangd is idle, not 1 s later
            // (docs/servers.md).
            idle_request: Some("sync".to_string()),
            // Where `sync` is not answered: a header open as a file of its
            // own is re-read after an include changes but not rebuilt:
            // queued, "parsing includes", idle, no publish. An includer's
            // rebuild can follow its re-read after clangd's adaptive
            // debounce (at most 500 ms), idle in between: 1 s of no status
            // after the idle one (docs/servers.md).
            others_quiet: std::time::Duration::from_millis(1000),
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
