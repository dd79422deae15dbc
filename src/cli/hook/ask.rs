//! The one request a hook makes — `squiggle/check` with the event's files,
//! the mutation, what the payload tells of each file's text before, and how
//! the agent takes the text — and where it is answered: the workspace's
//! daemon, else the same method in this process (`cli::warm`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::before::Told;
use crate::cli::warm::Route;
use crate::engine::Mutation;
use crate::evidence::Origin;
use crate::render::Escape;
use crate::service::wire::{CheckParams, RenderOverrides};

/// The `squiggle/check` a hook sends: `files` after `mutation`, each one's
/// text before as far as `told` says, the answer cut to `max_chars` and
/// escaped as `escape` says (else as configured), and who asks (`origin`,
/// for the evidence log).
pub(super) fn request(
    files: Vec<PathBuf>,
    mutation: Mutation,
    told: &BTreeMap<PathBuf, Told>,
    max_chars: usize,
    escape: Option<Escape>,
    origin: Origin,
) -> CheckParams {
    let before = told
        .iter()
        .filter_map(|(path, told)| Some((path.clone(), told.resolve(path)?)))
        .collect();
    CheckParams {
        file_paths: files,
        mutation,
        before,
        options: RenderOverrides {
            max_chars: Some(max_chars),
            escape,
            ..RenderOverrides::default()
        },
        origin: Some(origin),
        ..CheckParams::default()
    }
}

/// The daemon's feedback for `params` — or, when no daemon can answer,
/// this process's, from the same method (`squiggle/check`); `None` (after
/// a note on stderr) when neither could check.
pub(super) async fn check(
    root: Option<&Path>,
    cwd: &Path,
    params: CheckParams,
    route: Route,
) -> Option<String> {
    match crate::cli::warm::check(root, cwd, params, route, None).await {
        Ok(reply) => Some(reply.feedback),
        Err(e) => {
            tracing::debug!(error = %e, "hook: nothing checked");
            eprintln!("squiggle hook: {e}; nothing reported");
            None
        }
    }
}
