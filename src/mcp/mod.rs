//! The MCP server (`squiggle mcp`): the only module that uses `rmcp`. It
//! adapts squiggle's engine and navigation code to MCP tools over stdio or
//! Streamable HTTP; tools speak workspace-relative paths and 1-based lines
//! and columns, and return a compact text plus `structuredContent` that
//! matches each tool's `outputSchema`. Diagnostics are also served as
//! subscribable resources (`squiggle://diagnostics[/{path}]`), and the
//! workflows that combine the tools as prompts (`mcp::prompts`).

mod acknowledge;
mod catalog;
pub mod http;
mod inputs;
mod prompts;
mod resources;
mod server;
mod session_inputs;
mod sessions;
mod tools;

pub use catalog::Exposure;
pub use server::{McpServer, serve_stdio};
