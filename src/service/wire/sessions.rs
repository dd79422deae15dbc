//! The speculative sessions' params (`squiggle/session*`), camelCase as
//! every service method's; their answers are the sessions' own types
//! (`crate::sessions::wire`), as MCP's `session_*` tools answer them.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::request;
use crate::sessions::Edit;

/// `squiggle/sessionOpen`: the files the change may touch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionOpenParams {
    /// Relative to the workspace root, or absolute inside it; a file that
    /// does not exist yet may be created in the session.
    pub paths: Vec<PathBuf>,
}

/// The methods that name only a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionParams {
    pub session: String,
}

/// One edit: `filePath` + `oldString` + `newString` (+ `replaceAll`),
/// `filePath` + `content`, or `patch`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WireEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_string: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_string: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_all: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
}

impl WireEdit {
    /// The edit it describes, or what shapes an edit may have.
    pub fn edit(&self) -> Result<Edit, String> {
        let path = self.file_path.as_ref().map(|p| p.display().to_string());
        let (old, new) = (self.old_string.clone(), self.new_string.clone());
        let (content, patch) = (self.content.clone(), self.patch.clone());
        request::session_edit(path, old, new, self.replace_all, content, patch).ok_or_else(|| {
            "an edit is {filePath, oldString, newString[, replaceAll]}, {filePath, content} or {patch}"
                .into()
        })
    }
}

/// `squiggle/sessionEdit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionEditParams {
    pub session: String,
    /// Applied in order, all or none.
    pub edits: Vec<WireEdit>,
    /// Evaluate after applying (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluate: Option<bool>,
}

/// `squiggle/sessionChain`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionChainParams {
    pub session: String,
    /// One step each, evaluated after it is applied.
    pub edits: Vec<WireEdit>,
    /// Stop after the first step that adds errors (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_on_new_errors: Option<bool>,
}
