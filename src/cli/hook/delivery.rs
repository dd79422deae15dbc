//! Whether a block reached the model, read from the host's own record of
//! the conversation rather than assumed. When the hook hands a block over,
//! it notes one distinctive line of it (a diagnostic line) and the file the
//! host records the session in (`transcript_path`: Claude Code's
//! transcript, Codex's rollout file, Gemini CLI's chat log). On the
//! session's next event that file is read (its last megabyte) for that
//! line: `yes`, `no`, or `unknown` when there is no such file.
//!
//! A block is judged only once the host recorded a model turn after it
//! was handed over: parallel tool calls run their hooks one after another
//! before the host writes any of their results to its record, and a look
//! then would find nothing yet. Until such a turn is recorded the block
//! stays pending. When the payload names the tool call (`tool_use_id`),
//! the model turn must follow the host's record of that call's result: a
//! host that writes its record late (Claude Code does, under load) may
//! append the model turn that *asked* for the tool after the hand-over,
//! and that turn says nothing about delivery. `doctor --hooks` judges
//! what is still pending when it runs, from the record as it is then.
//!
//! Once a block was not delivered, the rest of the session uses the next
//! channel the host does deliver: for Claude Code, PostToolUse's
//! `decision: "block"` with the block as `reason` (the reason goes to the
//! model as the tool's feedback). Each verdict is appended to the
//! session's line in `delivery/<session>.json`, which `doctor --hooks`
//! counts.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Agent;
use crate::evidence::record::{Delivered, Delivery, Head, VERSION};
use crate::evidence::{Record, Surface};

/// How much of a transcript's end is read: the block was handed over on
/// the event just before.
const TAIL_BYTES: u64 = 1 << 20;

/// A session's delivery state.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Session {
    /// The host, as `squiggle hook` names it.
    #[serde(default)]
    pub host: String,
    /// The blocks handed over and not judged yet (at most
    /// `MAX_PENDING`, oldest first): each one's probe line and the
    /// transcript to find it in.
    #[serde(default)]
    pub pending: Vec<Pending>,
    #[serde(default)]
    pub delivered: usize,
    #[serde(default)]
    pub not_delivered: usize,
    #[serde(default)]
    pub unknown: usize,
    /// A block was not delivered: the session uses the next channel.
    #[serde(default)]
    pub fallback: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pending {
    pub probe: String,
    pub transcript: Option<PathBuf>,
    /// The transcript's length when the block was handed over: a model
    /// turn recorded past it means the model has been asked since.
    #[serde(default)]
    pub offset: u64,
    /// The tool call the block answered (`tool_use_id`), when the host
    /// names it: only a model turn after its result's record counts.
    #[serde(default)]
    pub tool_use: Option<String>,
}

/// At most this many blocks wait to be judged; an older one past it is
/// counted unknown.
const MAX_PENDING: usize = 32;

/// What a transcript line of a model's turn holds, in the hosts' records
/// (Claude Code and VS Code: `"type":"assistant"`; chat logs by role).
const MODEL_TURN: &[&str] = &[
    "\"type\":\"assistant\"",
    "\"type\": \"assistant\"",
    "\"role\":\"assistant\"",
    "\"role\": \"assistant\"",
    "\"role\":\"model\"",
    "\"role\": \"model\"",
    "\"type\":\"gemini\"",
    "\"type\": \"gemini\"",
    // Copilot CLI's `events.jsonl`.
    "\"type\":\"assistant.turn_start\"",
];

/// Lines in which a host records the hook itself (Copilot CLI's
/// `hook.start` and `hook.end`, which hold the hook's output whether or
/// not the model got it): never evidence that the block was delivered.
const HOOK_RECORD: &[&str] = &["\"type\":\"hook.", "\"type\": \"hook."];

impl Session {
    /// Judges the pending blocks the host's record now decides and counts
    /// them; the rest stay pending. Returns the verdicts reached.
    fn judge_pending(&mut self) -> Vec<Delivered> {
        let mut verdicts = Vec::new();
        let mut waiting = Vec::new();
        for pending in std::mem::take(&mut self.pending) {
            match judge(&pending) {
                None => waiting.push(pending),
                Some(verdict) => {
                    match verdict {
                        Delivered::Yes => self.delivered += 1,
                        Delivered::No => self.not_delivered += 1,
                        Delivered::Unknown => self.unknown += 1,
                    }
                    verdicts.push(verdict);
                }
            }
        }
        self.pending = waiting;
        verdicts
    }
}

/// What a session's event found of the blocks handed over before it.
#[derive(Debug, Default)]
pub struct Previous {
    /// The session uses the fallback channel (now or since earlier).
    pub fallback: bool,
    /// The verdicts reached now, one per block judged.
    pub verdicts: Vec<Delivered>,
}

fn state_file(payload: &Value) -> Option<PathBuf> {
    let id = payload.get("session_id").and_then(Value::as_str)?;
    super::session_files::session_file("delivery", id, "json")
}

