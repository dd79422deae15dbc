//! Nothing lost when things go wrong: the fake server's scripted faults
//! through the engine, the service and MCP, and bad input at every boundary
//! (`docs/reliability.md` lists each row).

mod bad_input_engine;
mod bad_input_service;
mod engine;
mod mcp;
mod service;
