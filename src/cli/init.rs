//! `squiggle init claude|codex|gemini`: adds squiggle's post-edit hook to
//! the agent's own settings file, so a user does not have to learn three
//! hook formats. Running it again changes nothing; every other setting is
//! kept, members in their order (see `ordered`); the file is written
//! atomically, and a file that is not valid JSON is left alone (exit 2).
//!
//! | agent | project file | user file | event | matcher |
//! | --- | --- | --- | --- | --- |
//! | claude | `.claude/settings.json` | `~/.claude/settings.json` | `PostToolUse` | `Write\|Edit` |
//! | codex | `.codex/hooks.json` | `$CODEX_HOME/hooks.json` (`~/.codex`) | `PostToolUse` | `apply_patch` |
//! | gemini | `.gemini/settings.json` | `~/.gemini/settings.json` | `AfterTool` | `write_file\|replace` |
//!
//! Codex also wants each hook trusted (`--trust-hook` records it; see
//! `codex_trust`); Gemini CLI runs hooks only in a trusted folder.

mod aider;
mod codex_trust;
mod doctor_notes;
mod groups;
pub mod hook_files;
mod host;
pub(crate) mod hosts;
mod ordered;
mod plugin_file;
mod settings;

pub use doctor_notes::notes as doctor_notes;
pub use host::{FileHost, Host};

use std::path::PathBuf;

use groups::{add_hooks, added_hooks, has_group, runs_hook};
use settings::{read_settings, settings_path, write_settings};

use crate::platform::paths::join_slashed;

use super::hook::Agent;

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The agent whose settings get the hook (or, for OpenCode, Kilo CLI
    /// and Aider, the file squiggle runs from).
    #[arg(value_enum)]
    pub agent: Host,
    /// Write the project's settings file (the default).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Write your user settings file instead of the project's.
    #[arg(long)]
    pub user: bool,
    /// Print the resulting file instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// Project directory (default: the git top-level, else the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Codex only: record in `$CODEX_HOME/config.toml` (`~/.codex`) that you
    /// trust squiggle's hook, as Codex's own `/hooks` screen does; Codex
    /// runs no new or changed hook without it.
    #[arg(long)]
    pub trust_hook: bool,
    /// Claude only: report once per model turn (`PostToolBatch`: every
    /// file the turn's edits touched, checked in one wait) instead of after
    /// each edit.
    #[arg(long)]
    pub batch: bool,
    /// Also run the hook at the turn's end (`Stop`; Gemini's `AfterAgent`),
    /// which keeps a turn going once when errors the turn introduced are
    /// still in the files it touched or their importers (never twice in a
    /// row, never for errors from before). VS Code, Copilot CLI and Cursor
    /// always get it.
    #[arg(long)]
    pub stop_gate: bool,
}

/// Where and how one agent runs its hooks.
struct Target {
    event: &'static str,
    matcher: &'static str,
    project_file: &'static str,
    /// The user file, relative to `$HOME` unless an agent's own variable says otherwise.
    user_file: fn() -> Option<PathBuf>,
}

fn target(agent: Agent) -> Target {
    match agent {
        Agent::Claude => Target {
            event: "PostToolUse",
            matcher: "Write|Edit|Bash",
            project_file: ".claude/settings.json",
            user_file: || home().map(|h| join_slashed(&h, ".claude/settings.json")),
        },
        Agent::Codex => Target {
            event: "PostToolUse",
            matcher: "apply_patch|Bash",
            project_file: ".codex/hooks.json",
            user_file: || codex_home().map(|dir| dir.join("hooks.json")),
        },
        // Unanchored regexes: `edit` alone would match `notebook_edit` too.
        Agent::Qwen => Target {
            event: "PostToolUse",
            matcher: "^(edit|write_file|run_shell_command)$",
            project_file: ".qwen/settings.json",
            user_file: || home().map(|h| join_slashed(&h, ".qwen/settings.json")),
        },
        // The other hosts never get here (see `hosts`).
        _ => Target {
            event: "AfterTool",
            matcher: "write_file|replace|run_shell_command",
            project_file: ".gemini/settings.json",
            user_file: || home().map(|h| join_slashed(&h, ".gemini/settings.json")),
        },
    }
}

/// Matchers earlier squiggle releases wrote for the main event; a squiggle
/// group with one of them is brought up to date once (Claude Code's
/// `MultiEdit` is gone since 2.x; shell tools are watched now).
fn old_matchers(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Claude => &["Write|Edit|MultiEdit", "Write|Edit"],
        Agent::Codex => &["apply_patch"],
        Agent::Qwen => &[],
        _ => &["write_file|replace"],
    }
}

/// The other events squiggle's hook listens to: before a shell command
/// (the workspace snapshot, see `hook/shell.rs`), session start (the
/// daemon warms the servers, see `hook/session.rs`), and Gemini's
/// BeforeModel (the unescaped hand-over, see `hook/gemini_model.rs`).
fn extra_events(agent: Agent) -> &'static [(&'static str, Option<&'static str>)] {
    match agent {
        Agent::Claude | Agent::Codex => &[("PreToolUse", Some("Bash")), ("SessionStart", None)],
        Agent::Qwen => &[
            ("PreToolUse", Some("^run_shell_command$")),
            ("SessionStart", None),
        ],
        _ => &[
            ("BeforeTool", Some("run_shell_command")),
            ("BeforeModel", None),
            ("SessionStart", None),
        ],
    }
}

