//! The one line saying how many diagnostics the reply hid
//! (`2 diagnostics hidden by ignore rules`), so that "not shown" never
//! reads as "not there": ignore rules and acknowledgements
//! (`crate::hidden`) take a diagnostic out of the blocks, never out of
//! the count. Written after everything else, whatever else the reply
//! shows; nothing when nothing was hidden.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many diagnostics a reply hid, by what: the count line's input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HiddenCount {
    #[serde(default)]
    pub rules: usize,
    #[serde(default)]
    pub acknowledged: usize,
}

impl HiddenCount {
    pub fn total(&self) -> usize {
        self.rules + self.acknowledged
    }
}

/// The line, with its line break; `""` when nothing was hidden.
pub fn hidden_line(count: HiddenCount) -> String {
    let total = count.total();
    if total == 0 {
        return String::new();
    }
    let noun = if total == 1 {
        "diagnostic"
    } else {
        "diagnostics"
    };
    let by = match (count.rules, count.acknowledged) {
        (_, 0) => "ignore rules",
        (0, 1) => "an acknowledgement",
        (0, _) => "acknowledgements",
        _ => "ignore rules and acknowledgements",
    };
    format!("{total} {noun} hidden by {by}\n")
}

/// `text` (a rendered reply or listing) with the line after it.
pub fn with_hidden(mut text: String, count: HiddenCount) -> String {
    text.push_str(&hidden_line(count));
    text
}
