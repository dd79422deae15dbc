//! The `squiggle` command line: a thin adapter over the library. `main`
//! returns an exit code: 0 success, 1 refused mutation or findings, 2 usage,
//! configuration or environment error. stdout carries exactly what the
//! agent's tool would return; logs go to stderr (`RUST_LOG`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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

#[derive(Subcommand)]
enum Command {
    /// Replace an exact string in a file, then report diagnostics for it.
    Edit(squiggle::cli::tools::EditArgs),
    /// Write a file (content on stdin), then report diagnostics for it and other files.
    Write(squiggle::cli::tools::WriteArgs),
    /// Apply a unified diff or `*** Begin Patch` patch (on stdin), all or nothing.
    ApplyPatch(squiggle::cli::tools::ApplyPatchArgs),
    /// Apply a server's quick fix for a diagnostic, checked like an edit.
    Fix(squiggle::cli::tools::FixArgs),
    /// Delete a file, checking the files that import it.
    Delete(squiggle::cli::tools::DeleteArgs),
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
    /// Install pinned language servers (npm, PyPI) into squiggle's servers directory.
    Install(squiggle::cli::install::Args),
    /// Who uses what a change touches: a symbol, a file's exports, or the staged diff.
    Impact(squiggle::cli::impact::Args),
    /// Sum up the evidence log: errors introduced and never fixed, per file and agent.
    Audit(squiggle::cli::audit::Args),
    /// Acknowledge a diagnostic as a false positive (hidden until its line changes); list or remove them.
    Ack(squiggle::cli::ack::Args),
}

fn main() -> ExitCode {
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
    init_tracing(&cli.command);
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

/// Logs go to stderr, filtered by `RUST_LOG`; without it, errors only — but
/// the daemon (whose stderr is its log file) also says what it does with
/// its socket and its configuration, and whom its endpoint refused (another
/// user, a wrong token). Colour only for a person at a terminal:
/// an agent, a hook's caller or a log file reads the escape codes as text.
fn init_tracing(command: &Command) {
    use std::io::IsTerminal;
    let daemon = matches!(
        command,
        Command::Daemon(squiggle::cli::daemon::Args {
            action: squiggle::cli::daemon::Action::Run(_)
        })
    );
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => {
            tracing_subscriber::EnvFilter::new(directives)
        }
        _ if daemon => tracing_subscriber::EnvFilter::new(
            "error,squiggle::daemon=info,squiggle::engine::reload=info,squiggle::platform::transport=warn",
        ),
        _ => tracing_subscriber::EnvFilter::new("error"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

async fn run(command: Command) -> ExitCode {
    ExitCode::from(match command {
        Command::Edit(args) => squiggle::cli::tools::edit(args).await,
        Command::Write(args) => squiggle::cli::tools::write(args).await,
        Command::ApplyPatch(args) => squiggle::cli::tools::apply_patch(args).await,
        Command::Fix(args) => squiggle::cli::tools::fix(args).await,
        Command::Delete(args) => squiggle::cli::tools::delete(args).await,
        Command::Check(args) => squiggle::cli::check::run(args).await,
        Command::Doctor(args) => squiggle::cli::doctor::run(args).await,
        Command::Hook(args) => squiggle::cli::hook::run(args).await,
        Command::Init(args) => squiggle::cli::init::run(args).await,
        Command::Serve(args) => squiggle::cli::serve::run(args).await,
        Command::Daemon(args) => squiggle::cli::daemon::run(args).await,
        Command::Mcp(args) => squiggle::cli::mcp::run(args).await,
        Command::Status(args) => squiggle::cli::status::run(args).await,
        Command::Install(args) => squiggle::cli::install::run(args).await,
        Command::Impact(args) => squiggle::cli::impact::run(args).await,
        Command::Audit(args) => squiggle::cli::audit::run(args).await,
        Command::Ack(args) => squiggle::cli::ack::run(args).await,
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every argument of every subcommand says what it is in one line
    /// (`squiggle edit --help` once showed bare names).
    #[test]
    fn every_argument_has_one_line_of_help() {
        let mut missing = Vec::new();
        let mut stack = vec![(String::from("squiggle"), super::Cli::command())];
        while let Some((path, command)) = stack.pop() {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                if help.trim().is_empty() || help.contains('\n') {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                stack.push((format!("{path} {}", sub.get_name()), sub.clone()));
            }
        }
        assert_eq!(
            missing,
            Vec::<String>::new(),
            "arguments without one line of help"
        );
    }
}
