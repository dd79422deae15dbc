//! Navigation requests against the running servers: definition, references,
//! hover, symbols, call hierarchy, signature help, code actions, rename
//! previews. Positions come in as squiggle's 1-based line and column (in
//! characters) or as a `symbol` name, and go out the same way, with paths
//! relative to the workspace. `lsp_types` and raw LSP shapes stay in here;
//! callers (the MCP server) see the small serializable types below and a
//! rendered text.
//!
//! Honesty rules: a request is only sent to a server that declared the
//! capability; a server still indexing is waited for up to the deadline and
//! an empty answer given while it indexes is reported as such, never as "no
//! results".

pub mod diagnostics;
mod edits;
pub mod file_context;
mod info;
mod parse;
mod render;
mod requests;
mod resolve;
mod session;
mod symbols;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use edits::*;
pub use info::*;
pub use render::{render_locations, render_symbols};
pub use requests::*;
pub use session::NavError;
pub use symbols::*;

/// Where a request points: a file and either a 1-based line and column, or a
/// symbol name (on `line` when given, else found through the document's
/// symbols).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct PositionArgs {
    /// Workspace-relative path (an absolute path inside the workspace is accepted).
    pub path: String,
    /// 1-based line.
    #[serde(default)]
    pub line: Option<u32>,
    /// 1-based column in characters. Optional when `symbol` is given.
    #[serde(default)]
    pub column: Option<u32>,
    /// A name to point at instead of a column: a whole word on `line`, or,
    /// without `line`, a symbol declared in the file.
    #[serde(default)]
    pub symbol: Option<String>,
}

/// A place in a file, as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Location {
    /// Workspace-relative path, or the absolute path when outside the workspace.
    pub path: String,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// The source line, trimmed.
    pub text: String,
    /// True when the location is outside the workspace.
    pub outside: bool,
}

/// One symbol of an outline or a workspace search.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Symbol {
    pub name: String,
    /// `class`, `function`, `method`, `variable`, …
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Nesting depth in the outline (0 at top level).
    pub depth: u32,
    /// Where the symbol's name is.
    pub location: Location,
    /// The last line of the symbol's whole range.
    pub end_line: u32,
}
