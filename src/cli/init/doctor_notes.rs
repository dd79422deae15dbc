//! What `squiggle doctor` says about installed hooks that an agent will not
//! run as they stand: a Codex hook nobody trusted (Codex skips it without a
//! word), a Gemini hook in a folder Gemini CLI does not trust.

use std::path::Path;

use super::ordered::Json;
use super::{Agent, codex_home, codex_trust, home, runs_hook};

/// One line per hook that will not run, with the step that fixes it.
pub fn notes(root: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let mut codex_files = vec![crate::platform::paths::join_slashed(
        root,
        ".codex/hooks.json",
    )];
    codex_files.extend(codex_home().map(|d| d.join("hooks.json")));
    for path in codex_files {
        let Some(hooks) = read_json(&path) else {
            continue;
        };
        let found = codex_trust::find(&hooks, &path, |c| runs_hook(c, Agent::Codex));
        let config = codex_home()
            .and_then(|d| std::fs::read_to_string(d.join("config.toml")).ok())
            .unwrap_or_default();
        if found
            .iter()
            .any(|f| codex_trust::status(&config, f) != Ok(codex_trust::Status::Trusted))
        {
            notes.push(format!(
                "codex: squiggle's hook in {} is not trusted, so Codex does not run it; run `squiggle init codex --trust-hook` or trust it in Codex's /hooks screen",
                path.display()
            ));
        }
    }
    let gemini = crate::platform::paths::join_slashed(root, ".gemini/settings.json");
    if has_hook(&gemini, Agent::Gemini) && !gemini_trusts(root) {
        notes.push(format!(
            "gemini: {} has squiggle's hook, but Gemini CLI runs hooks only in a trusted folder and {} is not in ~/.gemini/trustedFolders.json; trust it when Gemini asks",
            gemini.display(),
            root.display()
        ));
    }
    notes
}

fn read_json(path: &Path) -> Option<Json> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn has_hook(path: &Path, agent: Agent) -> bool {
    read_json(path).is_some_and(|v| {
        serde_json::to_value(&v)
            .ok()
            .is_some_and(|v| commands(&v).any(|c| runs_hook(c, agent)))
    })
}

fn commands(v: &serde_json::Value) -> impl Iterator<Item = &str> {
    v["hooks"]
        .as_object()
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(|groups| groups.as_array())
        .flatten()
        .filter_map(|group| group["hooks"].as_array())
        .flatten()
        .filter_map(|hook| hook["command"].as_str())
}

/// Whether `~/.gemini/trustedFolders.json` trusts `root`: `TRUST_FOLDER` on
/// it or a folder above it, or `TRUST_PARENT` on a path whose parent is it
/// or above it.
fn gemini_trusts(root: &Path) -> bool {
    let Some(folders) = home()
        .and_then(|h| {
            std::fs::read_to_string(crate::platform::paths::join_slashed(
                &h,
                ".gemini/trustedFolders.json",
            ))
            .ok()
        })
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return false;
    };
    let Some(folders) = folders.as_object() else {
        return false;
    };
    folders.iter().any(|(path, level)| {
        let path = Path::new(path);
        match level.as_str() {
            Some("TRUST_FOLDER") => root.starts_with(path),
            Some("TRUST_PARENT") => path.parent().is_some_and(|p| root.starts_with(p)),
            _ => false,
        }
    })
}
