//! `squiggle audit`: the evidence log summed up (`evidence::audit`) —
//! which changes introduced errors that were never fixed, per file and per
//! agent — for the workspace (found from the current directory, or
//! `--root`), or for every workspace the log names (`--all`). Reads the log
//! the configuration names (or `--log`) and its rotated files, oldest
//! first. Exit 1 when some error a change introduced was never fixed, as
//! `check` exits 1 on findings; 2 when there is no log to read.

use std::path::PathBuf;

use crate::evidence::{audit, file, path_for};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The log to read (default: the configuration's `[lsp.evidence] path`,
    /// else `$XDG_STATE_HOME/squiggle/evidence.jsonl`).
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Sum up every workspace the log names, each file under its
    /// workspace's root (default: only the workspace of the current
    /// directory, or of --root).
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
}

pub async fn run(args: Args) -> u8 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = match crate::workspace::Workspace::discover(args.workspace.root.as_deref(), &cwd) {
        Ok(workspace) => workspace.root().display().to_string(),
        Err(e) => {
            eprintln!("squiggle audit: cannot use the workspace: {e}");
            return 2;
        }
    };
    let (path, keep) = match &args.log {
        Some(log) => (Some(log.clone()), crate::config::MAX_EVIDENCE_KEEP),
        None => match args.workspace.engine(Default::default()) {
            Ok(engine) => {
                let evidence = &engine.config().evidence;
                if !evidence.enabled {
                    eprintln!(
                        "squiggle audit: the evidence log is off; turn it on with `evidence = true` under [lsp], or name a log with --log"
                    );
                    return 2;
                }
                (path_for(evidence), evidence.keep)
            }
            Err(e) => {
                eprintln!("squiggle: {e}");
                return 2;
            }
        },
    };
    let Some(path) = path else {
        eprintln!("squiggle audit: no log path: set [lsp.evidence] path, XDG_STATE_HOME or HOME");
        return 2;
    };
    let files = file::all_files(&path, keep);
    if files.is_empty() {
        eprintln!("squiggle audit: no evidence log at {}", path.display());
        return 2;
    }
    let workspace = (!args.all).then_some(root.as_str());
    let summary = match audit::summarize(&files, workspace) {
        Ok(summary) => summary,
        Err(e) => {
            eprintln!("squiggle audit: cannot read {}: {e}", path.display());
            return 2;
        }
    };
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&summary).unwrap_or_default()
        );
    } else {
        crate::outln!("{}", audit::render(&summary));
    }
    u8::from(!summary.unfixed.is_empty())
}
