//! The `squiggle` command line: a thin adapter over the library. `main`
//! returns an exit code: 0 success, 1 refused mutation or findings, 2 usage,
//! configuration or environment error. stdout carries exactly what the
//! agent's tool would return; logs go to stderr (`RUST_LOG`).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use squiggle::engine::Engine;
use squiggle::engine::tools::{ToolError, ToolResult};

#[derive(Parser)]
#[command(
    name = "squiggle",
    version = env!("SQUIGGLE_VERSION"),
    about = "Language-server diagnostics for the exact bytes an agent just wrote"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
struct Common {
    /// Workspace root (default: the git top-level, else the current directory).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    /// Print the structured result as JSON instead of the text.
    #[arg(long, global = true)]
    json: bool,
    /// Honour `command`/`args`/`env` from the workspace's .squiggle.toml.
    #[arg(long, global = true)]
    trust_workspace: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Replace an exact string in a file, then report diagnostics for it.
    Edit {
        path: PathBuf,
        #[arg(long)]
        old_string: String,
        #[arg(long)]
        new_string: String,
        #[arg(long)]
        replace_all: bool,
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Write a file (content on stdin), then report diagnostics for it and other files.
    Write {
        path: PathBuf,
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Apply a unified diff or `*** Begin Patch` patch (on stdin), all or nothing.
    ApplyPatch {
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Check files (pre-commit): report their diagnostics, exit 1 on findings.
    Check(squiggle::cli::check::Args),
    /// Start each available server on a sample and report what it can do.
    Doctor(squiggle::cli::doctor::Args),
    /// Agent hooks: read the agent's tool event on stdin, reply with diagnostics.
    Hook(squiggle::cli::hook::Args),
    /// Add squiggle's hook to an agent's settings.
    Init(squiggle::cli::init::Args),
    /// JSON-RPC service over stdio (Content-Length framing) for agent hosts.
    Serve(squiggle::cli::serve::Args),
    /// The per-workspace daemon that keeps servers warm.
    Daemon(squiggle::cli::daemon::Args),
    /// Serve navigation, diagnostics and write tools over MCP.
    Mcp(squiggle::cli::mcp::Args),
    /// Show every server (installed or not) and a running daemon's instances.
    Status(squiggle::cli::status::Args),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("RUST_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("squiggle: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(run(cli.command))
}

fn engine(common: &Common) -> Result<Arc<Engine>, ExitCode> {
    squiggle::cli::engine_from(
        common.root.as_deref(),
        common.trust_workspace,
        Default::default(),
    )
    .map(Arc::new)
    .map_err(|e| {
        eprintln!("squiggle: {e}");
        ExitCode::from(2)
    })
}

fn stdin_text() -> Result<String, ExitCode> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map(|_| text)
        .map_err(|e| {
            eprintln!("squiggle: cannot read stdin as UTF-8 text: {e}");
            ExitCode::from(2)
        })
}

async fn run(command: Command) -> ExitCode {
    match run_inner(command).await {
        Ok(code) | Err(code) => code,
    }
}

async fn run_inner(command: Command) -> Result<ExitCode, ExitCode> {
    match command {
        Command::Edit {
            path,
            old_string,
            new_string,
            replace_all,
            dry_run,
            common,
        } => {
            let engine = engine(&common)?;
            let result = engine
                .edit(&path, &old_string, &new_string, replace_all, dry_run)
                .await;
            Ok(finish_tool(&engine, result, common.json).await)
        }
        Command::Write {
            path,
            dry_run,
            common,
        } => {
            let content = stdin_text()?;
            let engine = engine(&common)?;
            let result = engine.write(&path, &content, dry_run).await;
            Ok(finish_tool(&engine, result, common.json).await)
        }
        Command::ApplyPatch { dry_run, common } => {
            let patch = stdin_text()?;
            let engine = engine(&common)?;
            let result = engine.apply_patch(&patch, dry_run).await;
            Ok(finish_tool(&engine, result, common.json).await)
        }
        Command::Check(args) => Ok(ExitCode::from(squiggle::cli::check::run(args).await)),
        Command::Doctor(args) => Ok(ExitCode::from(squiggle::cli::doctor::run(args).await)),
        Command::Hook(args) => Ok(ExitCode::from(squiggle::cli::hook::run(args).await)),
        Command::Init(args) => Ok(ExitCode::from(squiggle::cli::init::run(args).await)),
        Command::Serve(args) => Ok(ExitCode::from(squiggle::cli::serve::run(args).await)),
        Command::Daemon(args) => Ok(ExitCode::from(squiggle::cli::daemon::run(args).await)),
        Command::Mcp(args) => Ok(ExitCode::from(squiggle::cli::mcp::run(args).await)),
        Command::Status(args) => Ok(ExitCode::from(squiggle::cli::status::run(args).await)),
    }
}

async fn finish_tool(
    engine: &Engine,
    result: Result<ToolResult, ToolError>,
    json: bool,
) -> ExitCode {
    engine.shutdown().await;
    match result {
        Ok(result) => {
            if json {
                squiggle::outln!(
                    "{}",
                    serde_json::to_string_pretty(&result).unwrap_or_default()
                );
            } else {
                squiggle::outln!("{}", result.text().trim_end());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if json {
                squiggle::outln!("{}", serde_json::json!({ "error": e.to_string() }));
            } else {
                eprintln!("squiggle: {e}");
            }
            ExitCode::from(1)
        }
    }
}
