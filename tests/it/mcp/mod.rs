//! `squiggle mcp` driven by real clients: the official Python SDK, the MCP
//! Inspector, and plain HTTP for the bearer-token transport.

mod http;
mod inspector;
mod python;
mod resources;
