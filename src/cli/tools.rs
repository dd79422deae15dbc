//! `squiggle edit`, `write`, `apply-patch` and `fix`: the wrapped edit tools
//! an agent builder calls in place of their own. Each applies the mutation (or refuses
//! it, writing nothing), then prints exactly what the agent's tool should
//! return: the tool's message and any `<diagnostics>` blocks, or with
//! `--json` the structured result. Exit 0 when the mutation was applied
//! (whatever the diagnostics), 1 when it was refused, 2 for usage or
//! configuration errors.
//!
//! Like the hooks, each call goes through the workspace's warm daemon
//! (started on first use), so servers start once, not once per call; when
//! the daemon cannot be reached the same service method runs in this
//! process (`service::change`: the arguments' params read into the
//! engine's `Request`), with an engine built only then. A mutation
//! sent to the daemon is never sent again here: if the daemon stops
//! mid-call the file may have been written, and the error says so.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::json;

use super::warm::Route;
use crate::daemon::DaemonError;
use crate::engine::tools::ToolResult;
use crate::engine::{Engine, Request};
use crate::evidence::{Origin, Surface};
use crate::service::wire::{
    ApplyPatchParams, DeleteParams, EditParams, FixParams, Method, WriteParams, method,
};
use crate::service::{Failure, REFUSED};

/// The flags every edit tool takes.
#[derive(clap::Args, Debug, Clone)]
pub struct ToolArgs {
    /// Workspace root (default: the git top-level, else the current directory).
    #[arg(long, global = true)]
    pub root: Option<PathBuf>,
    /// Print the structured result as JSON instead of the text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Honour `command`/`args`/`env` from the workspace's .squiggle.toml.
    #[arg(long, global = true)]
    pub trust_workspace: bool,
    /// Run in this process instead of the warm daemon (also SQUIGGLE_NO_DAEMON=1).
    #[arg(long, global = true)]
    pub no_daemon: bool,
}

impl ToolArgs {
    fn route(&self) -> Route {
        Route {
            no_daemon: self.no_daemon,
            trust_workspace: self.trust_workspace,
        }
    }

