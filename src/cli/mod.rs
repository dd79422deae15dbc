//! The command line's subcommands, each in its own module: `Args` (clap) and
//! an async `run` returning the process exit code (0 ok, 1 findings or
//! refused mutation, 2 usage, configuration or environment error). The
//! binary (`src/main.rs`) only parses and dispatches.

pub mod ack;
pub mod audit;
pub mod check;
pub mod daemon;
pub mod doctor;
pub mod hook;
pub mod impact;
pub mod init;
pub mod install;
pub mod mcp;
pub mod serve;
pub mod status;
pub mod tools;
pub mod warm;

use std::path::PathBuf;

use crate::config::PartialConfig;
use crate::engine::{Engine, EngineOptions};

/// The flags that choose the workspace, shared by the subcommands that run
/// an engine.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct WorkspaceArgs {
    /// Workspace root (default: the git top-level, else the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Honour `command`/`args`/`env` from the workspace's .squiggle.toml.
    #[arg(long)]
    pub trust_workspace: bool,
    /// Run as no one is watching even on a terminal: with `strict = true`,
    /// only servers named in the configuration start.
    #[arg(long)]
    pub non_interactive: bool,
}

impl WorkspaceArgs {
    /// The engine a subcommand works with: the workspace found from the
    /// current directory (or `--root`), its configuration with `cli` on top,
    /// and whether the workspace's own file may name commands. The error is
    /// the message to print.
    pub fn engine(&self, mut cli: PartialConfig) -> Result<Engine, String> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        cli.strict = cli.strict.or(self.interactive_overrides().strict);
        let opts = EngineOptions {
            root: self.root.clone(),
            trust_workspace: self.trust_workspace,
            cli,
            ..Default::default()
        };
        Engine::new(&opts, &cwd).map_err(|e| e.to_string())
    }

    /// Whether someone is at the keyboard: stdin is a terminal and
    /// `--non-interactive` was not given. The daemon, `serve` and `mcp`
    /// never are (their stdin is a protocol or nothing).
    pub fn interactive(&self) -> bool {
        use std::io::IsTerminal;
        !self.non_interactive && std::io::stdin().is_terminal()
    }

    /// The command line's layer for an engine built here: `strict` only
    /// governs non-interactive use, so at a terminal it is off.
    pub fn interactive_overrides(&self) -> PartialConfig {
        PartialConfig {
            strict: self.interactive().then_some(false),
            ..Default::default()
        }
    }
}

/// The one writer of command output to stdout (the MCP and service
/// transports own theirs): the whole text, flushed. The error says why it
/// could not be written, a closed pipe included; callers decide what that means.
pub fn try_write_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush())
}

/// Writes to stdout; a closed stdout (`squiggle status | head`) ends the
/// process quietly with success instead of a panic. SIGPIPE stays ignored
/// process-wide on purpose: squiggle writes to language servers' stdin, and a
/// server that died must not take squiggle with it.
pub fn write_stdout(text: &str) {
    if let Err(e) = try_write_stdout(text)
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// `println!` for command output, through [`write_stdout`].
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::cli::write_stdout(&format!("{}\n", format_args!($($arg)*))) };
}

/// `print!` for command output, through [`write_stdout`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::write_stdout(&format!($($arg)*)) };
}
