//! C, C++ and Objective-C: clangd.
//!
//! Background indexing is off: it compiles every file of the project in the
//! background, competing for CPU with the diagnostics of the file just edited,
//! and diagnostics need only the open file and its includes.

use crate::registry::{ServerSpec, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![ServerSpec {
        // Publishes exactly one versioned wave per change (docs/servers.md,
        // measured table: 1 wave, 0 ms spread), so the version says the
        // answer is final: no settle window.
        settle_ms: 0,
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
