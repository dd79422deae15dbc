//! Diagnostics written into the document itself, as `@error(message)` markers.
//!
//! Because the diagnostics come from the text the fake holds, a test controls them by
//! editing the file, and a client that syncs the wrong text gets the wrong diagnostics.
//!
//! Grammar: `@` severity [`#` wave] [`[` code `]`] `(` message `)`, all on one line, where
//! severity is `error|warning|info|hint|nosev|related`, wave is decimal digits, the code
//! runs to the first `]`, and the message runs to the first `)`. `@related(...)` is parsed
//! and ignored. Anything that does not fit the grammar is plain text.

use serde_json::{Map, Value, json};

use crate::position::{Encoding, Position, line_starts, position_in};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// 1..=4, or `None` for `@nosev`.
    pub severity: Option<u8>,
    pub wave: usize,
    pub code: Option<String>,
    pub message: String,
    /// Byte offsets of the `@` and just past the `)`.
    pub start: usize,
    pub end: usize,
}

/// All markers in `text`, in order of appearance.
pub fn parse(text: &str) -> Vec<Marker> {
    let mut markers = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find('@') {
        let at = from + found;
        match parse_one(text, at) {
            Some(Some(marker)) => {
                from = marker.end;
                markers.push(marker);
            }
            Some(None) | None => from = at + 1,
        }
    }
    markers
}

/// Parses a marker starting at the `@` at `at`. `Some(None)` is a valid `@related`.
fn parse_one(text: &str, at: usize) -> Option<Option<Marker>> {
    let rest = &text[at + 1..];
    let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let line = &rest[..line_end];
    let (severity, mut rest) = [
        ("error", Some(1)),
        ("warning", Some(2)),
        ("info", Some(3)),
        ("hint", Some(4)),
        ("nosev", None),
        ("related", None),
    ]
    .iter()
    .find_map(|(word, severity)| {
        line.strip_prefix(word)
            .map(|rest| ((*word, *severity), rest))
    })?;

    let mut wave = 0;
    if let Some(after_hash) = rest.strip_prefix('#') {
        let digits = after_hash.len()
            - after_hash
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if digits == 0 {
            return None;
        }
        wave = after_hash[..digits].parse().ok()?;
        rest = &after_hash[digits..];
    }

    let mut code = None;
    if let Some(after_bracket) = rest.strip_prefix('[') {
        let close = after_bracket.find(']')?;
        code = Some(after_bracket[..close].to_owned());
        rest = &after_bracket[close + 1..];
    }

    let after_paren = rest.strip_prefix('(')?;
    let close = after_paren.find(')')?;
    let message = after_paren[..close].to_owned();
    // `after_paren` is a suffix of `line`, which starts just after the `@`.
    let end = at + 1 + (line.len() - after_paren.len()) + close + 1;
    if severity.0 == "related" {
        return Some(None);
    }
    Some(Some(Marker {
        severity: severity.1,
        wave,
        code,
        message,
        start: at,
        end,
    }))
}

fn range_json(start: Position, end: Position) -> Value {
    json!({
        "start": {"line": start.line, "character": start.character},
        "end": {"line": end.line, "character": end.character},
    })
}

/// The LSP diagnostics visible in wave `wave` (markers whose wave index is at most `wave`).
pub fn diagnostics(text: &str, wave: usize, encoding: Encoding) -> Vec<Value> {
    diagnostics_of_waves(text, 0..=wave, encoding)
}

/// The LSP diagnostics of the markers whose wave index is in `waves`.
pub fn diagnostics_of_waves(
    text: &str,
    waves: impl std::ops::RangeBounds<usize>,
    encoding: Encoding,
) -> Vec<Value> {
    let markers: Vec<Marker> = parse(text)
        .into_iter()
        .filter(|m| waves.contains(&m.wave))
        .collect();
    if markers.is_empty() {
        return Vec::new();
    }
    let starts = line_starts(text);
    markers
        .into_iter()
        .map(|m| {
            let mut d = Map::new();
            let start = position_in(text, &starts, m.start, encoding);
            let end = position_in(text, &starts, m.end, encoding);
            d.insert("range".into(), range_json(start, end));
            if let Some(severity) = m.severity {
                d.insert("severity".into(), json!(severity));
            }
            if let Some(code) = m.code {
                d.insert("code".into(), json!(code));
            }
            d.insert("source".into(), json!("fake"));
            d.insert("message".into(), json!(m.message));
            Value::Object(d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_grammar() {
        let text = "x @error#2[E42](bad 😀 <&>) @nosev(plain) @warn(no) @hint(\nnext";
        let markers = parse(text);
        assert_eq!(markers.len(), 2);
        assert_eq!(markers[0].severity, Some(1));
        assert_eq!(markers[0].wave, 2);
        assert_eq!(markers[0].code.as_deref(), Some("E42"));
        assert_eq!(markers[0].message, "bad 😀 <&>");
        assert_eq!(
            &text[markers[0].start..markers[0].end],
            "@error#2[E42](bad 😀 <&>)"
        );
        assert_eq!(markers[1].severity, None);
        assert_eq!(markers[1].message, "plain");
    }

    #[test]
    fn message_stops_at_line_end_and_related_is_ignored() {
        assert!(parse("@error(open\n)").is_empty());
        assert!(parse("@related(a.rs) @error#(x)").is_empty());
    }

    #[test]
    fn ranges_use_the_encoding() {
        let text = "😀@info(i)";
        let d = diagnostics(text, 0, Encoding::Utf16);
        assert_eq!(d[0]["range"]["start"]["character"], 2);
        assert_eq!(d[0]["range"]["end"]["character"], 10);
        let d = diagnostics(text, 0, Encoding::Utf8);
        assert_eq!(d[0]["range"]["start"]["character"], 4);
    }
}
