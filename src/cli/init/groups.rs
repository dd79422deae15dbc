//! The hook groups in an agent's settings JSON: adding `squiggle hook
//! <agent>` under an event (a group an older `init` wrote gets the current
//! matcher), and recognising a command that runs it however a shell
//! spells it.

use super::ordered::Json;
use super::{command, old_matchers, target, turn_end_event};
use crate::cli::hook::Agent;

/// The flag that makes an after-tool hook keep the turn's record, which
/// the turn-end gate reads (`hook/stop.rs`): `init` writes it when it
/// wires the gate.
pub(crate) const STOP_GATE_FLAG: &str = "--stop-gate";

/// The events whose hook records what the turn touched: the after-tool
/// event, and Claude Code's `PostToolBatch`.
fn records_turn(agent: Agent, event: &str) -> bool {
    event == target(agent).event || event == "PostToolBatch"
}

/// Whether a command carries [`STOP_GATE_FLAG`].
pub(crate) fn has_gate_flag(command: &str) -> bool {
    command.split_whitespace().any(|w| w == STOP_GATE_FLAG)
}

/// The first after-tool event whose squiggle hook lacks
/// [`STOP_GATE_FLAG`] while the turn-end gate is wired: that gate sees no
/// edit of the turn. `None` when there is no gate, or nothing lacks it.
pub(crate) fn gate_without_flag(settings: &Json, agent: Agent) -> Option<&'static str> {
    if !has_group(settings, agent, turn_end_event(agent)) {
        return None;
    }
    lacking_flag(settings, agent).first().copied()
}

/// The after-tool events whose squiggle hook lacks [`STOP_GATE_FLAG`].
pub(crate) fn lacking_flag(settings: &Json, agent: Agent) -> Vec<&'static str> {
    [target(agent).event, "PostToolBatch"]
        .into_iter()
        .filter(|event| ours(settings, agent, event).any(|c| !has_gate_flag(c)))
        .collect()
}

/// The squiggle commands under `hooks.<event>`.
fn ours<'a>(settings: &'a Json, agent: Agent, event: &str) -> impl Iterator<Item = &'a str> {
    let groups = match settings.get("hooks").and_then(|h| h.get(event)) {
        Some(Json::Array(groups)) => groups.as_slice(),
        _ => &[],
    };
    groups
        .iter()
        .filter_map(|g| match g.get("hooks") {
            Some(Json::Array(hooks)) => Some(hooks),
            _ => None,
        })
        .flatten()
        .filter_map(move |h| match h.get("command") {
            Some(Json::String(c)) if runs_hook(c, agent) => Some(c.as_str()),
            _ => None,
        })
}

/// Adds the agent's hook group under each of `events` (for Gemini also
/// under `hooks.BeforeModel`, which hands the block over unescaped; see
/// `hook/gemini_model.rs`); `Ok(false)` when every `squiggle hook <agent>`
/// command is already there.
pub(super) fn add_hooks(
    settings: &mut Json,
    agent: Agent,
    events: &[(&'static str, Option<&'static str>)],
) -> Result<bool, String> {
    Ok(!added_hooks(settings, agent, events)?.is_empty())
}

/// [`add_hooks`], saying which of `events` it added (or gave the current
/// matcher): the others were there already.
pub(super) fn added_hooks(
    settings: &mut Json,
    agent: Agent,
    events: &[(&'static str, Option<&'static str>)],
) -> Result<Vec<(&'static str, Option<&'static str>)>, String> {
    // With the turn-end gate, the after-tool hook keeps the turn's record.
    let gate = events.iter().any(|(e, _)| *e == turn_end_event(agent));
    let mut added = Vec::new();
    for &(event, matcher) in events {
        let flagged = gate && records_turn(agent, event);
        if add_group(settings, agent, event, matcher, flagged)? {
            added.push((event, matcher));
        }
    }
    Ok(added)
}

