//! `squiggle check [PATHS…]`: diagnostics for a set of files, for pre-commit
//! hooks and CI rather than for an agent's edit.
//!
//! Each step in its own module: settle the arguments (`plan`), ask git what
//! changed (`diff`), choose the files (`select`: paths walked with the
//! ignore rules, or the changed files), check them all at once with the
//! engine (`run`), then keep what the diff filter allows (`filter`) and print
//! it in the chosen format (`report`: text, JSON, `sarif`, `github`).
//!
//! Exit codes: 0 nothing at or above `--fail-on` survived the filter, 1
//! findings, 2 a usage, configuration or environment error (and, with
//! `--require-servers`, a server that could not check its files). stdout
//! holds only the result; progress goes to stderr when it is a terminal.

mod diff;
mod filter;
mod github;
mod plan;
mod report;
mod run;
mod sarif;
mod select;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::diagnostic::Severity;
use crate::engine::{Engine, EngineOptions};
use report::{Output, Tally, plural, severity_name};

pub use crate::baseline::git::DiffSource;
pub use filter::{FileChanges, FilterMode};

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The `<diagnostics>` blocks, capped as configured.
    Text,
    /// `{files: [{file, diagnostics, outcomes}], summary}`.
    Json,
    /// SARIF 2.1.0, for code-scanning uploads.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Files or directories to check; directories are walked honouring
    /// .gitignore. Default: the workspace root, or the changed files with
    /// --staged / --diff.
    pub paths: Vec<PathBuf>,
    /// Check the files staged in git, with their staged content.
    #[arg(long, conflicts_with = "diff")]
    pub staged: bool,
    /// Check the files changed since REV (working-tree content).
    #[arg(long, value_name = "REV")]
    pub diff: Option<String>,
    /// Which diagnostics count: on added lines, on changed lines, in changed
    /// files, or all. Default: added with --staged / --diff, else none.
    #[arg(long, value_enum)]
    pub filter: Option<FilterMode>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Lowest severity shown (default: the configuration's includeSeverities).
    #[arg(long, value_name = "LEVEL", value_parser = parse_severity)]
    pub severity: Option<Severity>,
    /// Lowest severity that fails the check (exit 1), shown or not.
    #[arg(long, value_name = "LEVEL", default_value = "error", value_parser = parse_severity)]
    pub fail_on: Severity,
    /// Exit 2 when a server that serves a checked file is unavailable, or
    /// a file is not checked at all (binary, over the size limit).
    #[arg(long)]
    pub require_servers: bool,
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
    /// Progress and per-file outcomes on stderr, even when it is not a terminal.
    #[arg(short, long)]
    pub verbose: bool,
    /// Check in this process instead of through the warm daemon (also
    /// `SQUIGGLE_NO_DAEMON=1`).
    #[arg(long)]
    pub no_daemon: bool,
}

fn parse_severity(name: &str) -> Result<Severity, String> {
    Severity::parse(name).ok_or_else(|| "expected error, warning, info or hint".to_string())
}

pub async fn run(args: Args) -> u8 {
    match check(args).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("squiggle: {message}");
            2
        }
    }
}

async fn check(args: Args) -> Result<u8, String> {
    let started = Instant::now();
    let plan = plan::Plan::new(&args)?;
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let opts = EngineOptions {
        root: args.workspace.root.clone(),
        trust_workspace: args.workspace.trust_workspace,
        cli: args.workspace.interactive_overrides(),
        ..Default::default()
    };
    let engine = Arc::new(Engine::new(&opts, &cwd).map_err(|e| e.to_string())?);
    let root = engine.workspace().root().to_path_buf();
    let include = plan::shown_severities(args.severity, &engine);
    let changes = match plan.source.clone() {
        Some(source) => Some(diff::changes(&root, source, plan.filter)?),
        None => None,
    };
    let selected = run::selected(&engine, &cwd, &args.paths, changes.as_ref())?;
    let report = run::run(&engine, &args, &selected, changes.as_ref(), &plan).await?;

    let notices = report::server_notices(&report);
    for notice in &notices.warnings {
        eprintln!("squiggle: warning: {notice}");
    }
    if args.verbose {
        report::print_outcomes(&report);
    }
    let lines = changes.as_ref().map(|c| &c.lines);
    let tally = Tally::new(&report, plan.filter, lines, args.fail_on);
    let shown = tally.shown(&include);
    let mut render = engine.render_options();
    render.include = include.clone();
    let output = Output {
        format: plan.format,
        report: &report,
        tally: &tally,
        shown: &shown,
        render,
        root: &root,
        notices: &notices,
    };
    // A closed pipe (`| head`) is not an error: the exit code still says
    // whether the check failed.
    let _ = super::try_write_stdout(&report::format(&output));

    let failing_hidden = tally.failing_hidden(args.fail_on, &include);
    if failing_hidden > 0 {
        eprintln!(
            "squiggle: {failing_hidden} {} at or above --fail-on {} not shown (raise --severity to see them)",
            plural(failing_hidden, "diagnostic"),
            severity_name(args.fail_on),
        );
    }
    if plan.progress {
        let seconds = started.elapsed().as_secs_f64();
        let line = report::summary(&tally, report.files.len(), seconds, plan.filter);
        eprintln!("{line}");
    }
    if args.require_servers && !notices.missing.is_empty() {
        eprintln!(
            "squiggle: --require-servers: {} could not check {}",
            notices.missing.join(", "),
            if notices.missing.len() == 1 {
                "its files"
            } else {
                "their files"
            },
        );
        return Ok(2);
    }
    if args.require_servers && !notices.unchecked.is_empty() {
        eprintln!(
            "squiggle: --require-servers: {} not checked",
            notices.unchecked.join(", ")
        );
        return Ok(2);
    }
    Ok(u8::from(tally.failed))
}
