//! JSON-RPC 2.0 over Content-Length frames: the wire that language servers,
//! squiggle's own service and its daemon all speak.
//!
//! Nothing here knows about LSP. It is its own module so that `service` and
//! `daemon` depend on the transport, not on the LSP client that also uses it.

pub mod framing;
pub mod message;
