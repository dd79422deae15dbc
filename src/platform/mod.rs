//! Everything that differs between operating systems, one module per
//! concern, so that the engine, the daemon and the LSP client call one
//! platform-neutral function and never carry a `cfg` of their own. Each
//! module holds its Unix and Windows halves (and, where macOS or Linux
//! differ, their parts) side by side: whoever changes one sees the others.
//! `docs/architecture.md` ("Platform seams") maps concern to module.

pub mod endpoint;
pub mod file_facts;
pub mod paths;
pub mod proc_info;
pub mod process;
pub mod replace;
pub mod signals;
pub mod transport;
pub mod watch;
