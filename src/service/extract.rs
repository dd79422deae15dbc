//! Reading a request's params into its typed struct (`extract::<P>`, as
//! rust-analyzer's `lsp-server` does), strictly: a wrong type, a missing
//! member or one the method does not know is InvalidParams with a message
//! that names the member and what was expected (`filePath: expected a
//! string`, `filePaths: missing; expected an array of strings`, `dryrun:
//! unknown field; expected one of filePath, content, dryRun`). What is
//! expected is read from the struct's JSON Schema, so the message follows
//! the type.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::failure::Failure;

/// InvalidParams with `message`.
pub fn invalid(message: impl Into<String>) -> Failure {
    Failure::Params(message.into())
}

/// `params` read as `P`: an object, or absent/`null` read as `{}`.
pub fn extract<P: DeserializeOwned + JsonSchema>(params: Value) -> Result<P, Failure> {
    let params = match params {
        Value::Object(map) => Value::Object(map),
        Value::Null => Value::Object(Map::new()),
        _ => return Err(invalid("params: expected an object")),
    };
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        invalid(explain::<P>(&path, &e.into_inner().to_string()))
    })
}

/// The message for serde's `error` at `path` (`.` for the params object
/// itself, `filePaths[1]`, `edited[0].file`).
fn explain<P: JsonSchema>(path: &str, error: &str) -> String {
    let schema = schemars::schema_for!(P);
    let schema = schema.as_value();
    let defs = schema.get("$defs").unwrap_or(&Value::Null);
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(field) = quoted(error, "unknown field `") {
        // serde lists the known members in declaration order.
        let known = error.split_once("`, ").map_or("", |(_, known)| known);
        let expected = match known {
            "there are no fields" => "this method takes no params".to_string(),
            known => known.replace('`', ""),
        };
        let within = path
            .rsplit_once(['.', '['])
            .map_or(String::new(), |(outer, _)| format!("{outer}: "));
        return format!("{within}{field}: unknown field; {expected}");
    }
    if let Some(field) = quoted(error, "missing field `")
        && path == "."
    {
        let expected = properties
            .and_then(|p| p.get(field))
            .map_or_else(|| "a value".to_string(), |s| describe(s, defs));
        return format!("{field}: missing; expected {expected}");
    }
    let (top, rest) = split(path);
    let field = properties.and_then(|p| p.get(top));
    let error = error
        .strip_prefix("invalid type: ")
        .and_then(|e| {
            e.split_once(", expected ")
                .map(|(_, what)| format!("expected {what}"))
        })
        .unwrap_or_else(|| error.to_string());
    match field {
        // A plain member (a string, a flag, a list of strings): say what the
        // whole member should be.
        Some(field) if rest.is_empty() || !structured(field) => {
            format!("{top}: expected {}", describe(field, defs))
        }
        _ if rest.is_empty() => format!("{top}: {error}"),
        _ => format!("{top}: {rest}: {error}"),
    }
}

/// The text between `prefix` and the next backtick in `error`.
fn quoted<'a>(error: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &error[error.find(prefix)? + prefix.len()..];
    rest.split_once('`').map(|(name, _)| name)
}

/// `edited[0].file` as (`edited`, `[0].file`); `.` as (`params`, ``).
fn split(path: &str) -> (&str, &str) {
    if path == "." {
        return ("params", "");
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    (&path[..end], path[end..].trim_start_matches('.'))
}

/// Whether a member's schema refers to a struct of its own (its errors are
/// reported where they are, not as the member's type).
fn structured(schema: &Value) -> bool {
    schema.to_string().contains("\"$ref\"")
}

/// What a member's schema expects, in words: `a string`, `a boolean`,
/// `an array of strings`, `an array of files`, `an object`.
fn describe(schema: &Value, defs: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or_default();
        return match defs.get(name) {
            Some(def) if def.get("enum").is_some() || def.get("oneOf").is_some() => {
                format!("one of {}", variants(def))
            }
            _ => "an object".to_string(),
        };
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let not_null = any.iter().find(|s| s.get("type") != Some(&"null".into()));
        return not_null.map_or_else(|| "a value".to_string(), |s| describe(s, defs));
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("value"),
        _ => "value",
    };
    match kind {
        "array" => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let plural = match items.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    format!("{}s", reference.rsplit('/').next().unwrap_or("item")).to_lowercase()
                }
                None => format!("{}s", noun(&describe(items, defs))),
            };
            format!("an array of {plural}")
        }
        "object" => match schema.get("additionalProperties") {
            Some(values @ Value::Object(_)) => {
                format!("an object of {}s", noun(&describe(values, defs)))
            }
            _ => "an object".to_string(),
        },
        "integer" => "an integer".to_string(),
        "boolean" => "a boolean".to_string(),
        "string" => "a string".to_string(),
        other => format!("a {other}"),
    }
}

