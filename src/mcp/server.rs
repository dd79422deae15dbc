//! The `ServerHandler`: lists the tools this session exposes and routes
//! calls. One engine (and so one pool of language servers) per process,
//! shared by the write tools and navigation. One handler per client — the
//! stdio client, each MCP session over HTTP — and the speculative sessions
//! it opens are that client's alone, discarded when the handler goes.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};

use super::catalog::{Exposure, catalog, writes};
use super::prompts;
use super::resources::{self, Resources};
use super::tools::call;
use crate::engine::Engine;
use crate::evidence::{Origin, Surface};
use crate::sessions::Owner;

#[derive(Clone)]
pub struct McpServer {
    engine: Arc<Engine>,
    exposure: Exposure,
    resources: Resources,
    /// The client this handler answers, owner of the sessions it opens.
    client: Arc<Client>,
    /// Over HTTP, the owner shared by the requests made outside any MCP
    /// session (the protocol revisions without sessions): a handler is
    /// made for each such request, so none of them is an owner that lasts.
    sessionless: Option<Owner>,
}

/// One client's mark on its sessions; when the last handle to it goes (the
/// MCP session deleted or expired, stdio closed), they are discarded, and
/// its resources' follower ends (`gone` closes).
struct Client {
    engine: Arc<Engine>,
    owner: Owner,
    _gone: tokio::sync::watch::Sender<()>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.engine.release_sessions_soon(self.owner);
    }
}

impl McpServer {
    /// The handler for one client.
    pub fn new(engine: Arc<Engine>, exposure: Exposure) -> McpServer {
        let (gone, client_gone) = tokio::sync::watch::channel(());
        let client = Arc::new(Client {
            engine: engine.clone(),
            owner: Owner::new(),
            _gone: gone,
        });
        McpServer {
            engine,
            exposure,
            resources: Resources::new(client_gone),
            client,
            sessionless: None,
        }
    }

    /// The handler for one client over HTTP: `sessionless` owns the
    /// sessions opened by requests outside any MCP session.
    pub fn over_http(engine: Arc<Engine>, exposure: Exposure, sessionless: Owner) -> McpServer {
        McpServer {
            sessionless: Some(sessionless),
            ..McpServer::new(engine, exposure)
        }
    }

    /// Whose sessions a request reaches: its MCP session's, or over HTTP
    /// without an `Mcp-Session-Id`, those of every such request.
    fn owner(&self, context: &RequestContext<RoleServer>) -> Owner {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let sessionless = parts.is_some_and(|p| !p.headers.contains_key("mcp-session-id"));
        match self.sessionless {
            Some(shared) if sessionless => shared,
            _ => self.client.owner,
        }
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }
}

/// Serves MCP over stdin and stdout until the client closes them. The error
/// is the message to print when the client never initialized.
pub async fn serve_stdio(engine: Arc<Engine>, exposure: Exposure) -> Result<(), String> {
    use rmcp::ServiceExt;
    let server = McpServer::new(engine, exposure);
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("the client did not initialize: {e}"))?;
    let _ = running.waiting().await;
    Ok(())
}

const INSTRUCTIONS: &str = "squiggle runs the project's real language servers. Paths are workspace-relative; lines and columns are 1-based (columns in characters). Position tools accept `symbol` instead of a column. Edit tools report the diagnostics of the new content.";

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.exposure.lsp {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build()
        };
        ServerConfig::new(capabilities)
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
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        tracing::debug!(tool = %request.name, "call");
        // Who asks, for the evidence log: the client's name from initialize.
        let agent = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone());
        let origin = Origin::new(Surface::Mcp, agent, request.name.as_ref());
        let owner = self.owner(&context);
        let work = call(&self.engine, self.exposure, owner, &request.name, args);
        let answer = crate::evidence::origin::scope(origin, work).await;
        if writes(&request.name) {
            self.resources.poke(&self.engine);
        }
        match answer {
            Some(result) => Ok(result.into()),
            None => Err(McpError::invalid_params(
                format!("unknown tool {}", request.name),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompts::list(
            self.exposure,
        )))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        prompts::get(self.exposure, &request.name, request.arguments.as_ref())
            .map(Into::into)
            .map_err(|e| McpError::invalid_params(e, None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.lsp_only()?;
        Ok(resources::list())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.lsp_only()?;
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.lsp_only()?;
        let result = self.resources.read(&self.engine, &request.uri).await?;
        Ok(result.into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.lsp_only()?;
        self.resources
            .subscribe(&self.engine, &request.uri, context.peer)
            .await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.resources.unsubscribe(&request.uri);
        Ok(())
    }
}

impl McpServer {
    /// Resources exist only when the language servers do.
    fn lsp_only(&self) -> Result<(), McpError> {
        if self.exposure.lsp {
            Ok(())
        } else {
            Err(McpError::invalid_request(
                "LSP is disabled, so squiggle serves no resources",
                None,
            ))
        }
    }
}
