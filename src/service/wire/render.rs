//! What `squiggle/render` takes: files and their diagnostics, rendered
//! with no server touched.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::requests::nullable;
use crate::diagnostic::Diagnostic;
use crate::render::{FileDiagnostics, RenderOverrides};

/// `squiggle/render`: pure, no server is touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenderParams {
    /// The files as edited files ("please fix").
    pub edited: Vec<WireFileDiagnostics>,
    /// Other files, after the edited ones.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub others: Vec<WireFileDiagnostics>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "RenderOverrides::is_unset"
    )]
    pub options: RenderOverrides,
}

/// One file handed to `squiggle/render`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "File")]
pub struct WireFileDiagnostics {
    pub file: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub diagnostics: Vec<Diagnostic>,
    /// With `report: "new"`: pre-existing errors left out of `diagnostics`.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_zero"
    )]
    pub baseline_hidden: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl From<WireFileDiagnostics> for FileDiagnostics {
    fn from(f: WireFileDiagnostics) -> FileDiagnostics {
        FileDiagnostics {
            file: f.file,
            diagnostics: f.diagnostics,
            baseline_hidden: f.baseline_hidden,
            fixes: Vec::new(),
        }
    }
}
