//! What the arguments of `squiggle check` ask for, settled before any file is
//! read: the output format, the diff to measure against, the filter, which
//! severities are shown, and whether progress goes to stderr. A filter
//! without a diff is refused here, before the engine starts.

use std::io::IsTerminal;

use super::report::filter_name;
use super::{Args, DiffSource, FilterMode, Format};
use crate::diagnostic::Severity;
use crate::engine::Engine;

/// The settled arguments.
pub struct Plan {
    pub format: Format,
    /// The diff the check is measured against, if any.
    pub source: Option<DiffSource>,
    pub filter: FilterMode,
    /// Progress lines on stderr (a terminal, or `--verbose`).
    pub progress: bool,
}

impl Plan {
    pub fn new(args: &Args) -> Result<Plan, String> {
        let format = if args.json { Format::Json } else { args.format };
        let source = match (&args.diff, args.staged) {
            (_, true) => Some(DiffSource::Staged),
            (Some(rev), false) => Some(DiffSource::Rev(rev.clone())),
            (None, false) => None,
        };
        let filter = args.filter.unwrap_or(if source.is_some() {
            FilterMode::Added
        } else {
            FilterMode::None
        });
        if filter != FilterMode::None && source.is_none() {
            return Err(format!(
                "--filter {} needs a diff: add --staged or --diff REV",
                filter_name(filter)
            ));
        }
        let progress = args.verbose || std::io::stderr().is_terminal();
        Ok(Plan {
            format,
            source,
            filter,
            progress,
        })
    }
}

/// The severities shown: `--severity` and everything more severe, else the
/// configuration's `includeSeverities`.
pub fn shown_severities(lowest: Option<Severity>, engine: &Engine) -> Vec<Severity> {
    match lowest {
        Some(lowest) => [
            Severity::Error,
            Severity::Warning,
            Severity::Info,
            Severity::Hint,
        ]
        .into_iter()
        .filter(|s| *s <= lowest)
        .collect(),
        None => engine.config().include_severities.clone(),
    }
}
