//! The LSP client against the scripted fake server (`squiggle-fake-lsp`)
//! and against real pyright, and the fake server itself checked against an
//! independent peer.

mod diagnostics;
mod fake_server;
mod lifecycle;
mod pyright;
mod sync;
