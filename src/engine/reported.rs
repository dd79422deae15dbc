//! A diagnostic as a change's structured result carries it: the server's
//! diagnostic, whether the change introduced it, and the fix its server
//! offers. The rendered feedback shows a selection of these (only the new
//! ones in other files; `report = "new"` in the edited file); the
//! structured result keeps them all, so a program reading it can make its
//! own selection.

use std::ops::Deref;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// One diagnostic of a change's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reported {
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
    /// Whether the change introduced it; `false`: it was there before (in
    /// the file's baseline, or reported for an other file before the edit).
    pub new: bool,
    /// The fix its server offers, when it was looked up (the first
    /// `fixLines` errors shown) and the server marks one preferred or
    /// offers exactly one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<FixOffer>,
}

impl Reported {
    pub fn new(diagnostic: Diagnostic, new: bool) -> Reported {
        Reported {
            diagnostic,
            new,
            fix: None,
        }
    }
}

impl Deref for Reported {
    type Target = Diagnostic;

    fn deref(&self) -> &Diagnostic {
        &self.diagnostic
    }
}

/// A fix a server offers for a diagnostic, as a change's result carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FixOffer {
    /// The server's title for it (`Add import from "./lib"`).
    pub title: String,
    /// What `squiggle fix --id` takes: the diagnostic's line and column,
    /// then a digest of the file's text and of the fix.
    pub id: String,
}