fn load(path: &Path) -> Session {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn save(path: &Path, session: &Session) {
    if let Ok(bytes) = serde_json::to_vec(session) {
        super::session_files::write_session_file(path, &bytes);
    }
}

/// On any event of a session: judges the blocks earlier events handed
/// over, where the host's record now decides them.
pub fn check_previous(agent: Agent, payload: &Value) -> Previous {
    let Some(path) = state_file(payload) else {
        return Previous::default();
    };
    let mut session = load(&path);
    if session.pending.is_empty() {
        return Previous {
            fallback: session.fallback,
            verdicts: Vec::new(),
        };
    }
    let verdicts = session.judge_pending();
    let missed = verdicts.contains(&Delivered::No);
    if missed && !session.fallback {
        session.fallback = true;
        tracing::warn!(
            host = agent.name(),
            "a block did not reach the model; the session falls back to the next channel"
        );
        eprintln!(
            "squiggle hook: the last block is not in {}'s transcript; this session now reports through {}",
            agent.name(),
            fallback_channel(agent)
        );
    }
    session.host = agent.name().to_string();
    save(&path, &session);
    Previous {
        fallback: session.fallback,
        verdicts,
    }
}

/// Appends each verdict of `previous` to the evidence log, when the
/// workspace's configuration turns it on (read only when there is a
/// verdict: once per block, not once per event).
pub fn record(agent: Agent, payload: &Value, workspace: &Path, previous: &Previous, trust: bool) {
    if previous.verdicts.is_empty() {
        return;
    }
    let load = crate::config::LoadOptions {
        workspace_root: workspace.to_path_buf(),
        user_config: None,
        trust_workspace: trust,
        known_server_ids: crate::registry::builtin_servers()
            .into_iter()
            .map(|s| s.id)
            .collect(),
        cli: Default::default(),
    };
    let Ok(config) = crate::config::load(&load) else {
        return;
    };
    if !config.evidence.enabled {
        return;
    }
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let event = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let records: Vec<Record> = previous
        .verdicts
        .iter()
        .map(|&delivered| {
            Record::Delivery(Delivery {
                head: Head {
                    v: VERSION,
                    time: crate::evidence::clock::now(),
                    workspace: workspace.display().to_string(),
                    surface: Surface::Hook,
                    agent: Some(agent.product().to_string()),
                    tool: event.clone(),
                },
                session: session.to_string(),
                delivered,
                fallback: previous.fallback,
            })
        })
        .collect();
    crate::evidence::append(&config.evidence, &records);
}

/// Notes the block just handed over, for the next event to judge.
pub fn handed_over(agent: Agent, payload: &Value, text: &str) {
    let Some(path) = state_file(payload) else {
        return;
    };
    let Some(probe) = probe(text) else {
        return;
    };
    let mut session = load(&path);
    session.host = agent.name().to_string();
    let transcript = payload
        .get("transcript_path")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let offset = transcript
        .as_deref()
        .and_then(|t| std::fs::metadata(t).ok())
        .map_or(0, |m| m.len());
    if session.pending.len() >= MAX_PENDING {
        session.pending.remove(0);
        session.unknown += 1;
    }
    let tool_use = payload
        .get("tool_use_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_string);
    session.pending.push(Pending {
        probe,
        transcript,
        offset,
        tool_use,
    });
    save(&path, &session);
}

/// The channel a host's session falls back to.
pub fn fallback_channel(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude | Agent::Vscode => "PostToolUse decision \"block\" with the block as reason",
        _ => "the turn-end gate",
    }
}

/// The block's first diagnostic line: distinctive, and free of the
/// characters a transcript escapes differently (it is looked for as text
/// and as JSON-escaped text).
fn probe(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.starts_with("ERROR [") || l.starts_with("WARN ["))
        .or_else(|| text.lines().find(|l| l.starts_with("<diagnostics file=")))
        .map(str::to_string)
}

/// The verdict on `pending`, or `None` while the host has recorded no
/// model turn since it was handed over (after the call's result, when the
/// call is named).
fn judge(pending: &Pending) -> Option<Delivered> {
    let Some(path) = &pending.transcript else {
        return Some(Delivered::Unknown);
    };
    let Some(since) = read_since(path, pending.offset) else {
        return Some(Delivered::Unknown);
    };
    let escaped = serde_json::to_string(&pending.probe).unwrap_or_default();
    let escaped = escaped.trim_matches('"');
    let mut after_result = pending.tool_use.is_none();
    let mut asked = false;
    for line in since.lines() {
        if HOOK_RECORD.iter().any(|hook| line.contains(hook)) {
            continue;
        }
        if line.contains(&pending.probe) || line.contains(escaped) {
            return Some(Delivered::Yes);
        }
        let model_turn = MODEL_TURN.iter().any(|turn| line.contains(turn));
        match &pending.tool_use {
            Some(id) if !after_result => after_result = !model_turn && line.contains(id.as_str()),
            _ => asked |= model_turn,
        }
    }
    asked.then_some(Delivered::No)
}

/// The transcript from `offset` on (its last `TAIL_BYTES` at most); from
/// its start when it is shorter than `offset` (rewritten since).
fn read_since(path: &Path, offset: u64) -> Option<String> {
    let (mut file, len) = crate::edit::open_regular(path).ok()?;
    let offset = if offset > len { 0 } else { offset };
    file.seek(SeekFrom::Start(offset.max(len.saturating_sub(TAIL_BYTES))))
        .ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Every recorded session's counts, for `doctor --hooks`: host, session
/// id, delivered, not delivered, unknown, fallback. Blocks still pending
/// are judged from the host's record as it is now (and stay pending
/// when it holds no model turn after them yet); nothing is written back.
pub fn sessions() -> Vec<(String, String, Session)> {
    let dir = crate::daemon::socket::socket_dir(None).join("delivery");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut all: Vec<(String, String, Session)> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let id = path.file_stem()?.to_string_lossy().into_owned();
            let mut session = load(&path);
            session.judge_pending();
            Some((session.host.clone(), id, session))
        })
        .collect();
    all.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    all
}

#[cfg(test)]
mod tests;
