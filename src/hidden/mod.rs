//! What the model is not shown, and why: diagnostics matched by an ignore
//! rule (`config::ignore`) or acknowledged as false positives
//! ([`acks`]). [`Hider`] splits a file's diagnostics into those shown and
//! those hidden; the engine runs it once over a check's report
//! (`Engine::hide_ignored`), so every surface reads the same split. A
//! hidden diagnostic is never gone: it is counted in the reply (one line,
//! `render::hidden`) and kept in structured results as a [`Hidden`] with
//! `ignored: true`, and it never counts as an error.

pub mod acks;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::IgnoreRule;
use crate::config::ignore::CompiledRule;
use crate::diagnostic::Diagnostic;
pub use acks::{Ack, AckStore};

/// A diagnostic hidden from the model, as structured results carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hidden {
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
    /// Always `true`: the model was not shown it.
    pub ignored: bool,
    /// The reason given when it was acknowledged as a false positive;
    /// absent when an ignore rule hid it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acknowledged: Option<String>,
}

impl Hidden {
    pub fn by_rule(diagnostic: Diagnostic) -> Hidden {
        Hidden {
            diagnostic,
            ignored: true,
            acknowledged: None,
        }
    }
}

pub use crate::render::HiddenCount;

/// The hidden diagnostics of a severity in `include` (what the reply
/// would have shown), by what hid them.
pub fn count_of<'a>(
    hidden: impl IntoIterator<Item = &'a Hidden>,
    include: &[crate::diagnostic::Severity],
) -> HiddenCount {
    let mut count = HiddenCount::default();
    for h in hidden {
        if !include.contains(&h.diagnostic.severity) {
            continue;
        }
        match h.acknowledged {
            Some(_) => count.acknowledged += 1,
            None => count.rules += 1,
        }
    }
    count
}

/// The configuration's rules, compiled once per configuration (an
/// engine holds them; a reload builds new ones).
pub fn compile(rules: &[IgnoreRule]) -> Arc<[CompiledRule]> {
    rules.iter().filter_map(CompiledRule::new).collect()
}

/// The rules and acknowledgements one check is split by.
pub struct Hider {
    rules: Arc<[CompiledRule]>,
    acks: Vec<Ack>,
}

impl Hider {
    pub fn new(rules: Arc<[CompiledRule]>, acks: Vec<Ack>) -> Hider {
        Hider { rules, acks }
    }

    /// Whether nothing can be hidden.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.acks.is_empty()
    }

    /// Whether some acknowledgement is about `file` (its text is then
    /// needed to split its diagnostics).
    pub fn acknowledges(&self, file: &str) -> bool {
        self.acks.iter().any(|a| a.file == file)
    }

    /// One file's `diagnostics` split into those shown and those hidden;
    /// `text` is the text they were reported for (acknowledgements hold
    /// only while their line reads the same). Its lines are found once,
    /// and only when an acknowledgement is about the file.
    pub fn split(
        &self,
        diagnostics: Vec<Diagnostic>,
        text: Option<&str>,
    ) -> (Vec<Diagnostic>, Vec<Hidden>) {
        let mut shown = Vec::with_capacity(diagnostics.len());
        let mut hidden = Vec::new();
        let mut lines: Option<Vec<&str>> = None;
        // Which rules' paths the file matches, for the file last seen.
        let mut paths: Option<(String, Vec<bool>)> = None;
        for d in diagnostics {
            if paths.as_ref().is_none_or(|(file, _)| *file != d.file) {
                let each = self.rules.iter().map(|r| r.matches_path(&d.file)).collect();
                paths = Some((d.file.clone(), each));
            }
            let path_matches = paths.as_ref().map_or(&[][..], |(_, m)| m.as_slice());
            let by_rule = self
                .rules
                .iter()
                .zip(path_matches)
                .any(|(r, path)| *path && r.matches_but_path(&d));
            if by_rule {
                hidden.push(Hidden::by_rule(d));
                continue;
            }
            let mut about = self.acks.iter().filter(|a| a.file == d.file).peekable();
            let ack = match (about.peek(), text) {
                (Some(_), Some(text)) => {
                    let lines = lines.get_or_insert_with(|| acks::lines(text));
                    let line = (d.line as usize).checked_sub(1).and_then(|i| lines.get(i));
                    line.and_then(|line| about.find(|a| a.holds_for(&d, line)))
                }
                _ => None,
            };
            match ack {
                Some(ack) => hidden.push(Hidden {
                    ignored: true,
                    acknowledged: Some(ack.reason.clone()),
                    diagnostic: d,
                }),
                None => shown.push(d),
            }
        }
        (shown, hidden)
    }
}
