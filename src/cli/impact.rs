//! `squiggle impact`: who uses what a change touches. With `--staged` (or a
//! diff on stdin with `--stdin`), the symbols the diff changes and their
//! users — before a commit, or for a reviewer; with a `PATH`, one symbol
//! (`--symbol NAME` or `--line`/`--column`) or the file's exported
//! symbols. The answer is `lsp_impact`'s (`crate::impact`), as text or
//! `--json`. Servers run in this process and stop when it ends.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use crate::impact::{Bounds, ImpactResult, diff_impact, file_impact, symbol_impact};
use crate::navigation::PositionArgs;

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// A file: its exported symbols, or with --symbol / --line one symbol.
    #[arg(conflicts_with_all = ["staged", "stdin"])]
    pub path: Option<PathBuf>,
    /// The symbol in PATH: a name, or a name path such as `Shape.area`.
    #[arg(long, requires = "path")]
    pub symbol: Option<String>,
    /// The symbol's 1-based line in PATH.
    #[arg(long, requires = "path")]
    pub line: Option<u32>,
    /// Its 1-based column (characters).
    #[arg(long, requires = "line")]
    pub column: Option<u32>,
    /// The staged changes (`git diff --cached`).
    #[arg(long, conflicts_with = "stdin")]
    pub staged: bool,
    /// A unified diff (or Codex patch) read from stdin, already applied.
    #[arg(long)]
    pub stdin: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
}

pub async fn run(args: Args) -> u8 {
    let engine = match args.workspace.engine(Default::default()) {
        Ok(engine) => Arc::new(engine),
        Err(e) => {
            eprintln!("squiggle: {e}");
            return 2;
        }
    };
    let answer = impact(&engine, &args).await;
    engine.shutdown().await;
    match answer {
        Ok((result, text)) => {
            if args.json {
                crate::outln!(
                    "{}",
                    serde_json::to_string_pretty(&result).unwrap_or_default()
                );
            } else {
                crate::outln!("{text}");
            }
            0
        }
        Err(message) => {
            eprintln!("squiggle impact: {message}");
            2
        }
    }
}

async fn impact(
    engine: &Arc<crate::engine::Engine>,
    args: &Args,
) -> Result<(ImpactResult, String), String> {
    let bounds = Bounds::for_engine(engine);
    let root = engine.workspace().root().to_path_buf();
    if args.staged || args.stdin {
        let diff = if args.staged {
            crate::baseline::git::staged_patch(&root)?
        } else {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the diff from stdin: {e}"))?;
            text
        };
        if diff.trim().is_empty() {
            return Err("the diff is empty: nothing is changed".into());
        }
        return diff_impact(engine, &diff, bounds).await.map_err(|e| e.0);
    }
    let Some(path) = &args.path else {
        return Err("give a PATH, --staged or --stdin".into());
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.clone());
    let path = cwd.join(path).display().to_string();
    if args.symbol.is_none() && args.line.is_none() {
        return file_impact(engine, &path, bounds).await.map_err(|e| e.0);
    }
    let at = PositionArgs {
        path,
        line: args.line,
        column: args.column,
        symbol: args.symbol.clone(),
    };
    symbol_impact(engine, &at, bounds).await.map_err(|e| e.0)
}
