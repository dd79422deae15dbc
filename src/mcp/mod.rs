//! The MCP server (`squiggle mcp`): the only module that uses `rmcp` (placeholder until its change lands).
