//! squiggle: red squiggles for AI coding agents.
//!
//! An agent edits a file; squiggle tells every language server that serves the
//! file, waits — in parallel, under one deadline — until their diagnostics are
//! current for the bytes just written, and renders a short, capped, escaped
//! `<diagnostics>` block for the tool's output. See `docs/architecture.md`.

pub mod baseline;
pub mod cli;
pub mod config;
pub mod daemon;
pub mod diagnostic;
pub mod edit;
pub mod engine;
pub mod evidence;
pub mod hidden;
pub mod impact;
pub mod install;
pub mod jsonrpc;
pub mod lsp;
pub mod mcp;
pub mod mutex;
pub mod navigation;
pub mod platform;
pub mod registry;
pub mod render;
pub mod service;
pub mod sessions;
pub mod uri;
pub use platform::signals;
pub mod workspace;

#[cfg(test)]
mod tests;
