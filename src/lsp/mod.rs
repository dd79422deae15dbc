//! The LSP client: our own Content-Length transport, one client per server
//! process, document sync, and the diagnostics wait that is squiggle's heart.

pub mod position;
pub mod text_sync;