/// `$CODEX_HOME`, else `~/.codex`.
pub(crate) fn codex_home() -> Option<PathBuf> {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".codex")))
}

/// The home the agents keep their user settings in (`%USERPROFILE%` on
/// Windows).
fn home() -> Option<PathBuf> {
    crate::platform::paths::home_dir()
}

fn command(agent: Agent) -> String {
    format!("squiggle hook {}", agent.name())
}

pub async fn run(args: Args) -> u8 {
    let result = match args.agent {
        Host::Hook(agent) => init(&args, agent),
        Host::File(host) => host::init(host, &args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("squiggle init: {message}");
            2
        }
    }
}

/// Adds the hook to the agent's settings file; the error is the message
/// to print (the file is then unchanged).
fn init(args: &Args, agent: Agent) -> Result<u8, String> {
    if let Some(done) = hosts::init(args, agent) {
        return done;
    }
    if args.trust_hook && agent != Agent::Codex {
        return Err("--trust-hook is for codex only (Codex alone asks to trust each hook)".into());
    }
    if args.batch && agent != Agent::Claude {
        return Err("--batch is for claude only (Claude Code alone has PostToolBatch)".into());
    }
    let target = target(agent);
    let path = settings_path(args, &target)?;
    let (existing, mut settings) = read_settings(&path)?;
    // A turn-end gate already wired counts as asked for: its after-tool
    // hook gets the flag that keeps the turn's record (an older `init`
    // wrote the gate without it).
    let gate = args.stop_gate || has_group(&settings, agent, turn_end_event(agent));
    let wanted = events(agent, args.batch, gate);
    let lacking = if gate {
        groups::lacking_flag(&settings, agent)
    } else {
        Vec::new()
    };
    let added = added_hooks(&mut settings, agent, &wanted)
        .map_err(|why| format!("{}: {why}; it was not changed", path.display()))?;
    // The events that were there and only got the flag.
    let (mended, added): (Vec<HookEvent>, Vec<HookEvent>) =
        added.into_iter().partition(|(e, _)| lacking.contains(e));
    let changed = !added.is_empty() || !mended.is_empty();
    let content = match (&existing, changed) {
        (Some(text), false) => text.clone(),
        _ => match serde_json::to_string_pretty(&settings) {
            Ok(text) => text + "\n",
            Err(e) => return Err(format!("cannot serialize the settings: {e}")),
        },
    };
    if args.print {
        crate::out!("{content}");
        return Ok(0);
    }
    write_settings(
        args,
        agent,
        &path,
        changed.then_some((content.as_str(), &added, &mended)),
    )?;
    if args.batch && has_group(&settings, Agent::Claude, target.event) {
        crate::outln!(
            "note: {} also runs the hook after each edit ({}); remove that entry to hear once per turn",
            path.display(),
            target.event
        );
    }
    if agent == Agent::Codex {
        let trust = if args.trust_hook {
            codex_trust::Trust::Record
        } else {
            codex_trust::Trust::Check
        };
        return Ok(codex_trust::record_or_check(&path, &settings, trust));
    }
    if let Some(note) = note(agent) {
        crate::outln!("{note}");
    }
    Ok(0)
}

/// A hook's event and its matcher, if any.
type HookEvent = (&'static str, Option<&'static str>);

fn note(agent: Agent) -> Option<&'static str> {
    match agent {
        Agent::Claude | Agent::Codex => None,
        Agent::Qwen => Some(
            "note: Qwen Code gives the hook's text to the model after the tool's result, with < and > written as &lt; and &gt;",
        ),
        _ => Some(
            "note: Gemini CLI runs hooks only in a trusted folder: trust this project when Gemini asks (or list it in ~/.gemini/trustedFolders.json); with --skip-trust the hook does not run",
        ),
    }
}

/// Every (event, matcher) `init` adds the hook under, in order. Batch mode
/// for Claude Code: `PostToolBatch` reports once per model turn (edit
/// tools and shell commands alike), `PreToolUse` on `Bash` keeps the shell
/// snapshot; no per-edit `PostToolUse`. The stop gate adds `Stop`.
fn events(agent: Agent, batch: bool, stop_gate: bool) -> Vec<HookEvent> {
    let mut events = if batch {
        vec![
            ("PostToolBatch", None),
            ("PreToolUse", Some("Bash")),
            ("SessionStart", None),
        ]
    } else {
        let target = target(agent);
        std::iter::once((target.event, Some(target.matcher)))
            .chain(extra_events(agent).iter().copied())
            .collect()
    };
    if stop_gate {
        events.push((turn_end_event(agent), None));
    }
    events
}

/// The event a turn ends with: `Stop` (Claude Code, Codex), `AfterAgent`
/// (Gemini CLI).
fn turn_end_event(agent: Agent) -> &'static str {
    if agent == Agent::Gemini {
        "AfterAgent"
    } else {
        "Stop"
    }
}

/// `3 events: PostToolUse (matcher "Write|Edit|Bash"), PreToolUse (matcher
/// "Bash"), SessionStart`: what `init` says it added, every event counted.
fn describe_events(events: &[(&str, Option<&str>)]) -> String {
    let each: Vec<String> = events
        .iter()
        .map(|(event, matcher)| match matcher {
            Some(m) => format!("{event} (matcher \"{m}\")"),
            None => event.to_string(),
        })
        .collect();
    let noun = if events.len() == 1 { "event" } else { "events" };
    format!("{} {noun}: {}", events.len(), each.join(", "))
}

#[cfg(test)]
mod tests;
