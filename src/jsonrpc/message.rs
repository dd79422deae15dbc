//! JSON-RPC 2.0 messages, as LSP, the service and the daemon use them.
//!
//! Parsed by hand from a JSON object rather than derived, because the shapes
//! differ only by which members are present: `"result": null` is a successful
//! response, while a missing `result` with an `error` is a failure. Reading is
//! lenient (no `jsonrpc` member is fine); writing always emits `"jsonrpc":"2.0"`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request id: LSP allows integers and strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The `error` member of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    pub const SERVER_CANCELLED: i64 = -32802;
    pub const CONTENT_MODIFIED: i64 = -32801;
    pub const REQUEST_CANCELLED: i64 = -32800;
}

#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Option<RequestId>,
        result: Result<Value, ResponseError>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    #[error("message is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("message is not a JSON-RPC request, notification or response")]
    NotJsonRpc,
    #[error("request id must be an integer or a string")]
    InvalidId,
}

impl Message {
    pub fn parse(body: &[u8]) -> Result<Message, MessageError> {
        let Value::Object(mut map) = serde_json::from_slice::<Value>(body)? else {
            return Err(MessageError::NotJsonRpc);
        };
        let id = take_id(&mut map);
        if let Some(Value::String(method)) = map.remove("method") {
            let params = map.remove("params").unwrap_or(Value::Null);
            return match id {
                Some(Some(id)) => Ok(Message::Request { id, method, params }),
                // An id that is null, a float, an object or an array cannot
                // be answered by id; it is not a notification either.
                Some(None) => Err(MessageError::InvalidId),
                None => Ok(Message::Notification { method, params }),
            };
        }
        let result = if let Some(error) = map.remove("error") {
            Err(serde_json::from_value::<ResponseError>(error)
                .map_err(|_| MessageError::NotJsonRpc)?)
        } else if let Some(result) = map.remove("result") {
            Ok(result)
        } else {
            return Err(MessageError::NotJsonRpc);
        };
        // A response's id may be null (an error about an unparsable request).
        Ok(Message::Response {
            id: id.flatten(),
            result,
        })
    }

    /// The message as JSON, serialized straight from the borrowed parts:
    /// params (a whole document's text, for didOpen) are never cloned into
    /// an intermediate `Value`. Members come out in the same (sorted) order
    /// as a `serde_json::Map` would give them.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&Wire(self)).unwrap_or_default()
    }
}

/// Serializes a [`Message`] as JSON-RPC. `params` is omitted when null: some
/// servers (tsgo) reject `"params": null` on parameterless requests such as
/// `shutdown`.
struct Wire<'a>(&'a Message);

impl Serialize for Wire<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            Message::Request { id, method, params } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("jsonrpc", "2.0")?;
                map.serialize_entry("method", method)?;
                if !params.is_null() {
                    map.serialize_entry("params", params)?;
                }
            }
            Message::Notification { method, params } => {
                map.serialize_entry("jsonrpc", "2.0")?;
                map.serialize_entry("method", method)?;
                if !params.is_null() {
                    map.serialize_entry("params", params)?;
                }
            }
            Message::Response { id, result } => {
                if let Err(e) = result {
                    let error = serde_json::to_value(e).unwrap_or(Value::Null);
                    map.serialize_entry("error", &error)?;
                }
                map.serialize_entry("id", id)?;
                map.serialize_entry("jsonrpc", "2.0")?;
                if let Ok(v) = result {
                    map.serialize_entry("result", v)?;
                }
            }
        }
        map.end()
    }
}

/// `None`: no id member; `Some(None)`: an id we cannot use (null, float, object).
fn take_id(map: &mut Map<String, Value>) -> Option<Option<RequestId>> {
    let id = map.remove("id")?;
    Some(match id {
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        Value::String(s) => Some(RequestId::String(s)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Message {
        Message::parse(&serde_json::to_vec(&v).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn null_result_is_success_not_absence() {
        let m = parse(json!({"jsonrpc":"2.0","id":3,"result":null}));
        assert_eq!(
            m,
            Message::Response {
                id: Some(RequestId::Number(3)),
                result: Ok(Value::Null)
            }
        );
    }

    #[test]
    fn error_response_is_failure() {
        let m = parse(json!({"id":"a","error":{"code":-32601,"message":"nope"}}));
        let Message::Response { id, result: Err(e) } = m else {
            panic!("{m:?}")
        };
        assert_eq!(id, Some(RequestId::String("a".into())));
        assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    }

    #[test]
    fn request_and_notification_are_told_apart_by_id() {
        assert!(matches!(
            parse(json!({"id":1,"method":"m"})),
            Message::Request { .. }
        ));
        assert!(matches!(
            parse(json!({"method":"m","params":[1]})),
            Message::Notification { .. }
        ));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(Message::parse(b"not json").is_err());
        assert!(Message::parse(b"[1,2]").is_err());
        assert!(Message::parse(b"{\"id\":1}").is_err());
        assert!(Message::parse(b"{\"id\":1,\"error\":\"x\"}").is_err());
        for id in ["null", "1.5", "{}", "[]", "true"] {
            let body = format!("{{\"id\":{id},\"method\":\"m\"}}");
            assert!(
                matches!(
                    Message::parse(body.as_bytes()),
                    Err(MessageError::InvalidId)
                ),
                "{id}"
            );
        }
    }

    /// The bytes are those of the same message built as a `Value` (sorted
    /// members), as before serializing from borrowed parts.
    #[test]
    fn bytes_match_the_value_form() {
        let cases = [
            (
                Message::Request {
                    id: RequestId::String("r1".into()),
                    method: "textDocument/diagnostic".into(),
                    params: json!({"textDocument": {"uri": "file:///a"}}),
                },
                json!({"jsonrpc":"2.0","id":"r1","method":"textDocument/diagnostic","params":{"textDocument":{"uri":"file:///a"}}}),
            ),
            (
                Message::Notification {
                    method: "textDocument/didOpen".into(),
                    params: json!({"textDocument": {"text": "a \"quoted\" é\n", "version": 1}}),
                },
                json!({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"a \"quoted\" é\n","version":1}}}),
            ),
            (
                Message::Notification {
                    method: "exit".into(),
                    params: Value::Null,
                },
                json!({"jsonrpc":"2.0","method":"exit"}),
            ),
            (
                Message::Response {
                    id: Some(RequestId::Number(4)),
                    result: Ok(Value::Null),
                },
                json!({"jsonrpc":"2.0","id":4,"result":null}),
            ),
            (
                Message::Response {
                    id: None,
                    result: Err(ResponseError {
                        code: codes::INVALID_REQUEST,
                        message: "no".into(),
                        data: None,
                    }),
                },
                json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}),
            ),
        ];
        for (message, value) in cases {
            let expected = serde_json::to_vec(&value).unwrap_or_default();
            assert_eq!(
                String::from_utf8_lossy(&message.to_bytes()),
                String::from_utf8_lossy(&expected)
            );
        }
    }

    #[test]
    fn parameterless_request_has_no_params_member() {
        let bytes = Message::Request {
            id: RequestId::Number(9),
            method: "shutdown".into(),
            params: Value::Null,
        }
        .to_bytes();
        let v: Value = serde_json::from_slice(&bytes).unwrap_or_default();
        assert_eq!(v, json!({"jsonrpc":"2.0","id":9,"method":"shutdown"}));
    }
}
