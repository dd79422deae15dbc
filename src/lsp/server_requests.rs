//! Answers to the requests a server sends its client. Every one is answered —
//! an unanswered request stalls some servers (pyright publishes nothing until
//! `workspace/configuration` is answered) — and a server is never allowed to
//! write files (`workspace/applyEdit` is refused).

use serde_json::{Value, json};

use super::client::{Inner, lock};
use super::message::{ResponseError, codes};
use super::state::{Progress, Registration, token_key};
use super::uri;

pub(crate) fn answer(inner: &Inner, method: &str, params: &Value) -> Result<Value, ResponseError> {
    let server = &inner.config.server_id;
    tracing::trace!(server = %server, method, "server request");
    match method {
        "workspace/configuration" => {
            let items = params
                .get("items")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let settings = &inner.config.settings;
            let answers = items
                .iter()
                .map(|item| {
                    configuration_section(settings, item.get("section").and_then(Value::as_str))
                })
                .collect();
            Ok(Value::Array(answers))
        }
        "client/registerCapability" => {
            let registrations = params
                .get("registrations")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut state = lock(&inner.state);
            for r in registrations {
                let (Some(id), Some(method)) = (
                    r.get("id").and_then(Value::as_str),
                    r.get("method").and_then(Value::as_str),
                ) else {
                    continue;
                };
                tracing::debug!(server = %server, method, "capability registered");
                let options = r.get("registerOptions").cloned().unwrap_or(Value::Null);
                state.registrations.insert(
                    id.to_string(),
                    Registration {
                        method: method.to_string(),
                        options,
                    },
                );
            }
            drop(state);
            inner.bump();
            Ok(Value::Null)
        }
        "client/unregisterCapability" => {
            // The protocol spells the member `unregisterations`.
            let list = params
                .get("unregisterations")
                .or_else(|| params.get("unregistrations"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut state = lock(&inner.state);
            for u in list {
                if let Some(id) = u.get("id").and_then(Value::as_str) {
                    state.registrations.remove(id);
                }
            }
            drop(state);
            inner.bump();
            Ok(Value::Null)
        }
        "window/workDoneProgress/create" => {
            // A created token counts as open work until its `end`: servers
            // create the token, then begin a moment later, and a wait that
            // looked in between would miss that the server is still busy.
            if let Some(token) = params.get("token") {
                let key = token_key(token);
                tracing::trace!(server = %server, token = %key, "progress token created");
                let seq = inner.received.load(std::sync::atomic::Ordering::Acquire);
                lock(&inner.state).progress.entry(key).or_insert(Progress {
                    title: None,
                    message: None,
                    began: seq,
                    began_at: std::time::Instant::now(),
                });
                inner.bump();
            }
            Ok(Value::Null)
        }
        "workspace/workspaceFolders" => {
            let root = &inner.config.root;
            let name = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(json!([{ "uri": uri::from_path(root), "name": name }]))
        }
        "workspace/diagnostic/refresh" => {
            lock(&inner.state).refreshes += 1;
            inner.bump();
            Ok(Value::Null)
        }
        "window/showMessageRequest" => {
            let text = params
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            tracing::info!(server = %server, "{text}");
            Ok(Value::Null)
        }
        "workspace/applyEdit" => {
            tracing::info!(server = %server, "refused workspace/applyEdit");
            Ok(
                json!({ "applied": false, "failureReason": "squiggle never lets a language server write files" }),
            )
        }
        _ => Err(ResponseError {
            code: codes::METHOD_NOT_FOUND,
            message: format!("squiggle does not handle {method}"),
            data: None,
        }),
    }
}

/// The settings for one `workspace/configuration` item: the whole object for
/// no section; else a literal dotted key, else a walk down the dotted path;
/// `null` when absent.
pub(crate) fn configuration_section(settings: &Value, section: Option<&str>) -> Value {
    let Some(section) = section.filter(|s| !s.is_empty()) else {
        return settings.clone();
    };
    if let Some(v) = settings.get(section) {
        return v.clone();
    }
    let mut current = settings;
    for part in section.split('.') {
        match current.get(part) {
            Some(next) => current = next,
            None => return Value::Null,
        }
    }
    current.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_sections_resolve_by_dotted_path() {
        let settings = json!({"python": {"analysis": {"typeCheckingMode": "standard"}}, "a.b": 1});
        assert_eq!(
            configuration_section(&settings, Some("python.analysis"))["typeCheckingMode"],
            "standard"
        );
        assert_eq!(configuration_section(&settings, Some("a.b")), json!(1));
        assert_eq!(
            configuration_section(&settings, Some("missing.key")),
            Value::Null
        );
        assert_eq!(configuration_section(&settings, None), settings);
        assert_eq!(configuration_section(&Value::Null, Some("x")), Value::Null);
    }
}