    fn output(&self) -> Output {
        if self.json {
            Output::Json
        } else {
            Output::Text
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct EditArgs {
    /// The file to edit (relative to the current directory, inside the workspace).
    pub path: PathBuf,
    /// The exact text to replace; it must occur once unless --replace-all is given.
    #[arg(long)]
    pub old_string: String,
    /// The text to put in its place.
    #[arg(long)]
    pub new_string: String,
    /// Replace every occurrence of --old-string instead of requiring exactly one.
    #[arg(long)]
    pub replace_all: bool,
    /// Check the edit against the servers without writing the file.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: ToolArgs,
}

#[derive(clap::Args, Debug, Clone)]
pub struct WriteArgs {
    /// The file to create or overwrite with the text on stdin.
    pub path: PathBuf,
    /// Check the new content against the servers without writing the file.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: ToolArgs,
}

#[derive(clap::Args, Debug, Clone)]
pub struct ApplyPatchArgs {
    /// Check the patched files against the servers without writing them.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: ToolArgs,
}

#[derive(clap::Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["id", "line"])))]
pub struct FixArgs {
    /// The file whose diagnostic to fix.
    pub path: PathBuf,
    /// The fix an earlier answer offered (its `fix.id`); refused when the
    /// file has changed since.
    #[arg(long, conflicts_with_all = ["line", "column"])]
    pub id: Option<String>,
    /// The diagnostic's line (1-based): its server's preferred or only fix.
    #[arg(long)]
    pub line: Option<u32>,
    /// The diagnostic's column (1-based, characters), when its line has several.
    #[arg(long, requires = "line")]
    pub column: Option<u32>,
    /// Check the fixed files against the servers without writing them.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: ToolArgs,
}

#[derive(clap::Args, Debug, Clone)]
pub struct DeleteArgs {
    /// The file to delete (relative to the current directory, inside the workspace).
    pub path: PathBuf,
    /// Delete nothing; check the files that import it as they are.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: ToolArgs,
}

/// `squiggle delete`: one file removed, the files that import it checked
/// again.
pub async fn delete(args: DeleteArgs) -> u8 {
    let params = DeleteParams {
        file_path: absolute(&args.path),
        dry_run: args.dry_run,
        origin: Some(cli("delete")),
    };
    run::<method::Delete>(&args.common, params).await
}

/// `squiggle fix`: the server's quick fix for one diagnostic, recomputed
/// for the text now and applied like a patch.
pub async fn fix(args: FixArgs) -> u8 {
    let params = FixParams {
        file_path: absolute(&args.path),
        id: args.id,
        line: args.line,
        column: args.column,
        dry_run: args.dry_run,
        origin: Some(cli("fix")),
    };
    run::<method::Fix>(&args.common, params).await
}

pub async fn edit(args: EditArgs) -> u8 {
    let params = EditParams {
        file_path: absolute(&args.path),
        old_string: args.old_string,
        new_string: args.new_string,
        replace_all: args.replace_all,
        dry_run: args.dry_run,
        origin: Some(cli("edit")),
    };
    run::<method::Edit>(&args.common, params).await
}

pub async fn write(args: WriteArgs) -> u8 {
    let Some(content) = stdin_text() else {
        return 2;
    };
    let params = WriteParams {
        file_path: absolute(&args.path),
        content,
        dry_run: args.dry_run,
        origin: Some(cli("write")),
    };
    run::<method::Write>(&args.common, params).await
}

pub async fn apply_patch(args: ApplyPatchArgs) -> u8 {
    let Some(patch) = stdin_text() else {
        return 2;
    };
    // Patch paths are relative to the workspace root, as in-process.
    let params = ApplyPatchParams {
        patch,
        dry_run: args.dry_run,
        origin: Some(cli("apply-patch")),
    };
    run::<method::ApplyPatch>(&args.common, params).await
}

/// Runs the change method `M` in the workspace's daemon, or, when it
/// cannot be reached, the same service method in this process (an engine
/// built only then, its servers stopped after); prints the answer and
/// gives the exit code.
async fn run<M>(common: &ToolArgs, params: M::Params) -> u8
where
    M: Method<Answer = ToolResult>,
    M::Params: TryInto<Request>,
    Failure: From<<M::Params as TryInto<Request>>::Error>,
{
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if let Ok(root) = super::warm::workspace_root(common.root.as_deref(), &cwd)
        && let Some(code) = through_daemon::<M>(&root, common, &params).await
    {
        return code;
    }
    let Some(engine) = engine(common) else {
        return 2;
    };
    let result = crate::service::change(&engine, params).await;
    finish(
        &engine,
        result.map_err(|f| f.message().to_string()),
        common.output(),
    )
    .await
}

/// The evidence log's origin of `squiggle COMMAND`.
fn cli(command: &str) -> Origin {
    Origin::new(Surface::Cli, None, command)
}

/// `path` made absolute against the current directory: the daemon's own
/// directory is the workspace root.
fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Runs the mutation in the workspace's daemon and prints its answer; the
/// exit code, or `None` when the daemon cannot be reached (run it here).
async fn through_daemon<M: Method<Answer = ToolResult>>(
    root: &Path,
    common: &ToolArgs,
    params: &M::Params,
) -> Option<u8> {
    let route = common.route();
    if route.in_process() {
        return None;
    }
    let opts = route.daemon_options();
    let mut connection = match crate::daemon::client::try_connect_or_spawn(root, &opts).await {
        Ok(connection) => connection,
        Err(e) => {
            tracing::debug!("daemon unavailable ({e}); running in this process");
            return None;
        }
    };
    let timeout = crate::daemon::client::CHECK_TIMEOUT;
    let output = common.output();
    Some(match connection.call::<M>(params, timeout).await {
        Ok(result) => output.applied(&result, || result.text().trim_end().to_string()),
        Err(DaemonError::Rpc { error, .. }) if error.code == REFUSED => {
            output.refused(&error.message)
        }
        // Nothing was sent (a path JSON cannot carry): run it here.
        Err(e @ DaemonError::BadRequest { .. }) => {
            tracing::debug!("{e}; running in this process");
            return None;
        }
        Err(e) => {
            eprintln!(
                "squiggle: {e}; the mutation may have been applied: check the file before retrying"
            );
            2
        }
    })
}

fn engine(common: &ToolArgs) -> Option<Arc<Engine>> {
    let workspace = super::WorkspaceArgs {
        root: common.root.clone(),
        trust_workspace: common.trust_workspace,
        non_interactive: false,
    };
    workspace
        .engine(Default::default())
        .map(Arc::new)
        .map_err(|e| eprintln!("squiggle: {e}"))
        .ok()
}

fn stdin_text() -> Option<String> {
    let mut text = String::new();
    match std::io::stdin().read_to_string(&mut text) {
        Ok(_) => Some(text),
        Err(e) => {
            eprintln!("squiggle: cannot read stdin as UTF-8 text: {e}");
            None
        }
    }
}

/// How long the servers get to shut down after the result is out; a server
/// that ignores `shutdown` and `exit` is killed when this runs out.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Prints the result, then stops the servers: the agent's answer never
/// waits for a server that will not stop (a server ignoring `shutdown`
/// once held the result back by seconds past the deadline).
async fn finish(
    engine: &Engine,
    result: Result<ToolResult, impl std::fmt::Display>,
    output: Output,
) -> u8 {
    let code = match result {
        Ok(result) => output.applied(&result, || result.text().trim_end().to_string()),
        Err(e) => output.refused(&e.to_string()),
    };
    tracing::debug!("result printed; stopping the servers");
    if tokio::time::timeout(SHUTDOWN_GRACE, engine.shutdown())
        .await
        .is_err()
    {
        // Dropping the unfinished shutdown drops its clients, which kills
        // their process groups.
        tracing::debug!("servers did not stop within {SHUTDOWN_GRACE:?}; killed");
        engine.kill_servers();
    }
    code
}

/// How a tool's answer is printed: the text the agent's tool returns, or
/// (`--json`) the structured result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Text,
    Json,
}

impl Output {
    /// Prints an applied mutation's result (`text` is its rendering); exit 0.
    fn applied(self, result: &impl Serialize, text: impl FnOnce() -> String) -> u8 {
        match self {
            Output::Json => crate::outln!(
                "{}",
                serde_json::to_string_pretty(result).unwrap_or_default()
            ),
            Output::Text => crate::outln!("{}", text()),
        }
        0
    }

    /// Prints why a mutation was refused; exit 1.
    fn refused(self, message: &str) -> u8 {
        match self {
            Output::Json => crate::outln!("{}", json!({ "error": message })),
            Output::Text => eprintln!("squiggle: {message}"),
        }
        1
    }
}
