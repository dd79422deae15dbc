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

/// Whether `edits` are all plain text edits squiggle applies as they are:
/// a range and a `newText` string each. An LSP 3.18 snippet edit (a
/// `snippet` with `$1`-style placeholders for an editor to fill in) is
/// refused, never written with its placeholders nor left out of a fix
/// whose other edits would then apply without it; squiggle does not
/// advertise `snippetEditSupport`, so a server should send none.
pub fn plain_text_edits(edits: &[Value]) -> Result<(), String> {
    for e in edits {
        if e.get("snippet").is_some() {
            return Err(
                "the fix is a snippet edit (placeholders for an editor to fill in, \
                        like $1), which squiggle does not apply; apply it by hand"
                    .into(),
            );
        }
        if e.get("range").and_then(lsp_range).is_none()
            || !e.get("newText").is_some_and(Value::is_string)
        {
            return Err(format!("the fix holds an edit squiggle cannot read: {e}"));
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::plain_text_edits;

    #[test]
    fn snippet_and_unreadable_edits_are_refused_and_plain_ones_pass() {
        let range =
            json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}});
        let plain = json!({"range": range, "newText": "x"});
        let annotated = json!({"range": range, "newText": "x", "annotationId": "a"});
        assert_eq!(plain_text_edits(&[plain.clone(), annotated]), Ok(()));
        let snippet = json!({"range": range, "snippet": {"kind": "snippet", "value": "f($1)"}});
        let refused = plain_text_edits(&[plain.clone(), snippet])
            .err()
            .unwrap_or_default();
        assert!(refused.contains("snippet edit"), "{refused}");
        let no_text = json!({"range": range});
        let refused = plain_text_edits(&[plain, no_text])
            .err()
            .unwrap_or_default();
        assert!(refused.contains("cannot read"), "{refused}");
    }
}
