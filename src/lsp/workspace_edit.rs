//! A server's `WorkspaceEdit` read and applied in memory: its text edits per
//! document (from `changes` and `documentChanges` alike) and a text with
//! its edits applied, positions in the server's encoding. Rename previews
//! and quick fixes both go through here; nothing here writes a file.

use lsp_types::Position;
use serde_json::Value;

use super::position::{LineIndex, PositionEncoding};

fn lsp_position(v: &Value) -> Option<Position> {
    Some(Position::new(
        u32::try_from(v.get("line")?.as_u64()?).ok()?,
        u32::try_from(v.get("character")?.as_u64()?).ok()?,
    ))
}

fn lsp_range(v: &Value) -> Option<(Position, Position)> {
    Some((lsp_position(v.get("start")?)?, lsp_position(v.get("end")?)?))
}

/// A WorkspaceEdit's text edits per document URI, from `changes` and
/// `documentChanges` alike, in the order the server listed them.
pub fn edits_per_uri(edit: &Value) -> Vec<(String, Vec<Value>)> {
    let mut per_uri: Vec<(String, Vec<Value>)> = Vec::new();
    let mut push = |u: &str, edits: &[Value]| match per_uri.iter_mut().find(|(k, _)| k == u) {
        Some((_, list)) => list.extend_from_slice(edits),
        None => per_uri.push((u.to_string(), edits.to_vec())),
    };
    if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (u, edits) in changes {
            push(u, edits.as_array().map(Vec::as_slice).unwrap_or_default());
        }
    }
    for change in edit
        .get("documentChanges")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        if let (Some(u), Some(edits)) = (
            change.pointer("/textDocument/uri").and_then(Value::as_str),
            change.get("edits").and_then(Value::as_array),
        ) {
            push(u, edits);
        }
    }
    per_uri
}

/// Applies LSP text edits to `text` in memory; an edit out of order or
/// out of range is skipped.
pub fn apply_edits(text: &str, encoding: PositionEncoding, edits: &[Value]) -> String {
    let index = LineIndex::new(text);
    let mut spans: Vec<(usize, usize, usize, &str)> = edits
        .iter()
        .enumerate()
        .filter_map(|(order, e)| {
            let (start, end) = lsp_range(e.get("range")?)?;
            let new = e.get("newText")?.as_str()?;
            Some((
                index.offset(text, start, encoding),
                index.offset(text, end, encoding),
                order,
                new,
            ))
        })
        .collect();
    // Last first, so earlier offsets stay valid; of two inserts at one
    // place the later is applied first, so they end up in the server's order.
    spans.sort_by_key(|s| std::cmp::Reverse((s.0, s.1, s.2)));
    let mut out = text.to_string();
    for (start, end, _, new) in spans {
        if start <= end && end <= out.len() {
            out.replace_range(start..end, new);
        }
    }
    out
}
