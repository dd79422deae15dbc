//! Streamable HTTP for `squiggle mcp --http ADDR:PORT`: the MCP endpoint at
//! `/mcp` behind a bearer token (compared in constant time), `/health`
//! open, request bodies bounded. Serving without a token is allowed only
//! on a loopback address. Each MCP session (`Mcp-Session-Id`) gets a
//! handler of its own, and so owns the speculative sessions it opens.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::{Exposure, McpServer};
use crate::engine::Engine;
use crate::sessions::Owner;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// None only when serving without auth was asked for on loopback.
    pub token: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "--no-auth is only allowed on a loopback address, not {0}; set SQUIGGLE_MCP_TOKEN instead"
    )]
    NoAuthOnPublic(SocketAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn require_token(token: Arc<String>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if constant_time_eq(given.as_bytes(), token.as_bytes()) {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or wrong bearer token\n",
        )
            .into_response()
    }
}

/// Binds and serves until `shutdown` resolves. `bound` receives the actual
/// address (useful with port 0).
pub async fn serve(
    engine: Arc<Engine>,
    exposure: Exposure,
    options: HttpOptions,
    bound: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), HttpError> {
    let loopback = options.addr.ip().is_loopback();
    if options.token.is_none() && !loopback {
        return Err(HttpError::NoAuthOnPublic(options.addr));
    }
    let mut config = StreamableHttpServerConfig::default();
    config.max_request_body_bytes = MAX_BODY_BYTES;
    if !loopback {
        // The token guards a public address; Host names are the operator's.
        config = config.disable_allowed_hosts();
    }
    let factory_engine = engine.clone();
    // One handler per MCP session (its sessions its own), and one for each
    // request outside any: those share one owner.
    let sessionless = Owner::new();
    let service = StreamableHttpService::new(
        move || {
            let engine = factory_engine.clone();
            Ok(McpServer::over_http(engine, exposure, sessionless))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mut mcp = Router::new().nest_service("/mcp", service);
    if let Some(token) = options.token {
        let token = Arc::new(token);
        mcp = mcp.layer(middleware::from_fn(move |req: Request, next: Next| {
            require_token(token.clone(), req, next)
        }));
    }
    let app = Router::new()
        .route("/health", get(|| async { "ok\n" }))
        .merge(mcp);
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|source| HttpError::Bind {
            addr: options.addr,
            source,
        })?;
    let local = listener.local_addr().map_err(HttpError::Serve)?;
    bound(local);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(HttpError::Serve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_exactly() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secre"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}
