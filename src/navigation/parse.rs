//! Lenient readers for LSP results: every legal shape (a `Location`, an
//! array of `Location` or `LocationLink`, hierarchical `DocumentSymbol` or
//! flat `SymbolInformation`, hover `MarkupContent` or `MarkedString`s), and
//! nothing lost to one odd field.

use lsp_types::Position;
use serde_json::Value;

pub fn lsp_position(v: &Value) -> Option<Position> {
    Some(Position::new(
        v.get("line")?.as_u64()? as u32,
        v.get("character")?.as_u64()? as u32,
    ))
}

pub fn lsp_range(v: &Value) -> Option<(Position, Position)> {
    Some((lsp_position(v.get("start")?)?, lsp_position(v.get("end")?)?))
}

/// A location as the server sent it.
#[derive(Debug, Clone)]
pub struct RawLocation {
    pub uri: String,
    pub start: Position,
    pub end: Position,
}

fn one_location(v: &Value) -> Option<RawLocation> {
    // LocationLink: the selection range is where the name is.
    if let Some(uri) = v.get("targetUri").and_then(Value::as_str) {
        let range = v
            .get("targetSelectionRange")
            .or_else(|| v.get("targetRange"))?;
        let (start, end) = lsp_range(range)?;
        return Some(RawLocation {
            uri: uri.to_string(),
            start,
            end,
        });
    }
    let uri = v.get("uri")?.as_str()?;
    let (start, end) = lsp_range(v.get("range")?)?;
    Some(RawLocation {
        uri: uri.to_string(),
        start,
        end,
    })
}

/// `Location | Location[] | LocationLink[] | null`.
pub fn locations(v: &Value) -> Vec<RawLocation> {
    match v {
        Value::Array(items) => items.iter().filter_map(one_location).collect(),
        Value::Object(_) => one_location(v).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// A symbol from `documentSymbol` or `workspace/symbol`, flattened.
#[derive(Debug, Clone)]
pub struct RawSymbol {
    pub name: String,
    pub kind: String,
    pub detail: Option<String>,
    pub container: Option<String>,
    pub depth: u32,
    /// Present for `SymbolInformation` / `WorkspaceSymbol`.
    pub uri: Option<String>,
    pub selection_start: Position,
    pub selection_end: Position,
    pub range_end: Position,
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn push_symbol(v: &Value, depth: u32, container: Option<&str>, out: &mut Vec<RawSymbol>) {
    let Some(name) = text_of(v, "name") else {
        return;
    };
    let kind = kind_name(v.get("kind").and_then(Value::as_u64).unwrap_or(0)).to_string();
    let (uri, range, selection) = match v.get("location") {
        // SymbolInformation / WorkspaceSymbol: a location, maybe without range.
        Some(location) => {
            let range = location.get("range").and_then(lsp_range);
            (
                location
                    .get("uri")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                range,
                range,
            )
        }
        None => (
            None,
            v.get("range").and_then(lsp_range),
            v.get("selectionRange").and_then(lsp_range),
        ),
    };
    let zero = Position::new(0, 0);
    let (selection_start, selection_end) = selection.or(range).unwrap_or((zero, zero));
    out.push(RawSymbol {
        kind,
        detail: text_of(v, "detail"),
        container: text_of(v, "containerName").or_else(|| container.map(str::to_string)),
        depth,
        uri,
        selection_start,
        selection_end,
        range_end: range.map_or(selection_end, |r| r.1),
        name: name.clone(),
    });
    if let Some(children) = v.get("children").and_then(Value::as_array) {
        for child in children {
            push_symbol(child, depth + 1, Some(&name), out);
        }
    }
}

/// `DocumentSymbol[] | SymbolInformation[] | WorkspaceSymbol[] | null`, in
/// outline order (parents before children).
pub fn flat_symbols(v: &Value) -> Vec<RawSymbol> {
    let mut out = Vec::new();
    for item in v.as_array().map(Vec::as_slice).unwrap_or_default() {
        push_symbol(item, 0, None, &mut out);
    }
    out
}

/// The LSP `SymbolKind` as a lowercase word.
pub fn kind_name(kind: u64) -> &'static str {
    const NAMES: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum member",
        "struct",
        "event",
        "operator",
        "type parameter",
    ];
    kind.checked_sub(1)
        .and_then(|i| NAMES.get(i as usize))
        .copied()
        .unwrap_or("symbol")
}

/// Hover contents as text: markdown kept, code blocks fenced.
pub fn hover_text(v: &Value) -> String {
    fn one(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Object(o) => {
                let value = o.get("value").and_then(Value::as_str).unwrap_or_default();
                match o.get("language").and_then(Value::as_str) {
                    Some(lang) => format!("```{lang}\n{value}\n```"),
                    None => value.to_string(),
                }
            }
            Value::Array(items) => items
                .iter()
                .map(one)
                .filter(|s| !s.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
            _ => String::new(),
        }
    }
    v.get("contents")
        .map(one)
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locations_accept_every_shape() {
        let loc = json!({"uri": "file:///a", "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}});
        assert_eq!(locations(&loc).len(), 1);
        assert_eq!(locations(&json!([loc, loc])).len(), 2);
        let link = json!([{"targetUri": "file:///b", "targetRange": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}},
            "targetSelectionRange": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 7}}}]);
        let got = locations(&link);
        assert_eq!(
            (got[0].uri.as_str(), got[0].start),
            ("file:///b", Position::new(3, 4))
        );
        assert!(locations(&Value::Null).is_empty());
    }

    #[test]
    fn symbols_flatten_with_depth() {
        let r = |l: u32| json!({"start": {"line": l, "character": 0}, "end": {"line": l + 2, "character": 0}});
        let tree = json!([{"name": "A", "kind": 5, "range": r(0), "selectionRange": r(0),
            "children": [{"name": "m", "kind": 6, "range": r(1), "selectionRange": r(1)}]}]);
        let flat = flat_symbols(&tree);
        assert_eq!(flat.len(), 2);
        assert_eq!(
            (flat[1].name.as_str(), flat[1].kind.as_str(), flat[1].depth),
            ("m", "method", 1)
        );
        assert_eq!(flat[1].container.as_deref(), Some("A"));
    }

    #[test]
    fn hover_joins_marked_strings() {
        let v = json!({"contents": [{"language": "python", "value": "def f()"}, "Docs."]});
        assert_eq!(hover_text(&v), "```python\ndef f()\n```\n\nDocs.");
        let v = json!({"contents": {"kind": "markdown", "value": "**x**"}});
        assert_eq!(hover_text(&v), "**x**");
    }
}
