//! Codex runs a hook from `hooks.json` only after the user has trusted that
//! exact hook, separately from trusting the project: its `/hooks` screen
//! writes `[hooks.state."<hooks.json path>:post_tool_use:<group>:<handler>"]`
//! with `trusted_hash = "sha256:…"` into `$CODEX_HOME/config.toml`
//! (`~/.codex`). Without that entry `squiggle init codex` installs a hook
//! that silently never runs (measured with Codex CLI 0.169.0).
//!
//! The hash is Codex's own (`command_hook_hash` in
//! `codex-rs/hooks/src/engine/discovery.rs`, `version_for_toml` in
//! `codex-rs/config/src/fingerprint.rs`): SHA-256 of the compact JSON, keys
//! sorted, of the hook's normalized identity: `event_name` plus the matcher
//! group holding just this handler, `timeout` defaulted to 600 and fields
//! that are absent left out. `init --trust-hook` records it; `doctor`
//! compares it. The end-to-end test with the real binary checks that Codex
//! agrees (a wrong hash means the hook does not run).

use std::path::Path;

use sha2::{Digest, Sha256};

use super::ordered::Json;
use super::{Agent, runs_hook};

/// Codex's default hook timeout, part of the hashed identity.
const DEFAULT_TIMEOUT_SEC: u64 = 600;

/// Where squiggle's handler sits in a `hooks.json` and what Codex hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// `hooks.state` key: `<hooks.json>:post_tool_use:<group>:<handler>`.
    pub key: String,
    /// `sha256:<hex>`, what Codex calls the hook's current hash.
    pub hash: String,
}

/// How Codex will treat squiggle's hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Trusted,
    /// Never trusted, or trusted before it changed (Codex: "modified").
    Untrusted(Found),
}

/// The events squiggle's Codex hook uses, with the labels Codex keys and
/// hashes them by.
const EVENTS: [(&str, &str); 4] = [
    ("PostToolUse", "post_tool_use"),
    ("PreToolUse", "pre_tool_use"),
    ("SessionStart", "session_start"),
    ("Stop", "stop"),
];

/// Squiggle's handler under each event of a parsed `hooks.json` at `path`.
pub fn find(settings: &Json, path: &Path, is_ours: impl Fn(&str) -> bool) -> Vec<Found> {
    EVENTS
        .iter()
        .filter_map(|&(event, label)| find_in(settings, path, event, label, &is_ours))
        .collect()
}

fn find_in(
    settings: &Json,
    path: &Path,
    event: &str,
    label: &str,
    is_ours: &impl Fn(&str) -> bool,
) -> Option<Found> {
    let Some(Json::Array(groups)) = settings.get("hooks")?.get(event) else {
        return None;
    };
    for (gi, group) in groups.iter().enumerate() {
        let Some(Json::Array(handlers)) = group.get("hooks") else {
            continue;
        };
        for (hi, handler) in handlers.iter().enumerate() {
            let Some(Json::String(command)) = handler.get("command") else {
                continue;
            };
            if !is_ours(command) {
                continue;
            }
            let matcher = match group.get("matcher") {
                Some(Json::String(m)) => Some(m.as_str()),
                _ => None,
            };
            return Some(Found {
                key: format!("{}:{label}:{gi}:{hi}", path.display()),
                hash: hash(label, matcher, command, handler),
            });
        }
    }
    None
}

/// Codex's hash of one command handler under the event `label`.
fn hash(label: &str, matcher: Option<&str>, command: &str, handler: &Json) -> String {
    let timeout = match handler.get("timeout").or_else(|| handler.get("timeoutSec")) {
        Some(Json::Number(n)) => n.as_u64().unwrap_or(DEFAULT_TIMEOUT_SEC).max(1),
        _ => DEFAULT_TIMEOUT_SEC,
    };
    let asynchronous = matches!(handler.get("async"), Some(Json::Bool(true)));
    let mut hook = serde_json::Map::new();
    hook.insert("async".into(), asynchronous.into());
    hook.insert("command".into(), command.into());
    if let Some(Json::String(s)) = handler.get("statusMessage") {
        hook.insert("statusMessage".into(), s.as_str().into());
    }
    hook.insert("timeout".into(), timeout.into());
    hook.insert("type".into(), "command".into());
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), label.into());
    identity.insert("hooks".into(), vec![serde_json::Value::Object(hook)].into());
    if let Some(m) = matcher {
        identity.insert("matcher".into(), m.into());
    }
    // serde_json's map keeps keys sorted (no `preserve_order`), which is
    // Codex's canonical form.
    let text = serde_json::Value::Object(identity).to_string();
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Whether Codex's user config (its text, `""` when absent) trusts `found`.
pub fn status(config: &str, found: &Found) -> Result<Status, String> {
    let table: toml::Table = config.parse().map_err(|e| format!("not valid TOML: {e}"))?;
    let trusted = table
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.get(&found.key))
        .and_then(|k| k.get("trusted_hash"))
        .and_then(toml::Value::as_str);
    Ok(if trusted == Some(found.hash.as_str()) {
        Status::Trusted
    } else {
        Status::Untrusted(found.clone())
    })
}