/// `a string` → `string`.
fn noun(described: &str) -> &str {
    described
        .strip_prefix("an ")
        .or_else(|| described.strip_prefix("a "))
        .unwrap_or(described)
}

/// An enum's values, quoted: `"edit", "write"`.
fn variants(def: &Value) -> String {
    let list: Vec<String> = def
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(
            def.get("oneOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.get("const")),
        )
        .map(Value::to_string)
        .collect();
    list.join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::service::wire::{CheckFilesParams, CheckParams, EditParams, NoParams, RenderParams};

    fn message<P: DeserializeOwned + JsonSchema + std::fmt::Debug>(params: Value) -> String {
        match extract::<P>(params) {
            Ok(p) => panic!("accepted: {p:?}"),
            Err(Failure::Params(message)) => message,
            Err(other) => panic!("not InvalidParams: {other:?}"),
        }
    }

    #[test]
    fn a_wrong_type_names_the_member_and_its_type() {
        let edit = json!({"filePath": 3, "oldString": "a", "newString": "b"});
        assert_eq!(message::<EditParams>(edit), "filePath: expected a string");
        let flag = json!({"filePath": "a", "oldString": "a", "newString": "b", "dryRun": "yes"});
        assert_eq!(message::<EditParams>(flag), "dryRun: expected a boolean");
        let list = json!({"filePaths": ["a.fk", 1]});
        assert_eq!(
            message::<CheckFilesParams>(list),
            "filePaths: expected an array of strings"
        );
        let contents = json!({"filePaths": ["a"], "contents": {"a": 1}});
        assert_eq!(
            message::<CheckParams>(contents),
            "contents: expected an object of strings"
        );
        let mutation = json!({"filePaths": ["a"], "mutation": "delete"});
        assert_eq!(
            message::<CheckParams>(mutation),
            r#"mutation: expected one of "write", "edit""#
        );
    }

    #[test]
    fn a_missing_member_says_what_it_should_be() {
        assert_eq!(
            message::<CheckFilesParams>(json!({})),
            "filePaths: missing; expected an array of strings"
        );
        assert_eq!(
            message::<RenderParams>(Value::Null),
            "edited: missing; expected an array of files"
        );
    }

    #[test]
    fn an_unknown_member_is_named() {
        let edit = json!({"filePath": "a", "oldString": "a", "newString": "b", "dryrun": true});
        assert_eq!(
            message::<EditParams>(edit),
            "dryrun: unknown field; expected one of filePath, oldString, newString, replaceAll, dryRun, origin"
        );
        assert_eq!(
            message::<NoParams>(json!({"verbose": true})),
            "verbose: unknown field; this method takes no params"
        );
        let options = json!({"edited": [], "options": {"maxLine": 3}});
        assert!(
            message::<RenderParams>(options).starts_with("options: maxLine: unknown field"),
            "{}",
            message::<RenderParams>(json!({"edited": [], "options": {"maxLine": 3}}))
        );
    }

    #[test]
    fn a_nested_error_says_where() {
        let render = json!({"edited": [{"file": 1}]});
        assert_eq!(
            message::<RenderParams>(render),
            "edited: [0].file: expected a string"
        );
    }

    #[test]
    fn params_must_be_an_object_or_absent() {
        assert_eq!(
            message::<NoParams>(json!([1])),
            "params: expected an object"
        );
        assert!(extract::<NoParams>(Value::Null).is_ok());
        let edit: EditParams = extract(json!({"filePath": "a", "oldString": "x",
            "newString": "y", "replaceAll": null}))
        .unwrap_or_else(|e| panic!("{}", e.message()));
        assert!(!edit.replace_all);
    }
}
