//! squiggle's integration tests: one test binary, as ripgrep has, so a
//! change links one program instead of one per file (the cross-platform
//! runs link it once per target). A folder per family, named for what its
//! tests drive; `support` is the one kit they share.
//!
//! All tests run as threads of this one process. A test must therefore
//! leave the process as it found it: environment and working directory go
//! to the child `Command`s it starts, never `std::env::set_var` or
//! `set_current_dir`; a test that measures the whole process (its open file
//! descriptors) runs alone in a fresh copy of it (`support::alone`).

// The real agent CLIs, each isolated in a network namespace of its own
// (Linux only).
#[cfg(target_os = "linux")]
mod agents;
mod baseline;
mod cli;
mod client;
mod daemon;
mod disk;
mod docs;
mod engine;
mod evidence;
mod fault;
mod fixes;
mod golden;
mod hostile;
mod ignore;
mod impact;
mod matrix;
mod mcp;
mod platform;
mod service;
mod sessions;
mod support;
