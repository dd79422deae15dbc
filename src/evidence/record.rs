//! One line of the evidence log. Four kinds: `change` — every mutation and
//! every check after one, on every surface —, `diagnostic_regression`,
//! written right after a `change` whose files gained errors,
//! `acknowledgement`, a diagnostic declared a false positive (or that
//! declaration removed), and `delivery`, whether a block a hook handed to
//! its host reached the model. The shapes
//! are fixed by a JSON schema (`docs/protocol.md`, "Evidence log"), which
//! a test compares with the one these types derive. File contents never
//! appear; diagnostic messages only with `messages = true`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::origin::Surface;
use crate::baseline::Classification;
use crate::config::Mutation;

/// The record format's version: a reader skips a line of a version it
/// does not know.
pub const VERSION: u32 = 1;

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    Change(Change),
    DiagnosticRegression(Regression),
    Acknowledgement(Acknowledgement),
    Delivery(Delivery),
}

/// What every record starts with: when, where and who.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Head {
    /// [`VERSION`].
    pub v: u32,
    /// RFC 3339, UTC, milliseconds.
    pub time: String,
    /// The workspace root, absolute.
    pub workspace: String,
    pub surface: Surface,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The tool, method or command (`edit_file`, `squiggle/check`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl Head {
    /// Whether the origin is a listing rather than a change: the `check`
    /// command, which reads what the servers say of files nobody changed.
    /// A listing writes no record.
    pub fn is_listing(&self) -> bool {
        self.surface == Surface::Cli && self.tool.as_deref() == Some("check")
    }
}

/// A mutation and its check (or a check after an agent's own mutation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    #[serde(flatten)]
    pub head: Head,
    /// `write` (a whole file) or `edit` (anything else).
    pub mutation: Mutation,
    /// Checked without being written (a dry run, a session's evaluation).
    pub dry_run: bool,
    /// The touched files, then the other files the check waited on.
    pub files: Vec<FileEvidence>,
    /// Each server asked, once per outcome it had.
    pub servers: Vec<ServerEvidence>,
    /// Errors in the touched files before the change; `null` when the
    /// "before" of some touched file was not known.
    pub errors_before: Option<usize>,
    /// Errors in the touched and other files after it.
    pub errors_after: usize,
    /// Errors the change introduced (touched and other files).
    pub new_errors: usize,
    /// The verdict the feedback carried.
    pub result: Classification,
    /// Every error and warning after the change: only with
    /// `[lsp.evidence] messages = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
}

/// One file of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileEvidence {
    /// Workspace-relative (`/`-separated), or absolute when outside.
    pub path: String,
    /// A file the change did not touch: one that imports a touched file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub other: bool,
    /// The change created the file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
    /// sha256 of the text before, hex; absent when created or not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_before: Option<String>,
    /// sha256 of the text checked, hex; absent when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_after: Option<String>,
    /// Errors before (`null`: not known).
    pub errors_before: Option<usize>,
    pub errors_after: usize,
    /// Errors the change introduced here.
    pub new_errors: usize,
}

/// How one server's waits ended for some of a change's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServerEvidence {
    pub id: String,
    /// As the server reported it at initialize (`serverInfo.version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub outcome: ServerOutcomeKind,
    /// For how many files it ended so.
    pub files: usize,
}

/// A server's outcome, as the evidence log names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ServerOutcomeKind {
    /// Diagnostics for the version checked (pulled, or pushed and settled).
    Answered,
    /// The deadline passed first.
    TimedOut,
    /// The server died, or its stream closed.
    Error,
    /// Not running: not installed, broken, untrusted, or held back (strict).
    NotStarted,
}

/// New errors after a change, file by file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Regression {
    #[serde(flatten)]
    pub head: Head,
    /// Dry run: the errors were never written.
    pub dry_run: bool,
    pub files: Vec<RegressedFile>,
    /// The new errors: only with `messages = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
}

/// A file that gained errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RegressedFile {
    pub path: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub other: bool,
    /// sha256 of the text with the new errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub new_errors: usize,
    /// 1-based lines of the new errors.
    pub lines: Vec<u32>,
}

/// A diagnostic acknowledged as a false positive (`squiggle ack`,
/// `lsp_acknowledge`), or such an acknowledgement removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Acknowledgement {
    #[serde(flatten)]
    pub head: Head,
    pub path: String,
    /// The 1-based line it was on.
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub server: String,
    /// Why it is a false positive, as given.
    pub reason: String,
    /// The acknowledgement was removed rather than made.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
    /// The diagnostic's message: only with `messages = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Whether a block a hook handed over reached the model, as the host's
/// own record of the conversation showed on a later event of the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Delivery {
    #[serde(flatten)]
    pub head: Head,
    /// The host's session id.
    pub session: String,
    pub delivered: Delivered,
    /// The session reports through the host's next channel from now on
    /// (a block was not delivered).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
}

/// A verdict on one block: in the host's record (`yes`), missing from it
/// after the model was asked again (`no`), or not readable (`unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivered {
    Yes,
    No,
    Unknown,
}

/// A diagnostic, recorded only when asked for (`messages = true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// `error`, `warning`, `info`, `hint`.
    pub severity: String,
    pub server: String,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::Record;

    /// The schema `docs/protocol.md` documents (the ```json block after
    /// `<!-- evidence-schema -->`) is the one these types derive: a change
    /// to a record fails here until the documentation says it.
    #[test]
    fn the_documented_schema_is_the_records_schema() {
        let derived = serde_json::to_value(schemars::schema_for!(Record)).unwrap_or_default();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let documented = text
            .split_once("<!-- evidence-schema -->")
            .and_then(|(_, rest)| rest.split_once("```json"))
            .and_then(|(_, rest)| rest.split_once("```"))
            .and_then(|(block, _)| serde_json::from_str::<serde_json::Value>(block).ok());
        assert_eq!(
            documented.as_ref(),
            Some(&derived),
            "docs/protocol.md should document:\n{}",
            serde_json::to_string_pretty(&derived).unwrap_or_default()
        );
    }
}
