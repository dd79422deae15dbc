//! `squiggle mcp`: the MCP server over stdio (default) or Streamable HTTP
//! (`--http ADDR:PORT`). stdout carries only the protocol; logs go to stderr.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::config::PartialConfig;
use crate::engine::Engine;
use crate::mcp::Exposure;
use crate::mcp::http::{HttpOptions, serve as serve_http};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
    /// Serve Streamable HTTP on this address (e.g. 127.0.0.1:7311) instead of stdio.
    /// Requires a bearer token in SQUIGGLE_MCP_TOKEN unless --no-auth on loopback.
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<SocketAddr>,
    /// Serve HTTP without a token (loopback addresses only).
    #[arg(long, requires = "http")]
    pub no_auth: bool,
    /// Offer edit_file, write_file and apply_patch (default: config `writeTools`, on).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub write_tools: Option<bool>,
}

pub async fn run(args: Args) -> u8 {
    let cli = PartialConfig {
        write_tools: args.write_tools,
        ..Default::default()
    };
    let engine = match args.workspace.engine(cli) {
        Ok(engine) => {
            engine.watch_disk();
            Arc::new(engine)
        }
        Err(e) => {
            eprintln!("squiggle mcp: {e}");
            return 2;
        }
    };
    let exposure = Exposure {
        lsp: engine.config().enabled,
        navigation: engine.config().navigation_tools,
        write: engine.config().write_tools,
    };
    let work = async {
        let code = match args.http {
            Some(addr) => match bearer_token(&args) {
                Ok(token) => http(engine.clone(), exposure, HttpOptions { addr, token }).await,
                Err(code) => code,
            },
            None => stdio(engine.clone(), exposure).await,
        };
        engine.shutdown().await;
        code
    };
    // A client that gives up (the Python SDK sends SIGTERM two seconds after
    // closing stdin) must not leave our servers behind, even mid-shutdown.
    tokio::select! {
        code = work => code,
        () = crate::signals::terminated() => {
            engine.kill_servers();
            143
        }
    }
}

async fn stdio(engine: Arc<Engine>, exposure: Exposure) -> u8 {
    match crate::mcp::serve_stdio(engine, exposure).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("squiggle mcp: {e}");
            1
        }
    }
}

/// The bearer token HTTP clients must send (`SQUIGGLE_MCP_TOKEN`; none with
/// `--no-auth`), or the exit code when there is none.
fn bearer_token(args: &Args) -> Result<Option<String>, u8> {
    if args.no_auth {
        return Ok(None);
    }
    match std::env::var("SQUIGGLE_MCP_TOKEN") {
        Ok(token) if !token.is_empty() => Ok(Some(token)),
        _ => {
            eprintln!(
                "squiggle mcp: set SQUIGGLE_MCP_TOKEN to the bearer token clients must send (or pass --no-auth on a loopback address)"
            );
            Err(2)
        }
    }
}

async fn http(engine: Arc<Engine>, exposure: Exposure, options: HttpOptions) -> u8 {
    // Termination is handled around the whole command (see `run`).
    let shutdown = std::future::pending::<()>();
    let result = serve_http(
        engine,
        exposure,
        options,
        |bound| eprintln!("squiggle mcp: listening on http://{bound}/mcp"),
        shutdown,
    )
    .await;
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("squiggle mcp: {e}");
            2
        }
    }
}
