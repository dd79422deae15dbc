//! Running the check: the files chosen by the arguments (or the diff), then
//! one engine run over all of them, through the warm daemon when the content
//! is on disk.

use std::path::Path;
use std::sync::Arc;

use super::super::warm::Route;
use super::diff::{self, Changes};
use super::plan::Plan;
use super::report::plural;
use super::{Args, select};
use crate::engine::{CheckReport, Engine, HeldOthers};
use crate::render::ReportMode;
use crate::service::wire::{CheckParams, RenderOverrides};

/// The files to check: the paths given, else the changed files of the diff,
/// else the whole workspace.
pub fn selected(
    engine: &Engine,
    cwd: &Path,
    paths: &[std::path::PathBuf],
    changes: Option<&Changes>,
) -> Result<Vec<String>, String> {
    let root = engine.workspace().root().to_path_buf();
    match changes {
        Some(changes) if paths.is_empty() => Ok(select::served(engine, changes.files.clone())),
        _ if paths.is_empty() => select::walk(engine, cwd, std::slice::from_ref(&root)),
        _ => select::walk(engine, cwd, paths),
    }
}

/// Checks the selected files and stops the engine's servers.
pub async fn run(
    engine: &Arc<Engine>,
    args: &Args,
    selected: &[String],
    changes: Option<&Changes>,
    plan: &Plan,
) -> Result<CheckReport, String> {
    let inputs = diff::inputs(engine, selected, changes)?;
    if plan.progress {
        eprintln!(
            "squiggle: checking {} {}…",
            inputs.len(),
            plural(inputs.len(), "file")
        );
    }
    // On-disk content can be checked by the warm daemon; staged content is
    // passed by value, which only an in-process check takes.
    let report = if inputs.iter().all(|i| i.content.is_none()) {
        let route = Route {
            no_daemon: args.no_daemon,
            trust_workspace: args.workspace.trust_workspace,
        };
        // A listing, not an edit: nothing is hidden as old.
        let params = CheckParams {
            file_paths: inputs.into_iter().map(|i| i.path).collect(),
            options: RenderOverrides {
                report: Some(ReportMode::All),
                ..RenderOverrides::default()
            },
            origin: Some(crate::evidence::Origin::new(
                crate::evidence::Surface::Cli,
                None,
                "check",
            )),
            ..CheckParams::default()
        };
        let root = engine.workspace().root().to_path_buf();
        let cwd = root.clone();
        super::super::warm::check(Some(&root), &cwd, params, route, Some(engine))
            .await?
            .into()
    } else {
        // Staged texts are on no disk: an acknowledgement's line is read
        // from them.
        let texts = inputs
            .iter()
            .filter_map(|i| Some((engine.workspace().relative(&i.path)?, i.content.clone()?)))
            .collect();
        let mut report = engine.check_files(inputs, HeldOthers::Skip).await;
        engine.hide_ignored(&mut report, &texts);
        engine.shutdown().await;
        report
    };
    Ok(report)
}
