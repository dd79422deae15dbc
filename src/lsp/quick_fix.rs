//! Quick fixes a server offers for one of its own diagnostics
//! (`textDocument/codeAction` with `only: ["quickfix"]` and the diagnostic
//! as the server sent it in the context), and the texts a fix leaves. The
//! engine shows one under an error and applies one on request; both ask
//! here, so what is shown is what is applied.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tokio::time::Instant;

use super::LspClient;
use super::state::LspDiagnostic;
use super::workspace_edit::{apply_edits, edits_per_uri, plain_text_edits};
use crate::uri;

/// One quick fix as the server offered it.
#[derive(Debug, Clone)]
pub struct QuickFix {
    pub title: String,
    pub preferred: bool,
    /// The code action as sent: its `edit`, or the `data` to resolve it by.
    action: Value,
}

impl QuickFix {
    /// The code action's kind as the server sent it (`quickfix`, …).
    pub fn kind(&self) -> Option<&str> {
        self.action.get("kind").and_then(Value::as_str)
    }
}

/// One file a fix changes: its path, its text before and after.
pub type FixedFile = (PathBuf, String, String);

/// The fix to show, or to apply unasked: the one the server marks
/// preferred, else the only one it offers.
pub fn chosen(fixes: &[QuickFix]) -> Option<&QuickFix> {
    fixes.iter().find(|f| f.preferred).or(if fixes.len() == 1 {
        fixes.first()
    } else {
        None
    })
}

impl LspClient {
    /// Whether the server serves quick fixes: it declares code actions and,
    /// when it lists the kinds it offers, a `quickfix` one. (What a server
    /// declares, not its name, decides.)
    pub fn serves_quick_fixes(&self) -> bool {
        let Some(facts) = self.facts() else {
            return false;
        };
        match facts.raw.get("codeActionProvider") {
            Some(Value::Bool(true)) => true,
            Some(Value::Object(o)) => match o.get("codeActionKinds").and_then(Value::as_array) {
                Some(kinds) => kinds.iter().filter_map(Value::as_str).any(is_quick_fix),
                None => true,
            },
            _ => false,
        }
    }

