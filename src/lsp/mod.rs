//! The LSP client: our own Content-Length transport, one client per server
//! process, document sync, and the diagnostics wait that is squiggle's heart.
//!
//! `lsp_types` stays inside this module and the navigation code; what leaves
//! is squiggle's own vocabulary (`crate::diagnostic`).

pub mod capabilities;
pub mod client;
mod decide;
pub mod diagnostics;
pub mod documents;
pub mod framing;
pub mod message;
pub mod normalize;
pub mod position;
pub mod process;
pub mod profile;
mod server_requests;
pub mod state;
pub mod text_sync;
pub mod uri;
mod wakeups;

pub use client::{ClientConfig, ClientError, LspClient};
pub use diagnostics::DiagnosticsReport;
pub use documents::DocumentVersion;
pub use process::Spawn;
pub use profile::{OthersDone, ProgressPattern, WaitProfile};
