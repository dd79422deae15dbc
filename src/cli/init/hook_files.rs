//! `squiggle doctor --hooks`: the project's hook files that run squiggle,
//! which hosts read each one (a file several hosts read runs squiggle in
//! each of them), whether each still holds what `squiggle init` writes now
//! (an older release's file lacks events), and the host versions known to
//! drop a hook's output before the model sees it.

use std::fmt::Write as _;
use std::path::Path;

use super::ordered::Json;
use super::{Agent, add_hooks, events, has_group, hosts, read_settings, runs_hook};
use crate::platform::paths::join_slashed;

/// Each hook file `init` writes in a project, the hosts that read it, and
/// the agents whose `squiggle hook` command it may run.
const FILES: &[(&str, &str, &[Agent])] = &[
    (
        ".claude/settings.json",
        "Claude Code, VS Code's agent, Copilot CLI",
        &[Agent::Claude],
    ),
    (
        ".claude/settings.local.json",
        "Claude Code, VS Code's agent, Copilot CLI",
        &[Agent::Claude],
    ),
    (".codex/hooks.json", "Codex CLI", &[Agent::Codex]),
    (".gemini/settings.json", "Gemini CLI", &[Agent::Gemini]),
    (
        ".github/hooks/squiggle.json",
        "VS Code's agent, Copilot CLI",
        &[Agent::Vscode],
    ),
    (
        ".github/hooks/squiggle-copilot.json",
        "Copilot CLI, VS Code's agent",
        &[Agent::Copilot],
    ),
    (".cursor/hooks.json", "Cursor", &[Agent::Cursor]),
    (".qwen/settings.json", "Qwen Code", &[Agent::Qwen]),
];

/// Host releases known to drop hook output before the model sees it.
const DROPS: &[&str] = &[
    "Claude Code's VS Code extension drops PostToolUse additionalContext (anthropics/claude-code #79616); the turn-end gate (`init claude --stop-gate`) still reaches the model",
    "Claude Code 2.1.123 drops PostToolUse additionalContext after Bash (anthropics/claude-code #55889): edits made through a shell are not reported there",
    "Copilot CLI was reported not to give postToolUse output to the model (github/copilot-cli #2652, #2980); 1.0.102 gives it a top-level `additionalContext` (tested here), and `init copilot` also reports at agentStop",
];

/// The report, as text.
pub fn report(root: &Path) -> String {
    let mut out = String::from("hook files running squiggle:\n");
    let mut any = false;
    for (file, readers, agents) in FILES {
        let path = join_slashed(root, file);
        let Ok((Some(_), settings)) = read_settings(&path) else {
            continue;
        };
        for agent in *agents {
            let Some(missing) = differs(&settings, *agent) else {
                continue;
            };
            any = true;
            let _ = write!(out, "  {file}: runs `squiggle hook {}`", agent.name());
            if readers.contains(',') {
                let _ = write!(out, "; read by {readers}, each runs it");
            } else {
                let _ = write!(out, "; read by {readers}");
            }
            if missing.is_empty() {
                let _ = writeln!(out, "; as `squiggle init {}` writes it", agent.name());
            } else {
                let _ = writeln!(
                    out,
                    "; differs from what `squiggle init {}` writes now (no {}): run it again",
                    agent.name(),
                    missing.join(", no ")
                );
            }
        }
    }
    let cline = join_slashed(root, ".clinerules/hooks/PostToolUse");
    if std::fs::read_to_string(&cline).is_ok_and(|t| {
        t.lines()
            .any(|l| runs_hook(l.trim_start_matches("exec "), Agent::Cline))
    }) {
        any = true;
        out.push_str(
            "  .clinerules/hooks/PostToolUse: runs `squiggle hook cline`; read by Cline\n",
        );
    }
    if !any {
        out.push_str("  none (run `squiggle init <host>`)\n");
    }
    out.push_str("host versions known to drop hook output:\n");
    for drop in DROPS {
        let _ = writeln!(out, "  {drop}");
    }
    out.push_str(&delivery());
    out
}

/// Per host and recent session: how many blocks reached the model, as its
/// transcript shows (`hook/delivery.rs`).
fn delivery() -> String {
    let sessions = crate::cli::hook::delivery::sessions();
    if sessions.is_empty() {
        return "blocks delivered: no session recorded yet\n".to_string();
    }
    let mut out =
        String::from("blocks delivered (per host and session, read from its transcript):\n");
    for (host, id, s) in sessions.iter().rev().take(20) {
        let _ = write!(
            out,
            "  {host} {id}: {} delivered, {} not delivered, {} unknown",
            s.delivered, s.not_delivered, s.unknown
        );
        if !s.pending.is_empty() {
            let _ = write!(out, ", {} not judged yet", s.pending.len());
        }
        if s.fallback {
            let agent = FILES
                .iter()
                .flat_map(|(_, _, a)| a.iter())
                .find(|a| a.name() == host.as_str());
            let channel = agent.map_or("the turn-end gate", |a| {
                crate::cli::hook::delivery::fallback_channel(*a)
            });
            let _ = write!(out, "; falls back to {channel}");
        }
        out.push('\n');
    }
    out
}

/// `None` when `settings` does not run `squiggle hook <agent>` at all;
/// else the events `init` would add to it now (empty: up to date).
fn differs(settings: &Json, agent: Agent) -> Option<Vec<String>> {
    if let Some(spec) = hosts::flat(agent) {
        if !spec.events.iter().any(|e| {
            matches!(settings.get("hooks").and_then(|h| h.get(e)), Some(Json::Array(entries))
                if entries.iter().any(|x| hosts::ours(x, agent, &spec)))
        }) {
            return None;
        }
        let missing = spec
            .events
            .iter()
            .filter(|e| {
                !matches!(settings.get("hooks").and_then(|h| h.get(e)), Some(Json::Array(entries))
                    if entries.iter().any(|x| hosts::ours(x, agent, &spec)))
            })
            .map(|e| e.to_string())
            .collect();
        return Some(missing);
    }
    let wanted = events(agent, false, false);
    if !wanted.iter().any(|(e, _)| has_group(settings, agent, e)) {
        return None;
    }
    let mut missing: Vec<String> = wanted
        .iter()
        .filter(|(e, _)| !has_group(settings, agent, e))
        .map(|(e, _)| e.to_string())
        .collect();
    let mut copy = settings.clone();
    if missing.is_empty() && add_hooks(&mut copy, agent, &wanted) == Ok(true) {
        missing.push("current matcher".to_string());
    }
    // A turn-end gate whose after-tool hook keeps no record of the turn
    // (an older `init` wrote it so) never sees an edit.
    if let Some(event) = super::groups::gate_without_flag(settings, agent) {
        missing.push(format!(
            "`{}` on its {event} hook, without which the turn-end gate sees no edit",
            super::groups::STOP_GATE_FLAG
        ));
    }
    Some(missing)
}
