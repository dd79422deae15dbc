//! Why a method gave no answer. Handlers return a [`Failure`]; the one
//! place that turns it into the JSON-RPC error is `methods::respond`, which
//! knows the method: no method builds its `ResponseError` itself. (Errors
//! of the connection — bad frames, unknown methods, a handler that panicked
//! — are the connection's, `service::connection`.)

use serde_json::Value;

use crate::engine::request::NoFixNamed;
use crate::engine::tools::ToolError;
use crate::jsonrpc::message::{ResponseError, codes};
use crate::service::wire::NotOneOfFilePaths;

/// The error code of a refused mutation (`squiggle/edit` and friends).
pub const REFUSED: i64 = -32001;

/// Why a method gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The params do not fit the method (InvalidParams), and what is wrong
    /// (`filePath: expected a string`).
    Params(String),
    /// The engine refused the mutation and wrote nothing ([`REFUSED`]).
    Refused(String),
}

impl Failure {
    /// What the error says.
    pub fn message(&self) -> &str {
        match self {
            Failure::Params(message) | Failure::Refused(message) => message,
        }
    }

    pub(super) fn code(&self) -> i64 {
        match self {
            Failure::Params(_) => codes::INVALID_PARAMS,
            Failure::Refused(_) => REFUSED,
        }
    }
}

impl From<ToolError> for Failure {
    fn from(e: ToolError) -> Failure {
        Failure::Refused(e.to_string())
    }
}

impl From<NoFixNamed> for Failure {
    fn from(e: NoFixNamed) -> Failure {
        Failure::Params(e.to_string())
    }
}

impl From<NotOneOfFilePaths> for Failure {
    fn from(e: NotOneOfFilePaths) -> Failure {
        Failure::Params(e.to_string())
    }
}

impl From<std::convert::Infallible> for Failure {
    fn from(never: std::convert::Infallible) -> Failure {
        match never {}
    }
}

/// A method's reply on the wire.
pub type Reply = Result<Value, ResponseError>;
