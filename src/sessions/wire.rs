//! What a session takes, one shape for every surface: the service's
//! methods and the MCP tools read their own inputs (camelCase there,
//! snake_case here) into [`Edit`]. What it answers is the engine's
//! (`engine::speculative::answers`): its answers carry a change's result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One change to a session's text: an exact replacement, a whole file, or
/// a patch over the session's files (no deletes or renames).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Replace {
        path: String,
        old: String,
        new: String,
        all: bool,
    },
    Write {
        path: String,
        content: String,
    },
    Patch {
        patch: String,
    },
}

/// One file of a session, as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionFile {
    /// Workspace-relative.
    pub path: String,
    /// Its text differs from the disk's when the session opened.
    pub changed: bool,
    /// It did not exist on disk when the session opened.
    pub created: bool,
    /// Bytes of its text in the session.
    pub bytes: usize,
}
