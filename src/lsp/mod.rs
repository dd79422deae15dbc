//! The LSP client over our own JSON-RPC transport (`crate::jsonrpc`): one
//! client per server process, document sync, and the diagnostics wait that
//! is squiggle's heart.
//!
//! `lsp_types` stays inside this module and the navigation code; what leaves
//! is squiggle's own vocabulary (`crate::diagnostic`).

pub mod capabilities;
pub mod client;
mod client_config;
mod decide;
pub mod diagnostics;
pub mod documents;
pub mod health;
mod link;
pub mod markup;
pub mod normalize;
pub mod other_files;
pub mod position;
pub mod process;
pub mod profile;
mod pull_store;
pub mod quick_fix;
mod server_requests;
pub mod state;
mod sync_pull;
pub mod text_sync;
mod wakeups;
pub mod workspace_edit;

pub use client::{ClientError, LspClient};
pub use client_config::ClientConfig;
pub use diagnostics::DiagnosticsReport;
pub use documents::{DocumentVersion, FileChangeKind};
pub use process::Spawn;
pub use profile::{OthersDone, ProgressPattern, SyncPull, WaitProfile};
