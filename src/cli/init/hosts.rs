//! `squiggle init vscode|copilot|cursor|cline`: hosts whose hook files
//! list commands per event without matcher groups (VS Code's and Copilot
//! CLI's `.github/hooks/*.json`, Cursor's `.cursor/hooks.json`), and Cline,
//! whose hooks are executable files named by event. Where a host reads a
//! hook's output only at some event, `init` wires that event and says so.
//!
//! | host | file | events | channel to the model |
//! | --- | --- | --- | --- |
//! | vscode | `.github/hooks/squiggle.json` | PostToolUse, PreToolUse, SessionStart, Stop | PostToolUse `additionalContext`; Stop |
//! | copilot | `.github/hooks/squiggle-copilot.json` (`--user`: `~/.copilot/hooks/`) | postToolUse, preToolUse, sessionStart, agentStop | postToolUse `additionalContext`; agentStop |
//! | cursor | `.cursor/hooks.json` | afterFileEdit, beforeShellExecution, afterShellExecution, stop | stop's `followup_message` only |
//! | cline | `.clinerules/hooks/PostToolUse` | PostToolUse | `contextModification` (`<hook_context>`) |

use std::path::PathBuf;

use super::ordered::Json;
use super::{Agent, Args, read_settings, runs_hook};
use crate::edit::write_atomic;
use crate::platform::paths::join_slashed;

/// How one of these hosts lists its hooks.
pub(crate) struct Flat {
    pub project_file: &'static str,
    /// Under `~`, where the host reads user hooks; `None`: no such file.
    pub user_file: Option<&'static str>,
    /// `"version": 1` at the top (Copilot CLI, Cursor).
    pub versioned: bool,
    pub events: &'static [&'static str],
    /// The keys of one hook entry other than its command(s).
    pub typed: bool,
    /// The keys the command goes under.
    pub command_keys: &'static [&'static str],
    pub note: &'static str,
}

/// The flat-file hosts' entries; `None` for the others.
pub(crate) fn flat(agent: Agent) -> Option<Flat> {
    Some(match agent {
        Agent::Vscode => Flat {
            project_file: ".github/hooks/squiggle.json",
            user_file: None,
            versioned: false,
            events: &["PostToolUse", "PreToolUse", "SessionStart", "Stop"],
            typed: true,
            command_keys: &["command"],
            note: "note: VS Code runs every hook on every tool call (it ignores matchers); squiggle answers a tool that changes no file at once, without its daemon. VS Code also reads .claude/settings.json: if that runs `squiggle hook claude` too, every edit is reported twice; keep one. Copilot CLI reads this file as well",
        },
        Agent::Copilot => Flat {
            project_file: ".github/hooks/squiggle-copilot.json",
            // Copilot CLI 1.0.102 loads these with no trust step, `-p`
            // included (a repository's only in a trusted folder).
            user_file: Some(".copilot/hooks/squiggle-copilot.json"),
            versioned: true,
            events: &["postToolUse", "preToolUse", "sessionStart", "agentStop"],
            typed: true,
            command_keys: &["bash", "powershell"],
            note: "note: Copilot CLI gives squiggle's postToolUse text to the model after the tool's result, and agentStop holds a turn that leaves errors it introduced. Copilot CLI also runs .claude/settings.json and the other .github/hooks files: keep one of squiggle's. With -p it loads repository hooks only in a trusted folder (or with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true)",
        },
        Agent::Cursor => Flat {
            project_file: ".cursor/hooks.json",
            user_file: Some(".cursor/hooks.json"),
            versioned: true,
            events: &[
                "afterFileEdit",
                "beforeShellExecution",
                "afterShellExecution",
                "stop",
            ],
            typed: false,
            command_keys: &["command"],
            note: "note: Cursor reads no output of afterFileEdit, so squiggle reports at stop: when the turn introduced errors, Cursor gets them as a follow-up message",
        },
        _ => return None,
    })
}

/// `init` for a flat-file host or Cline; `None` for the other agents.
pub(super) fn init(args: &Args, agent: Agent) -> Option<Result<u8, String>> {
    if agent == Agent::Cline {
        return Some(cline(args));
    }
    let spec = flat(agent)?;
    Some(init_flat(args, agent, &spec))
}