    /// The quick fixes the server offers for its diagnostic on `path` that
    /// starts on `line` (1-based) with `message`, among those it holds for
    /// the file, asked until `deadline`. Empty when it holds no such
    /// diagnostic, offers none it could apply, or does not answer in time.
    pub async fn quick_fixes(
        &self,
        path: &Path,
        line: u32,
        message: &str,
        deadline: Instant,
    ) -> Vec<QuickFix> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        if timeout.is_zero() || !self.serves_quick_fixes() {
            return Vec::new();
        }
        let file_uri = uri::from_path(path);
        let held = self.known_diagnostics();
        let raw = held
            .iter()
            .filter(|(u, _)| *u == file_uri)
            .flat_map(|(_, list)| list.iter())
            .find(|d| d.range.start.line + 1 == line && d.message == message);
        let Some(raw) = raw else {
            return Vec::new();
        };
        let params = json!({
            "textDocument": { "uri": file_uri },
            "range": raw.range,
            "context": { "diagnostics": [as_sent(raw)], "only": ["quickfix"], "triggerKind": 1 },
        });
        let answer = self
            .request_with_timeout("textDocument/codeAction", params, timeout)
            .await;
        let resolvable = self.resolves_code_actions();
        match answer {
            Ok(Value::Array(actions)) => actions
                .into_iter()
                .filter_map(|a| quick_fix(a, resolvable))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The files `fix` changes, with their texts before (the server's
    /// copies, else the disk's) and after: its edit, resolved first when the
    /// server defers it. Refused, with the reason, when it has no edit
    /// squiggle can apply.
    pub async fn fix_texts(
        &self,
        fix: &QuickFix,
        deadline: Instant,
    ) -> Result<Vec<FixedFile>, String> {
        let edit = match fix.action.get("edit") {
            Some(edit) => edit.clone(),
            None => {
                let timeout = deadline.saturating_duration_since(Instant::now());
                let resolved = self
                    .request_with_timeout("codeAction/resolve", fix.action.clone(), timeout)
                    .await
                    .map_err(|e| format!("{} did not resolve the fix: {e}", self.server_id()))?;
                resolved.get("edit").cloned().ok_or_else(|| {
                    format!(
                        "{} resolved the fix to no edit (a command squiggle does not run)",
                        self.server_id()
                    )
                })?
            }
        };
        let operations = edit.get("documentChanges").and_then(Value::as_array);
        if operations.is_some_and(|ops| ops.iter().any(|op| op.get("kind").is_some())) {
            return Err("the fix creates, renames or deletes files; apply it by hand".into());
        }
        let encoding = self.facts().map(|f| f.encoding).unwrap_or_default();
        let mut files = Vec::new();
        for (file_uri, edits) in edits_per_uri(&edit) {
            let path =
                uri::to_path(&file_uri).ok_or_else(|| format!("the fix edits {file_uri}"))?;
            let before = match self.document(&path) {
                Some((_, text)) => text.to_string(),
                // A server names the file: vetted unopened (a pipe, a
                // device) and read within the limit, as every read is.
                None => crate::edit::read_regular_string(&path, crate::edit::MAX_READ_BYTES)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
            };
            plain_text_edits(&edits)?;
            let after = apply_edits(&before, encoding, &edits);
            files.push((path, before, after));
        }
        if files.iter().all(|(_, before, after)| before == after) {
            return Err("the fix changes nothing".into());
        }
        Ok(files)
    }

    fn resolves_code_actions(&self) -> bool {
        self.facts().is_some_and(|f| {
            f.raw
                .pointer("/codeActionProvider/resolveProvider")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        })
    }
}

/// Whether a fix's title says it silences the check rather than fixes it.
fn suppresses(title: &str) -> bool {
    let title = title.to_ascii_lowercase();
    ["ignore", "disable", "suppress"]
        .iter()
        .any(|word| title.contains(word))
}

fn is_quick_fix(kind: &str) -> bool {
    kind == "quickfix" || kind.starts_with("quickfix.")
}

/// A code action worth offering: a quick fix (or of no kind: a server may
/// ignore `only`), not disabled, with an edit or a way to get one. A bare
/// command is not: squiggle runs no server commands. Nor is a suppression
/// (`Add # pyright: ignore[...]`, `Disable no-console for this line`): it
/// silences the error instead of fixing it, and an agent must not be
/// nudged towards it.
fn quick_fix(action: Value, resolvable: bool) -> Option<QuickFix> {
    let title = action.get("title")?.as_str()?.to_string();
    if suppresses(&title) {
        return None;
    }
    let kind = action.get("kind").and_then(Value::as_str);
    let applicable = action.get("edit").is_some() || (resolvable && action.get("data").is_some());
    let wanted = kind.is_none_or(is_quick_fix) && action.get("disabled").is_none();
    if !(applicable && wanted) || action.get("command").is_some_and(Value::is_string) {
        return None;
    }
    // An edit squiggle would refuse to apply (a snippet) is never offered.
    if let Some(edit) = action.get("edit")
        && edits_per_uri(edit)
            .iter()
            .any(|(_, edits)| plain_text_edits(edits).is_err())
    {
        return None;
    }
    let preferred = action
        .get("isPreferred")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Some(QuickFix {
        title,
        preferred,
        action,
    })
}

/// A diagnostic as the code action context carries it: the server's own
/// range, severity, code (a number when it was one), source, message and
/// data.
fn as_sent(d: &LspDiagnostic) -> Value {
    let code = d.code.as_ref().map(|c| match c.parse::<i64>() {
        Ok(n) => json!(n),
        Err(_) => json!(c),
    });
    let mut sent = json!({
        "range": d.range,
        "severity": d.severity,
        "code": code,
        "source": d.source,
        "message": d.message,
    });
    if let Some(data) = &d.data {
        sent["data"] = data.clone();
    }
    sent
}
