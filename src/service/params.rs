//! Reading request params strictly, with errors that name the field
//! (`filePath: expected a string`) as JSON-RPC InvalidParams.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::jsonrpc::message::{ResponseError, codes};

pub fn invalid(message: impl Into<String>) -> ResponseError {
    ResponseError {
        code: codes::INVALID_PARAMS,
        message: message.into(),
        data: None,
    }
}

/// A request's params: an object, or absent/null read as `{}`.
pub struct Params(Map<String, Value>);

impl Params {
    pub fn new(params: Value) -> Result<Params, ResponseError> {
        match params {
            Value::Object(map) => Ok(Params(map)),
            Value::Null => Ok(Params(Map::new())),
            _ => Err(invalid("params: expected an object")),
        }
    }

    pub fn string(&self, name: &str) -> Result<String, ResponseError> {
        match self.0.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            None => Err(invalid(format!("{name}: missing; expected a string"))),
            Some(_) => Err(invalid(format!("{name}: expected a string"))),
        }
    }

    pub fn strings(&self, name: &str) -> Result<Vec<String>, ResponseError> {
        let wrong = || invalid(format!("{name}: expected an array of strings"));
        match self.0.get(name) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(wrong))
                .collect(),
            None => Err(invalid(format!(
                "{name}: missing; expected an array of strings"
            ))),
            Some(_) => Err(wrong()),
        }
    }

    /// An optional boolean, false when absent or null.
    pub fn flag(&self, name: &str) -> Result<bool, ResponseError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(invalid(format!("{name}: expected a boolean"))),
        }
    }

    /// An optional member deserialized as `T`, or its default.
    pub fn typed<T: DeserializeOwned + Default>(&self, name: &str) -> Result<T, ResponseError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(T::default()),
            Some(v) => {
                serde_json::from_value(v.clone()).map_err(|e| invalid(format!("{name}: {e}")))
            }
        }
    }

    /// A required member deserialized as `T`.
    pub fn required<T: DeserializeOwned>(
        &self,
        name: &str,
        what: &str,
    ) -> Result<T, ResponseError> {
        match self.0.get(name) {
            None => Err(invalid(format!("{name}: missing; expected {what}"))),
            Some(v) => {
                serde_json::from_value(v.clone()).map_err(|e| invalid(format!("{name}: {e}")))
            }
        }
    }
}
