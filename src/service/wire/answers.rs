//! What the methods answer, beyond the engine's own types (`ToolResult`,
//! `CheckReport`, `ServerStatus`), which travel as they are.

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// A diagnostic as the `lsp/*` methods return it: squiggle's `Diagnostic`
/// plus the spec's `character` (equal to `column`), with the message escaped
/// so it can be pasted into a `<diagnostics>` block as is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireDiagnostic {
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
    pub character: u32,
}

impl From<&Diagnostic> for WireDiagnostic {
    fn from(d: &Diagnostic) -> WireDiagnostic {
        let message = quick_xml::escape::partial_escape(&d.message).into_owned();
        WireDiagnostic {
            diagnostic: Diagnostic {
                message,
                ..d.clone()
            },
            character: d.column,
        }
    }
}

/// The result of `squiggle/render`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderReply {
    pub text: String,
}

/// The result of `squiggle/warm`: the files it checks, one per server,
/// relative to the workspace root; with `wait`, how many files the survey
/// remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmReply {
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surveyed: Option<usize>,
}
