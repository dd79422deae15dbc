//! `squiggle serve`: the JSON-RPC service over stdio (Content-Length
//! framing), one engine for the life of the process. stdout carries only
//! protocol frames; logs go to stderr. The process exits 0 when stdin
//! closes, on the `exit` notification, or after answering `lsp/shutdown`
//! (servers stopped first in every case).

use std::sync::Arc;

use crate::service::{ConnectionEnd, serve_connection};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
}

pub async fn run(args: Args) -> u8 {
    let engine = match args.workspace.engine(Default::default()) {
        Ok(engine) => {
            engine.watch_disk();
            Arc::new(engine)
        }
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    let work = async {
        let end = serve_connection(engine.clone(), tokio::io::stdin(), tokio::io::stdout()).await;
        engine.shutdown().await;
        end
    };
    let end = tokio::select! {
        end = work => end,
        () = crate::signals::terminated() => {
            // Servers live in their own process groups: stop them ourselves.
            engine.kill_servers();
            return 143;
        }
    };
    match end {
        Ok(ConnectionEnd::Eof) => 0,
        Ok(end) => {
            // stdin is still open and tokio reads it on a blocking thread
            // that would keep the runtime from ending: leave now. Every
            // response was flushed and the servers are stopped.
            tracing::debug!(?end, "service done");
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("squiggle serve: writing to stdout failed: {e}");
            2
        }
    }
}
