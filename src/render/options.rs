//! What a rendering is given: the caps and filters (`RenderOptions`, which
//! every surface builds from the configuration or the wire) and the files'
//! diagnostics (`FileDiagnostics`). Plain data, shared by the renderers.

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Severity};

/// Caps and filters for one rendering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderOptions {
    /// Diagnostic entries shown per file before `... and N more`.
    pub max_per_file: usize,
    /// Blocks shown for files other than the edited ones.
    pub max_other_files: usize,
    /// Diagnostic entries shown in all.
    pub max_lines: usize,
    /// Severities shown; others are dropped before any cap is applied.
    pub include: Vec<Severity>,
    pub report: ReportMode,
    /// Add one line after the blocks naming each server that had not
    /// finished (or had stopped) when the answer was given.
    pub report_unknown: bool,
    /// How messages are escaped.
    pub escape: Escape,
    /// The most characters of a whole reply (`render_reply`), cut at a line
    /// boundary; `None`: no cap. Set per request by the hooks (an agent's
    /// context takes so much), never by the configuration.
    pub max_chars: Option<usize>,
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions {
            max_per_file: 20,
            max_other_files: 5,
            max_lines: 50,
            include: vec![Severity::Error],
            report: ReportMode::All,
            report_unknown: true,
            escape: Escape::Xml,
            max_chars: None,
        }
    }
}

/// Options one request sets over the configured ones (the service's
/// `options`, a hook's caps): a missing member takes the configured value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "RenderOptions")]
pub struct RenderOverrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_per_file: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_other_files: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<Severity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportMode>,
    /// `xml` (the default), or `readable` for a channel that does no
    /// escaping of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escape: Option<Escape>,
    /// Cut the whole answer to this many characters, at a line boundary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
}

impl RenderOverrides {
    pub fn is_unset(&self) -> bool {
        *self == RenderOverrides::default()
    }

    /// These options over `base`.
    pub fn over(self, base: RenderOptions) -> RenderOptions {
        RenderOptions {
            max_per_file: self.max_per_file.unwrap_or(base.max_per_file),
            max_other_files: self.max_other_files.unwrap_or(base.max_other_files),
            max_lines: self.max_lines.unwrap_or(base.max_lines),
            include: self.include.unwrap_or(base.include),
            report: self.report.unwrap_or(base.report),
            report_unknown: base.report_unknown,
            escape: self.escape.unwrap_or(base.escape),
            max_chars: self.max_chars.or(base.max_chars),
        }
    }
}

/// Which of the edited file's diagnostics to report.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReportMode {
    /// Everything the servers report.
    #[default]
    All,
    /// Only what the edit introduced; pre-existing errors are counted.
    New,
}

/// How a rendering escapes what servers wrote (messages and codes).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Escape {
    /// `<`, `>` and `&` as XML entities, so that nothing a server wrote can
    /// open or close a `<diagnostics>` block.
    #[default]
    Xml,
    /// For a channel that does no escaping of its own and is read as plain
    /// text (Gemini CLI's BeforeModel hand-over): messages keep their own
    /// characters (`Array<string>`, `a & b`), and only a `<diagnostics` or
    /// `</diagnostics` inside one is escaped, so the block stays delimited.
    Readable,
}

/// One file's diagnostics, as handed to the renderer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileDiagnostics {
    /// Workspace-relative path, shown as given.
    pub file: String,
    /// In any order, possibly with cross-server duplicates.
    pub diagnostics: Vec<Diagnostic>,
    /// Used by [`ReportMode::New`]: pre-existing diagnostics left out of
    /// `diagnostics`.
    pub baseline_hidden: usize,
    /// Fixes the servers offer for some of `diagnostics`, each shown under
    /// its diagnostic.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<FixNote>,
}

/// A fix a server offers for one diagnostic, shown under it as
/// `  fix: TITLE`; the diagnostic is named by its position and message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixNote {
    pub line: u32,
    pub column: u32,
    pub message: String,
    pub title: String,
}

impl FixNote {
    /// Whether this is the fix for `d`.
    pub fn is_for(&self, d: &Diagnostic) -> bool {
        self.line == d.line && self.column == d.column && self.message == d.message
    }
}
