//! The command line's subcommands, each in its own module: `Args` (clap) and
//! an async `run` returning the process exit code (0 ok, 1 findings or
//! refused mutation, 2 usage, configuration or environment error). The
//! binary (`src/main.rs`) only parses and dispatches.

pub mod check;
pub mod daemon;
pub mod doctor;
pub mod hook;
pub mod init;
pub mod mcp;
pub mod serve;
pub mod warm;