/// Adds one group running `squiggle hook <agent>` (with
/// [`STOP_GATE_FLAG`] when `flagged`) under `hooks.<event>`; a squiggle
/// group there gets the current matcher, and the flag when `flagged`.
fn add_group(
    settings: &mut Json,
    agent: Agent,
    event: &str,
    matcher: Option<&str>,
    flagged: bool,
) -> Result<bool, String> {
    let kind = settings.kind();
    let hooks = settings
        .entry("hooks", Json::Object(Vec::new()))
        .ok_or_else(|| format!("expected a JSON object at the top level, found {kind}"))?;
    let kind = hooks.kind();
    let groups = hooks
        .entry(event, Json::Array(Vec::new()))
        .ok_or_else(|| format!("`hooks` is {kind}, expected an object"))?;
    let Json::Array(groups) = groups else {
        return Err(format!(
            "`hooks.{}` is {}, expected an array",
            event,
            groups.kind()
        ));
    };
    let present = groups
        .iter()
        .filter_map(|g| match g.get("hooks") {
            Some(Json::Array(hooks)) => Some(hooks),
            _ => None,
        })
        .flatten()
        .any(|h| matches!(h.get("command"), Some(Json::String(c)) if runs_hook(c, agent)));
    if present {
        // A group an older init wrote gets the current matcher.
        let mut changed = false;
        for group in groups.iter_mut() {
            let ours = matches!(group.get("hooks"), Some(Json::Array(hooks))
                if hooks.iter().any(|h| matches!(h.get("command"), Some(Json::String(c)) if runs_hook(c, agent))));
            let old = matches!(group.get("matcher"), Some(Json::String(m))
                if old_matchers(agent).contains(&m.as_str()));
            if let Some(new) = matcher
                && ours
                && old
                && event == target(agent).event
                && let Some(m) = group.entry("matcher", Json::Null)
            {
                *m = Json::str(new);
                changed = true;
            }
            if flagged && ours {
                changed |= flag_commands(group, agent);
            }
        }
        return Ok(changed);
    }
    let mut hook = Vec::new();
    if agent == Agent::Gemini {
        hook.push(("name".to_string(), Json::str("squiggle")));
    }
    hook.push(("type".to_string(), Json::str("command")));
    let mut line = command(agent);
    if flagged {
        line = format!("{line} {STOP_GATE_FLAG}");
    }
    hook.push(("command".to_string(), Json::str(&line)));
    let mut group = Vec::new();
    if let Some(matcher) = matcher {
        group.push(("matcher".to_string(), Json::str(matcher)));
    }
    group.push(("hooks".to_string(), Json::Array(vec![Json::Object(hook)])));
    groups.push(Json::Object(group));
    Ok(true)
}

/// Appends [`STOP_GATE_FLAG`] to each squiggle command of `group` that
/// lacks it; whether any did.
fn flag_commands(group: &mut Json, agent: Agent) -> bool {
    let Some(Json::Array(hooks)) = group.entry("hooks", Json::Null) else {
        return false;
    };
    let mut changed = false;
    for hook in hooks.iter_mut() {
        if let Some(Json::String(c)) = hook.entry("command", Json::Null)
            && runs_hook(c, agent)
            && !has_gate_flag(c)
        {
            *c = format!("{} {STOP_GATE_FLAG}", c.trim_end());
            changed = true;
        }
    }
    changed
}

/// Whether `hooks.<event>` has a group running `squiggle hook <agent>`.
pub(super) fn has_group(settings: &Json, agent: Agent, event: &str) -> bool {
    let Some(Json::Array(groups)) = settings.get("hooks").and_then(|h| h.get(event)) else {
        return false;
    };
    groups.iter().any(|g| {
        matches!(g.get("hooks"), Some(Json::Array(hooks))
            if hooks.iter().any(|h| matches!(h.get("command"), Some(Json::String(c)) if runs_hook(c, agent))))
    })
}

/// `squiggle hook <agent>`, also with a path to the binary or extra flags,
/// as any shell spells it: `squiggle.exe`, a quoted path with spaces,
/// Windows separators, PowerShell's `& "C:\\…\\squiggle.exe"`.
pub(super) fn runs_hook(command: &str, agent: Agent) -> bool {
    let command = command.trim_start();
    let command = command.strip_prefix("& ").unwrap_or(command).trim_start();
    let (program, rest) = match command.chars().next() {
        Some(quote @ ('"' | '\'')) => match command[1..].split_once(quote) {
            Some((program, rest)) => (program, rest),
            None => return false,
        },
        _ => command
            .split_once(char::is_whitespace)
            .unwrap_or((command, "")),
    };
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let name = name.to_ascii_lowercase();
    let words: Vec<&str> = rest.split_whitespace().collect();
    matches!(name.as_str(), "squiggle" | "squiggle.exe")
        && matches!(words.as_slice(), ["hook", agent_name, ..] if *agent_name == agent.name())
}
