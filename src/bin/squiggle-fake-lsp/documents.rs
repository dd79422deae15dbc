//! The fake's copy of every open document, kept in step with the client's didOpen/didChange.
//!
//! Diagnostics are computed from this copy, so if the client's document sync is wrong the
//! diagnostics come out wrong (or clamping gets logged), and tests see it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::position::{Encoding, Position, line_starts, offset_in};

#[derive(Debug, Clone)]
pub struct Document {
    pub version: i64,
    pub text: String,
}

/// Open documents by URI, in a stable order so multi-file publishes are deterministic.
#[derive(Debug, Default)]
pub struct Documents {
    docs: BTreeMap<String, Document>,
}

/// A change that did not fit the document and was clamped, for the log.
#[derive(Debug)]
pub struct Clamp {
    pub change_index: usize,
    pub range: Value,
}

impl Documents {
    pub fn open(&mut self, uri: String, doc: Document) {
        self.docs.insert(uri, doc);
    }

    pub fn close(&mut self, uri: &str) -> Option<Document> {
        self.docs.remove(uri)
    }

    pub fn get(&self, uri: &str) -> Option<&Document> {
        self.docs.get(uri)
    }

    pub fn uris(&self) -> Vec<String> {
        self.docs.keys().cloned().collect()
    }

    /// Applies didChange content changes in order. Returns the changes that had to be
    /// clamped; `None` if the document is not open.
    pub fn change(
        &mut self,
        uri: &str,
        version: i64,
        changes: &[Value],
        encoding: Encoding,
    ) -> Option<Vec<Clamp>> {
        let doc = self.docs.get_mut(uri)?;
        let mut clamps = Vec::new();
        for (change_index, change) in changes.iter().enumerate() {
            let text = change.get("text").and_then(Value::as_str).unwrap_or("");
            let Some(range) = change.get("range").filter(|r| !r.is_null()) else {
                doc.text = text.to_owned();
                continue;
            };
            let starts = line_starts(&doc.text);
            let start = offset_in(
                &doc.text,
                &starts,
                parse_position(&range["start"]),
                encoding,
            );
            let end = offset_in(&doc.text, &starts, parse_position(&range["end"]), encoding);
            if start.clamped || end.clamped || start.offset > end.offset {
                clamps.push(Clamp {
                    change_index,
                    range: range.clone(),
                });
            }
            let (from, to) = (start.offset.min(end.offset), end.offset.max(start.offset));
            doc.text.replace_range(from..to, text);
        }
        doc.version = version;
        Some(clamps)
    }
}

/// Reads an LSP position leniently: missing or negative numbers count as 0.
pub fn parse_position(value: &Value) -> Position {
    let field = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
    let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    Position {
        line: clamp(field("line")),
        character: clamp(field("character")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn docs_with(text: &str) -> Documents {
        let mut docs = Documents::default();
        let doc = Document {
            version: 1,
            text: text.into(),
        };
        docs.open("file:///a".into(), doc);
        docs
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut docs = docs_with("😀 ab\ncd");
        let changes = [
            json!({"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 4}}, "text": "X"}),
            json!({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "é"}),
        ];
        let clamps = docs
            .change("file:///a", 2, &changes, Encoding::Utf16)
            .unwrap();
        assert!(clamps.is_empty());
        assert_eq!(docs.get("file:///a").unwrap().text, "😀 Xb\nécd");
        assert_eq!(docs.get("file:///a").unwrap().version, 2);
    }

    #[test]
    fn out_of_range_change_is_clamped_and_reported() {
        let mut docs = docs_with("ab");
        let changes = [
            json!({"range": {"start": {"line": 0, "character": 1}, "end": {"line": 3, "character": 0}}, "text": "!"}),
        ];
        let clamps = docs
            .change("file:///a", 2, &changes, Encoding::Utf8)
            .unwrap();
        assert_eq!(clamps.len(), 1);
        assert_eq!(docs.get("file:///a").unwrap().text, "a!");
    }
}
