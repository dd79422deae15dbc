//! Answers to the requests a server sends its client. Every one is answered —
//! an unanswered request stalls some servers (pyright publishes nothing until
//! `workspace/configuration` is answered) — and a server is never allowed to
//! write files (`workspace/applyEdit` is refused).
//!
//! Answering is pure: a request's answer comes back with what it changes in
//! the client's state (`ServerChange`), and the client's dispatcher applies
//! that and wakes the waits, in one place.

use serde_json::{Value, json};

use super::client_config::ClientConfig;
use super::state::{Registration, ServerChange, token_key};
use crate::jsonrpc::message::{ResponseError, codes};
use crate::uri;

/// The answer to one server request, and what it changes in the state.
pub(crate) struct Answer {
    pub reply: Result<Value, ResponseError>,
    pub change: Option<ServerChange>,
}

impl Answer {
    fn reply(value: Value) -> Answer {
        Answer {
            reply: Ok(value),
            change: None,
        }
    }

    fn change(change: ServerChange) -> Answer {
        Answer {
            reply: Ok(Value::Null),
            change: Some(change),
        }
    }
}

pub(crate) fn answer(config: &ClientConfig, method: &str, params: &Value) -> Answer {
    let server = &config.server_id;
    tracing::trace!(server = %server, method, "server request");
    match method {
        "workspace/configuration" => Answer::reply(configuration(&config.settings, params)),
        "client/registerCapability" => Answer::change(register(server, params)),
        "client/unregisterCapability" => Answer::change(unregister(params)),
        "window/workDoneProgress/create" => match params.get("token") {
            Some(token) => {
                let key = token_key(token);
                tracing::trace!(server = %server, token = %key, "progress token created");
                Answer::change(ServerChange::ProgressCreated(key))
            }
            None => Answer::reply(Value::Null),
        },
        "workspace/workspaceFolders" => Answer::reply(workspace_folders(config)),
        "workspace/diagnostic/refresh" => Answer::change(ServerChange::Refresh),
        "window/showMessageRequest" => {
            let text = params
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            tracing::info!(server = %server, "{text}");
            Answer::reply(Value::Null)
        }
        "workspace/applyEdit" => {
            tracing::info!(server = %server, "refused workspace/applyEdit");
            Answer::reply(
                json!({ "applied": false, "failureReason": "squiggle never lets a language server write files" }),
            )
        }
        _ => Answer {
            reply: Err(ResponseError {
                code: codes::METHOD_NOT_FOUND,
                message: format!("squiggle does not handle {method}"),
                data: None,
            }),
            change: None,
        },
    }
}

/// `workspace/configuration`: one answer per item, by section.
fn configuration(settings: &Value, params: &Value) -> Value {
    let answers = array(params, "items")
        .iter()
        .map(|item| configuration_section(settings, item.get("section").and_then(Value::as_str)))
        .collect();
    Value::Array(answers)
}

/// `client/registerCapability`: the well-formed registrations, by id.
fn register(server: &str, params: &Value) -> ServerChange {
    let mut added = Vec::new();
    for r in array(params, "registrations") {
        let (Some(id), Some(method)) = (
            r.get("id").and_then(Value::as_str),
            r.get("method").and_then(Value::as_str),
        ) else {
            continue;
        };
        tracing::debug!(server = %server, method, "capability registered");
        let options = r.get("registerOptions").cloned().unwrap_or(Value::Null);
        let registration = Registration {
            method: method.to_string(),
            options,
        };
        added.push((id.to_string(), registration));
    }
    ServerChange::Register(added)
}

/// `client/unregisterCapability`: the ids to forget.
fn unregister(params: &Value) -> ServerChange {
    // The protocol spells the member `unregisterations`.
    let list = params
        .get("unregisterations")
        .or_else(|| params.get("unregistrations"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let ids = list
        .iter()
        .filter_map(|u| u.get("id").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    ServerChange::Unregister(ids)
}

/// The array `params[key]`, empty when absent or not an array.
fn array<'a>(params: &'a Value, key: &str) -> &'a [Value] {
    params
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// `workspace/workspaceFolders`: the one root this instance serves.
fn workspace_folders(config: &ClientConfig) -> Value {
    let root = &config.root;
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!([{ "uri": uri::from_path(root), "name": name }])
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

    fn config() -> ClientConfig {
        let spawn = crate::lsp::Spawn {
            program: "server".into(),
            args: vec![],
            env: vec![],
            cwd: "/ws".into(),
        };
        ClientConfig::new("fake", spawn, "/ws".into())
    }

    #[test]
    fn requests_that_change_the_state_say_how_and_change_nothing_themselves() {
        let register = json!({"registrations": [
            {"id": "1", "method": "textDocument/diagnostic", "registerOptions": {"identifier": "x"}},
            {"method": "no id"}
        ]});
        let answered = answer(&config(), "client/registerCapability", &register);
        assert_eq!(answered.reply, Ok(Value::Null));
        let Some(ServerChange::Register(added)) = answered.change else {
            panic!("{:?}", answered.change)
        };
        assert_eq!(added.len(), 1);
        assert_eq!(added[0].0, "1");
        assert_eq!(added[0].1.options, json!({"identifier": "x"}));

        for member in ["unregisterations", "unregistrations"] {
            let params = json!({ member: [{"id": "1", "method": "m"}] });
            let answered = answer(&config(), "client/unregisterCapability", &params);
            assert_eq!(
                answered.change,
                Some(ServerChange::Unregister(vec!["1".into()]))
            );
        }
        let created = answer(
            &config(),
            "window/workDoneProgress/create",
            &json!({"token": 7}),
        );
        assert_eq!(
            created.change,
            Some(ServerChange::ProgressCreated("7".into()))
        );
        let refresh = answer(&config(), "workspace/diagnostic/refresh", &Value::Null);
        assert_eq!(refresh.change, Some(ServerChange::Refresh));
    }

    #[test]
    fn other_requests_are_answered_without_a_change() {
        let folders = answer(&config(), "workspace/workspaceFolders", &Value::Null);
        assert_eq!(
            folders.reply,
            Ok(json!([{"uri": "file:///ws", "name": "ws"}]))
        );
        let edit = answer(&config(), "workspace/applyEdit", &json!({}));
        assert_eq!(
            edit.reply.as_ref().map(|r| r["applied"].clone()),
            Ok(json!(false))
        );
        let unknown = answer(&config(), "something/unheardOf", &json!({}));
        assert_eq!(
            unknown.reply.as_ref().map_err(|e| e.code),
            Err(codes::METHOD_NOT_FOUND)
        );
        for answered in [folders, edit, unknown] {
            assert_eq!(answered.change, None);
        }
    }

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
