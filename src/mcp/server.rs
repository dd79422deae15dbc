//! The `ServerHandler`: lists the tools this session exposes and routes
//! calls. One engine (and so one pool of language servers) per process,
//! shared by the write tools and navigation.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};

use super::tools::{Exposure, call, catalog};
use crate::engine::Engine;

#[derive(Clone)]
pub struct McpServer {
    engine: Arc<Engine>,
    exposure: Exposure,
}

impl McpServer {
    pub fn new(engine: Arc<Engine>, exposure: Exposure) -> McpServer {
        McpServer { engine, exposure }
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }
}

const INSTRUCTIONS: &str = "squiggle runs the project's real language servers. Paths are workspace-relative; lines and columns are 1-based (columns in characters). Position tools accept `symbol` instead of a column. Edit tools report the diagnostics of the new content.";

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("squiggle", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(catalog(self.exposure)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        catalog(self.exposure).into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        tracing::debug!(tool = %request.name, "call");
        match call(&self.engine, self.exposure, &request.name, args).await {
            Some(result) => Ok(result.into()),
            None => Err(McpError::invalid_params(
                format!("unknown tool {}", request.name),
                None,
            )),
        }
    }
}
