//! The JSON-RPC service: squiggle's engine behind Content-Length framed
//! JSON-RPC 2.0, the same wire LSP uses, so an agent host written in any
//! language talks to it with an off-the-shelf client (`vscode-jsonrpc`'s
//! `StreamMessageReader`/`StreamMessageWriter`). `squiggle serve` runs one
//! connection over stdio; the daemon runs many over a Unix socket, all
//! sharing one [`Engine`](crate::engine::Engine).
//!
//! The methods and their shapes are in `docs/protocol.md`. This module owns
//! the wire types (`wire`), reading params into them (`extract`), the
//! method table (`methods`) and the connection loop (`connection`); the
//! engine stays unaware of JSON-RPC.

mod connection;
mod extract;
mod failure;
mod methods;
mod sessions;
pub mod wire;

pub use connection::{ConnectionEnd, Host, NoHost, serve_connection, serve_connection_with};
pub use extract::{extract, invalid};
pub use failure::{Failure, REFUSED, Reply};
pub use methods::{change, respond, respond_now};
pub use wire::{ServerStatus, WireDiagnostic};