/// `config` with `found` trusted, the rest of the text untouched: the
/// `trusted_hash` line of an existing `[hooks.state."…"]` table is
/// replaced, else the table is appended. `Ok(None)` when already trusted.
pub fn trust(config: &str, found: &Found) -> Result<Option<String>, String> {
    if status(config, found)? == Status::Trusted {
        return Ok(None);
    }
    let key = toml::Value::String(found.key.clone()).to_string();
    let header = format!("[hooks.state.{key}]");
    let line = format!("trusted_hash = \"{}\"", found.hash);
    let mut lines: Vec<String> = config.lines().map(str::to_string).collect();
    match lines.iter().position(|l| l.trim() == header) {
        Some(at) => {
            let end = lines[at + 1..]
                .iter()
                .position(|l| l.trim_start().starts_with('['))
                .map_or(lines.len(), |n| at + 1 + n);
            match (at + 1..end).find(|&i| lines[i].trim_start().starts_with("trusted_hash")) {
                Some(i) => lines[i] = line.clone(),
                None => lines.insert(at + 1, line.clone()),
            }
        }
        None => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.push(header.clone());
            lines.push(line.clone());
        }
    }
    let text = lines.join("\n") + "\n";
    match status(&text, found) {
        Ok(Status::Trusted) => Ok(Some(text)),
        Ok(Status::Untrusted(_)) => Err(format!(
            "the trust entry did not take (is `hooks.state` written another way in this file?); add it yourself:\n{header}\n{line}"
        )),
        Err(e) => Err(format!("recording the trust would break the file ({e})")),
    }
}

/// What `init codex` does about Codex's trust in the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Record it in Codex's config.toml (`--trust-hook`).
    Record,
    /// Only say whether Codex trusts it, and how to make it.
    Check,
}

/// Records or checks Codex's trust in squiggle's hook in `hooks` (the file
/// at `path`), saying what is left to do.
pub fn record_or_check(path: &Path, hooks: &Json, wanted: Trust) -> u8 {
    let found = find(hooks, path, |c| runs_hook(c, Agent::Codex));
    if found.is_empty() {
        return 0;
    }
    let Some(config_path) = super::codex_home().map(|d| d.join("config.toml")) else {
        eprintln!(
            "squiggle init: your home directory is unknown (HOME is not set; USERPROFILE on Windows), so Codex's config.toml is unknown"
        );
        return 2;
    };
    let config = match std::fs::read_to_string(&config_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            eprintln!("squiggle init: cannot read {}: {e}", config_path.display());
            return 2;
        }
    };
    let step = "run `squiggle init codex --trust-hook`, or trust `squiggle hook codex` in Codex's /hooks screen";
    if wanted == Trust::Check {
        let trusted = found
            .iter()
            .all(|f| status(&config, f) == Ok(Status::Trusted));
        if trusted {
            crate::outln!("Codex trusts this hook");
        } else {
            crate::outln!("note: Codex runs this hook only once you trust it: {step}");
        }
        crate::outln!(
            "note: Codex loads a project's .codex/hooks.json only when the project is trusted"
        );
        return 0;
    }
    let mut text = config.clone();
    for f in &found {
        match trust(&text, f) {
            Ok(Some(next)) => text = next,
            Ok(None) => {}
            Err(why) => {
                eprintln!(
                    "squiggle init: {}: {why}; it was not changed",
                    config_path.display()
                );
                return 2;
            }
        }
    }
    match (text != config).then_some(text) {
        None => crate::outln!("Codex already trusts this hook ({})", config_path.display()),
        Some(text) => {
            if let Err(e) = crate::edit::write_atomic(&config_path, text.as_bytes()) {
                eprintln!("squiggle init: cannot write {}: {e}", config_path.display());
                return 2;
            }
            crate::outln!(
                "trusted the hook for Codex in {} ([hooks.state])",
                config_path.display()
            );
        }
    }
    crate::outln!(
        "note: Codex loads a project's .codex/hooks.json only when the project is trusted"
    );
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found() -> Found {
        let settings: Json = serde_json::from_str(
            r#"{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"other"}]},{"matcher":"apply_patch","hooks":[{"type":"command","command":"squiggle hook codex"}]}]}}"#,
        )
        .unwrap_or(Json::Null);
        let mut all = find(&settings, Path::new("/p/.codex/hooks.json"), |c| {
            c.starts_with("squiggle")
        });
        assert_eq!(all.len(), 1);
        all.remove(0)
    }

    #[test]
    fn the_key_names_the_file_event_and_position() {
        assert_eq!(found().key, "/p/.codex/hooks.json:post_tool_use:1:0");
        assert!(found().hash.starts_with("sha256:"));
        assert_eq!(found().hash.len(), "sha256:".len() + 64);
    }

    #[test]
    fn trust_appends_once_and_replaces_a_stale_hash() {
        let f = found();
        let config = "model = \"x\"\n# keep me\n";
        let Ok(Some(once)) = trust(config, &f) else {
            panic!("expected a change");
        };
        assert!(
            once.starts_with("model = \"x\"\n# keep me\n\n[hooks.state."),
            "{once}"
        );
        assert_eq!(trust(&once, &f), Ok(None));
        let stale = once.replace(&f.hash, "sha256:old");
        assert_eq!(trust(&stale, &f), Ok(Some(once.clone())));
        assert_eq!(status(&once, &f), Ok(Status::Trusted));
        assert_eq!(status(config, &f), Ok(Status::Untrusted(f.clone())));
    }

    #[test]
    fn broken_config_is_named_not_rewritten() {
        assert!(trust("model = ", &found()).is_err_and(|e| e.starts_with("not valid TOML")));
    }
}
