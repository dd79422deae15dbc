//! `squiggle edit`, `write` and `apply-patch`: the wrapped edit tools an agent
//! builder calls in place of their own. Each applies the mutation (or refuses
//! it, writing nothing), then prints exactly what the agent's tool should
//! return: the tool's message and any `<diagnostics>` blocks, or with
//! `--json` the structured result. Exit 0 when the mutation was applied
//! (whatever the diagnostics), 1 when it was refused, 2 for usage or
//! configuration errors.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::Engine;
use crate::engine::tools::{ToolError, ToolResult};

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

pub async fn edit(args: EditArgs) -> u8 {
    let EditArgs {
        path,
        old_string,
        new_string,
        replace_all,
        dry_run,
        common,
    } = args;
    let Some(engine) = engine(&common) else {
        return 2;
    };
    let result = engine
        .edit(&path, &old_string, &new_string, replace_all, dry_run)
        .await;
    finish(&engine, result, common.json).await
}

pub async fn write(args: WriteArgs) -> u8 {
    let Some(content) = stdin_text() else {
        return 2;
    };
    let Some(engine) = engine(&args.common) else {
        return 2;
    };
    let result = engine.write(&args.path, &content, args.dry_run).await;
    finish(&engine, result, args.common.json).await
}

pub async fn apply_patch(args: ApplyPatchArgs) -> u8 {
    let Some(patch) = stdin_text() else {
        return 2;
    };
    let Some(engine) = engine(&args.common) else {
        return 2;
    };
    let result = engine.apply_patch(&patch, args.dry_run).await;
    finish(&engine, result, args.common.json).await
}

fn engine(common: &ToolArgs) -> Option<Arc<Engine>> {
    super::engine_from(
        common.root.as_deref(),
        common.trust_workspace,
        Default::default(),
    )
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

async fn finish(engine: &Engine, result: Result<ToolResult, ToolError>, json: bool) -> u8 {
    engine.shutdown().await;
    match result {
        Ok(result) => {
            if json {
                crate::outln!(
                    "{}",
                    serde_json::to_string_pretty(&result).unwrap_or_default()
                );
            } else {
                crate::outln!("{}", result.text().trim_end());
            }
            0
        }
        Err(e) => {
            if json {
                crate::outln!("{}", serde_json::json!({ "error": e.to_string() }));
            } else {
                eprintln!("squiggle: {e}");
            }
            1
        }
    }
}
