//! Whether a block reached the model, read from the host's own record of
//! the conversation rather than assumed. When the hook hands a block over,
//! it notes one distinctive line of it (a diagnostic line) and the file the
//! host records the session in (`transcript_path`: Claude Code's
//! transcript, Codex's rollout file, Gemini CLI's chat log). On the
//! session's next event that file is read (its last megabyte) for that
//! line: `yes`, `no`, or `unknown` when there is no such file.
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

/// How much of a transcript's end is read: the block was handed over on
/// the event just before.
const TAIL_BYTES: u64 = 1 << 20;

/// A session's delivery state.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Session {
    /// The host, as `squiggle hook` names it.
    #[serde(default)]
    pub host: String,
    /// The last block's probe line and the transcript to find it in, until
    /// the next event looks.
    #[serde(default)]
    pub pending: Option<Pending>,
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
}

/// The verdict on one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered {
    Yes,
    No,
    Unknown,
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

/// On any event of a session: judges the block the previous event handed
/// over, if any. Returns whether the session now uses the fallback channel.
pub fn check_previous(agent: Agent, payload: &Value) -> bool {
    let Some(path) = state_file(payload) else {
        return false;
    };
    let mut session = load(&path);
    let Some(pending) = session.pending.take() else {
        return session.fallback;
    };
    let verdict = judge(&pending);
    match verdict {
        Delivered::Yes => session.delivered += 1,
        Delivered::No => session.not_delivered += 1,
        Delivered::Unknown => session.unknown += 1,
    }
    if verdict == Delivered::No && !session.fallback {
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
    session.fallback
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
    session.pending = Some(Pending { probe, transcript });
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

fn judge(pending: &Pending) -> Delivered {
    let Some(path) = &pending.transcript else {
        return Delivered::Unknown;
    };
    let Some(tail) = read_tail(path) else {
        return Delivered::Unknown;
    };
    let escaped = serde_json::to_string(&pending.probe).unwrap_or_default();
    let escaped = escaped.trim_matches('"');
    if tail.contains(&pending.probe) || tail.contains(escaped) {
        Delivered::Yes
    } else {
        Delivered::No
    }
}

fn read_tail(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES)))
        .ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Every recorded session's counts, for `doctor --hooks`: host, session
/// id, delivered, not delivered, unknown, fallback.
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
            let session = load(&path);
            Some((session.host.clone(), id, session))
        })
        .collect();
    all.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    all
}
