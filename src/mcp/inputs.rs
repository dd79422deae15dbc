//! What each MCP tool takes, as Rust types: serde reads the call's
//! arguments into them, and schemars derives the tools' input JSON Schemas
//! from the same types. (An edit tool returns the engine's `ToolResult`,
//! the type `squiggle/edit` answers with; its schema is derived from it.)
//! Apart from `lsp_status`'s empty input, these are not the service's
//! request structs (`service::wire`): MCP tools take workspace paths as
//! `path` and snake_case members, and the write tools have no dry run.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::request::{self, NoFixNamed, Operation, Request};
use crate::navigation::{DEFAULT_MAX_RESULTS, Direction, PositionArgs};

/// A position: `path` with `line` and `column`, or a `symbol` name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PositionInput {
    /// Workspace-relative path (absolute paths inside the workspace are accepted).
    pub path: String,
    /// 1-based line number.
    pub line: Option<u32>,
    /// 1-based column, counted in characters. Not needed with `symbol`.
    pub column: Option<u32>,
    /// Point at this name instead of a column: a whole word on `line`, or,
    /// without `line`, a symbol declared in the file.
    pub symbol: Option<String>,
    /// Cap on listed results (default 50).
    pub max_results: Option<usize>,
}

impl PositionInput {
    pub(super) fn args(&self) -> PositionArgs {
        PositionArgs {
            path: self.path.clone(),
            line: self.line,
            column: self.column,
            symbol: self.symbol.clone(),
        }
    }

    pub(super) fn max(&self) -> usize {
        self.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1)
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ReferencesInput {
    #[serde(flatten)]
    pub at: PositionInput,
    /// Include the declaration itself (default true).
    pub include_declaration: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FileInput {
    /// Workspace-relative path (absolute paths inside the workspace are accepted).
    pub path: String,
    /// Cap on listed results (default 50; 200 for outlines).
    pub max_results: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WorkspaceSymbolsInput {
    /// Name or part of a name to search for.
    pub query: String,
    /// Any file of the language to search (picks the server); optional once a server runs.
    pub path: Option<String>,
    /// Cap on listed results (default 50).
    pub max_results: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DiagnosticsInput {
    /// One file to check now; omit for every file the running servers know.
    pub path: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CallHierarchyInput {
    #[serde(flatten)]
    pub at: PositionInput,
    /// `incoming` (callers, the default) or `outgoing` (callees).
    pub direction: Option<Direction>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CodeActionsInput {
    #[serde(flatten)]
    pub at: PositionInput,
    /// 1-based last line of the range (default: the start line).
    pub end_line: Option<u32>,
    /// 1-based column where the range ends (default: the end of `end_line`).
    pub end_column: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RenameInput {
    #[serde(flatten)]
    pub at: PositionInput,
    /// The new name.
    pub new_name: String,
}

/// `lsp_status` takes nothing: the service's `NoParams`, the one input
/// whose shape the two protocols share.
pub use crate::service::wire::NoParams as StatusInput;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FileContextInput {
    /// Workspace-relative path (absolute paths inside the workspace are accepted).
    pub path: String,
    /// Size budget for the text, in characters (default 6000).
    pub budget: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditFileInput {
    /// File to edit (workspace-relative or absolute inside the workspace).
    pub path: String,
    /// Exact text to replace; must occur once unless `replace_all`.
    pub old_string: String,
    /// Replacement text.
    pub new_string: String,
    /// Replace every occurrence (default false).
    pub replace_all: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WriteFileInput {
    /// File to write (created with its directories if missing).
    pub path: String,
    /// The whole new content.
    pub content: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ApplyFixInput {
    /// The file whose diagnostic to fix.
    pub path: String,
    /// The `fix.id` an edit's answer gave the diagnostic; refused when the
    /// file has changed since.
    pub id: Option<String>,
    /// Else the diagnostic's 1-based line: its server's preferred or only fix.
    pub line: Option<u32>,
    /// With `line`, the diagnostic's 1-based column when the line has several.
    pub column: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ApplyPatchInput {
    /// A unified diff (git style) or a Codex `*** Begin Patch` patch; all or nothing.
    pub patch: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DeleteFileInput {
    /// File to delete (workspace-relative or absolute inside the workspace).
    pub path: String,
}

impl From<DeleteFileInput> for Request {
    fn from(a: DeleteFileInput) -> Request {
        Request::new(
            Operation::Delete {
                path: a.path.into(),
            },
            false,
        )
    }
}

impl From<EditFileInput> for Request {
    fn from(a: EditFileInput) -> Request {
        let operation = Operation::Edit {
            path: a.path.into(),
            old: a.old_string,
            new: a.new_string,
            replace: request::replace(a.replace_all == Some(true)),
        };
        Request::new(operation, false)
    }
}

impl From<WriteFileInput> for Request {
    fn from(a: WriteFileInput) -> Request {
        let operation = Operation::Write {
            path: a.path.into(),
            content: a.content,
        };
        Request::new(operation, false)
    }
}

impl From<ApplyPatchInput> for Request {
    fn from(a: ApplyPatchInput) -> Request {
        Request::new(Operation::Patch { patch: a.patch }, false)
    }
}

impl TryFrom<ApplyFixInput> for Request {
    type Error = NoFixNamed;

    fn try_from(a: ApplyFixInput) -> Result<Request, NoFixNamed> {
        let operation = Operation::Fix {
            path: a.path.into(),
            which: request::which(a.id, a.line, a.column)?,
        };
        Ok(Request::new(operation, false))
    }
}

/// `lsp_impact`: a symbol (`path` with `line`/`column` or `symbol`, which
/// may be a name path such as `Shape.area`), a whole file (`path` alone),
/// or a diff.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactInput {
    /// Workspace-relative path of the file that declares the symbol, or of
    /// the file whose exported symbols are asked about.
    pub path: Option<String>,
    /// 1-based line of the symbol.
    pub line: Option<u32>,
    /// 1-based column, in characters.
    pub column: Option<u32>,
    /// The symbol's name, or a name path (`Class.method`) in `path`.
    pub symbol: Option<String>,
    /// A unified diff (`git diff` output) or Codex patch, already applied:
    /// the symbols it changes and their users.
    pub diff: Option<String>,
}
