//! Reading a host's hook payload: stdin as one JSON value, and the readers
//! every host's module shares — lenient about extra fields and odd shapes,
//! precise about what is missing.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Why a payload could not be used; shown after `ignored malformed input: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed(pub String);

/// The hook's input: one JSON value on stdin.
pub(super) fn read_payload() -> Result<Value, Malformed> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Malformed(format!("cannot read stdin: {e}")))?;
    serde_json::from_str(&input).map_err(|e| Malformed(format!("not JSON: {e}")))
}

/// `payload[key]` as a string, or what is wrong with it.
pub(super) fn string<'a>(payload: &'a Value, key: &str, name: &str) -> Result<&'a str, Malformed> {
    match payload.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) => Err(Malformed(format!("{name} is empty"))),
        Some(other) => Err(Malformed(format!(
            "{name} is not a string: {}",
            kind(other)
        ))),
        None => Err(Malformed(format!("{name} is missing"))),
    }
}

/// `payload.tool_input` as an object.
pub(super) fn tool_input(payload: &Value) -> Result<&Value, Malformed> {
    match payload.get("tool_input") {
        Some(v @ Value::Object(_)) => Ok(v),
        Some(other) => Err(Malformed(format!(
            "tool_input is not an object: {}",
            kind(other)
        ))),
        None => Err(Malformed("tool_input is missing".into())),
    }
}

/// The event's working directory, else the hook process's own.
pub(super) fn event_cwd(payload: &Value, fallback: &Path) -> PathBuf {
    match payload.get("cwd").and_then(Value::as_str) {
        Some(cwd) if !cwd.is_empty() => fallback.join(cwd),
        _ => fallback.to_path_buf(),
    }
}

/// Whether the payload names an event other than `expected` (a hook wired
/// to the wrong event is skipped, not checked before the edit happened).
pub(super) fn other_event(payload: &Value, expected: &str) -> bool {
    payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .is_some_and(|e| e != expected)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
