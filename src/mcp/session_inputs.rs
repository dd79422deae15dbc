//! The speculative-session tools' inputs (`session_*`): snake_case,
//! workspace paths, as the edit tools take them; each edit read into the
//! engine's `sessions::Edit`. Apart from the dispatch (`mcp::sessions`) so
//! that the tool table can name them without naming the dispatch.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::request;
use crate::sessions::Edit;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionOpenInput {
    /// Every file the change may touch (workspace-relative); a file that
    /// does not exist yet may be created in the session.
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionInput {
    /// The session's id, as `session_open` answered it.
    pub session: String,
}

/// One edit of a session: `path` + `old_string` + `new_string` (an exact
/// replacement, as `edit_file`), `path` + `content` (a whole file, as
/// `write_file`), or `patch` (a unified diff or Codex patch over the
/// session's files, as `apply_patch`; no deletes or renames).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionEditInput {
    pub path: Option<String>,
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    /// Replace every occurrence of `old_string` (default false).
    pub replace_all: Option<bool>,
    pub content: Option<String>,
    pub patch: Option<String>,
}

impl SessionEditInput {
    pub(super) fn edit(self) -> Result<Edit, String> {
        let Self {
            path,
            old_string,
            new_string,
            replace_all,
            content,
            patch,
        } = self;
        request::session_edit(path, old_string, new_string, replace_all, content, patch).ok_or_else(
            || {
                "an edit is {path, old_string, new_string[, replace_all]}, {path, content} or {patch}"
                    .into()
            },
        )
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionEditsInput {
    pub session: String,
    /// Applied in order, all or none.
    pub edits: Vec<SessionEditInput>,
    /// Evaluate after applying (default true).
    pub evaluate: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionChainInput {
    pub session: String,
    /// Each edit is one step, evaluated after it is applied.
    pub edits: Vec<SessionEditInput>,
    /// Stop after the first step that adds errors (default true).
    pub stop_on_new_errors: Option<bool>,
}