fn init_flat(args: &Args, agent: Agent, spec: &Flat) -> Result<u8, String> {
    let path = match (args.user, spec.user_file) {
        (true, Some(file)) => super::home()
            .map(|h| join_slashed(&h, file))
            .ok_or("your home directory is unknown (HOME is not set); pass --project")?,
        (true, None) => {
            return Err(format!(
                "{} reads no user hook file squiggle writes; run it in the project",
                agent.name()
            ));
        }
        (false, _) => project_file(args, spec.project_file)?,
    };
    let (existing, mut settings) = read_settings(&path)?;
    let changed = merge(&mut settings, agent, spec)
        .map_err(|why| format!("{}: {why}; it was not changed", path.display()))?;
    let content = match (&existing, changed) {
        (Some(text), false) => text.clone(),
        _ => serde_json::to_string_pretty(&settings)
            .map(|t| t + "\n")
            .map_err(|e| format!("cannot serialize the settings: {e}"))?,
    };
    if args.print {
        crate::out!("{content}");
        return Ok(0);
    }
    let command = super::command(agent);
    if changed {
        write_atomic(&path, content.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        crate::outln!(
            "added `{command}` to {} for {} events: {}",
            path.display(),
            spec.events.len(),
            spec.events.join(", ")
        );
    } else {
        crate::outln!(
            "{} already runs `{command}`; nothing changed",
            path.display()
        );
    }
    crate::outln!("{}", spec.note);
    Ok(0)
}

fn project_file(args: &Args, file: &str) -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    crate::workspace::Workspace::discover(args.root.as_deref(), &cwd)
        .map(|ws| join_slashed(ws.root(), file))
        .map_err(|e| format!("cannot use the project directory: {e}"))
}

/// Adds squiggle's entry under each of the host's events that lacks one;
/// `Ok(false)` when all are there.
pub(crate) fn merge(settings: &mut Json, agent: Agent, spec: &Flat) -> Result<bool, String> {
    let kind = settings.kind();
    if !matches!(settings, Json::Object(_)) {
        return Err(format!(
            "expected a JSON object at the top level, found {kind}"
        ));
    }
    let mut changed = false;
    if spec.versioned && settings.get("version").is_none() {
        if let Json::Object(members) = settings {
            members.insert(0, ("version".to_string(), Json::Number(1.into())));
        }
        changed = true;
    }
    let hooks = settings
        .entry("hooks", Json::Object(Vec::new()))
        .ok_or("expected a JSON object at the top level")?;
    let kind = hooks.kind();
    for event in spec.events {
        let entries = hooks
            .entry(event, Json::Array(Vec::new()))
            .ok_or_else(|| format!("`hooks` is {kind}, expected an object"))?;
        let Json::Array(entries) = entries else {
            return Err(format!(
                "`hooks.{event}` is {}, expected an array",
                entries.kind()
            ));
        };
        if entries.iter().any(|e| ours(e, agent, spec)) {
            continue;
        }
        let mut entry = Vec::new();
        if spec.typed {
            entry.push(("type".to_string(), Json::str("command")));
        }
        for key in spec.command_keys {
            entry.push((key.to_string(), Json::str(&super::command(agent))));
        }
        entries.push(Json::Object(entry));
        changed = true;
    }
    Ok(changed)
}

/// Whether a hook entry runs `squiggle hook <agent>`.
pub(crate) fn ours(entry: &Json, agent: Agent, spec: &Flat) -> bool {
    spec.command_keys
        .iter()
        .any(|k| matches!(entry.get(k), Some(Json::String(c)) if runs_hook(c, agent)))
}

/// Cline's hook: an executable file named by its event.
const CLINE_HOOK: &str =
    "#!/bin/sh\n# squiggle: LSP diagnostics after Cline's file edits\nexec squiggle hook cline\n";

fn cline(args: &Args) -> Result<u8, String> {
    let path = if args.user {
        super::home()
            .map(|h| join_slashed(&h, ".cline/hooks/PostToolUse"))
            .ok_or("your home directory is unknown (HOME is not set); pass --project")?
    } else {
        project_file(args, ".clinerules/hooks/PostToolUse")?
    };
    let existing = std::fs::read_to_string(&path).ok();
    if let Some(text) = &existing
        && !text
            .lines()
            .any(|l| runs_hook(l.trim_start_matches("exec "), Agent::Cline))
    {
        return Err(format!(
            "{} exists and does not run `squiggle hook cline`; add that line to it yourself; it was not changed",
            path.display()
        ));
    }
    if args.print {
        crate::out!("{}", existing.as_deref().unwrap_or(CLINE_HOOK));
        return Ok(0);
    }
    if existing.is_some() {
        crate::outln!(
            "{} already runs `squiggle hook cline`; nothing changed",
            path.display()
        );
    } else {
        write_atomic(&path, CLINE_HOOK.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        crate::platform::process::make_executable(&path)
            .map_err(|e| format!("cannot make {} executable: {e}", path.display()))?;
        crate::outln!(
            "added `squiggle hook cline` to {} for 1 event: PostToolUse",
            path.display()
        );
    }
    crate::outln!(
        "note: Cline gives the hook's output to the model inside <hook_context> after the tool's result; it has no turn-end event that keeps a turn going, so there is no turn-end gate"
    );
    Ok(0)
}
