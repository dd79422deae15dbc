//! From the model's position (1-based line and column in characters, or a
//! symbol name) to an LSP position in the server's encoding, and back.

use lsp_types::Position;
use serde_json::Value;

use super::parse::flat_symbols;
use super::session::{NavError, Session};
use super::{Location, PositionArgs};
use crate::lsp::position::{LineIndex, PositionEncoding, line_starts};

/// Byte range of 0-based `line`'s content (without its terminator).
pub fn line_span(text: &str, starts: &[usize], line: usize) -> Option<(usize, usize)> {
    let start = *starts.get(line)?;
    let end = starts.get(line + 1).copied().unwrap_or(text.len());
    let content = text[start..end].trim_end_matches(['\n', '\r']);
    Some((start, start + content.len()))
}

/// The text of 1-based `line`, trimmed.
pub fn line_text(text: &str, line: u32) -> String {
    let starts = line_starts(text);
    line_span(text, &starts, line.saturating_sub(1) as usize)
        .map(|(s, e)| text[s..e].trim().to_string())
        .unwrap_or_default()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Byte offsets of whole-word occurrences of `word` in `hay`.
pub fn whole_words(hay: &str, word: &str) -> Vec<usize> {
    if word.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (at, _) in hay.match_indices(word) {
        let before = hay[..at].chars().next_back();
        let after = hay[at + word.len()..].chars().next();
        let bounded = |c: Option<char>, edge: Option<char>| match (c, edge) {
            (Some(c), Some(e)) => !(is_word(c) && is_word(e)),
            _ => true,
        };
        if bounded(before, word.chars().next()) && bounded(after, word.chars().next_back()) {
            found.push(at);
        }
    }
    found
}

/// 1-based (line, column in characters) of a byte offset.
fn one_based(text: &str, starts: &[usize], offset: usize) -> (u32, u32) {
    let line = starts.partition_point(|&s| s <= offset) - 1;
    let column = text[starts[line]..offset].chars().count() + 1;
    (line as u32 + 1, column as u32)
}

/// Byte offset of a 1-based (line, column); errors past the end of the file.
fn offset_of(text: &str, starts: &[usize], line: u32, column: u32) -> Result<usize, NavError> {
    let Some((start, end)) = line_span(text, starts, line.saturating_sub(1) as usize) else {
        return Err(NavError(format!(
            "line {line} is past the end of the file ({} lines)",
            starts.len()
        )));
    };
    if line == 0 || column == 0 {
        return Err(NavError::new("line and column are 1-based"));
    }
    let content = &text[start..end];
    let skip = column as usize - 1;
    match content.char_indices().nth(skip) {
        Some((i, _)) => Ok(start + i),
        None if skip == content.chars().count() => Ok(end),
        None => Err(NavError(format!(
            "column {column} is past the end of line {line} ({} characters)",
            content.chars().count()
        ))),
    }
}

impl Session {
    /// The LSP position the model meant.
    pub async fn position(&self, args: &PositionArgs) -> Result<Position, NavError> {
        let text = &*self.text;
        let starts = line_starts(text);
        let offset = match (&args.symbol, args.line, args.column) {
            (Some(symbol), Some(line), column) => {
                let (start, end) = line_span(text, &starts, line.saturating_sub(1) as usize)
                    .filter(|_| line > 0)
                    .ok_or_else(|| NavError(format!("line {line} is past the end of the file")))?;
                let hits: Vec<usize> = whole_words(&text[start..end], symbol)
                    .into_iter()
                    .map(|o| start + o)
                    .collect();
                match hits.as_slice() {
                    [] => {
                        return Err(NavError(format!(
                            "`{symbol}` does not occur as a whole word on line {line}: {}",
                            text[start..end].trim()
                        )));
                    }
                    [one] => *one,
                    many => match column {
                        // A column picks among several occurrences.
                        Some(c) => {
                            let wanted = offset_of(text, &starts, line, c)?;
                            *many
                                .iter()
                                .find(|&&o| o <= wanted && wanted < o + symbol.len())
                                .unwrap_or(&many[0])
                        }
                        None => {
                            let columns: Vec<String> = many
                                .iter()
                                .map(|&o| one_based(text, &starts, o).1.to_string())
                                .collect();
                            return Err(NavError(format!(
                                "`{symbol}` occurs {} times on line {line} (columns {}); give `column` to pick one",
                                many.len(),
                                columns.join(", ")
                            )));
                        }
                    },
                }
            }
            (Some(symbol), None, _) => return self.symbol_position(symbol).await,
            (None, Some(line), Some(column)) => offset_of(text, &starts, line, column)?,
            (None, Some(_), None) => {
                return Err(NavError::new("give `column` or `symbol` along with `line`"));
            }
            (None, None, _) => return Err(NavError::new("give `line` and `column`, or `symbol`")),
        };
        Ok(self.index.position(text, offset, self.encoding))
    }

    /// A symbol named `name` declared in the file, else its only whole-word
    /// occurrence in the text.
    async fn symbol_position(&self, name: &str) -> Result<Position, NavError> {
        let text = &*self.text;
        let mut declared: Vec<(Position, String)> = Vec::new();
        if self
            .client
            .facts()
            .is_some_and(|f| f.declares("documentSymbolProvider"))
        {
            let result = self
                .request("textDocument/documentSymbol", self.params())
                .await
                .unwrap_or(Value::Null);
            for symbol in flat_symbols(&result) {
                if symbol.name == name || symbol.name.strip_suffix("()") == Some(name) {
                    declared.push((symbol.selection_start, symbol.kind.clone()));
                }
            }
        }
        match declared.as_slice() {
            [(pos, _)] => return Ok(*pos),
            [] => {}
            many => {
                let lines: Vec<String> = many
                    .iter()
                    .map(|(p, kind)| {
                        let (line, col) = self.index.to_one_based(text, *p, self.encoding);
                        format!("{kind} at {line}:{col}")
                    })
                    .collect();
                return Err(NavError(format!(
                    "`{name}` is ambiguous in {}: {}; give `line` to pick one",
                    self.relative,
                    lines.join(", ")
                )));
            }
        }
        let starts = line_starts(text);
        let hits = whole_words(text, name);
        match hits.as_slice() {
            [] => Err(NavError(format!(
                "`{name}` does not occur in {}",
                self.relative
            ))),
            [one] => Ok(self.index.position(text, *one, self.encoding)),
            many => {
                let mut lines: Vec<u32> = many
                    .iter()
                    .map(|&o| one_based(text, &starts, o).0)
                    .collect();
                lines.dedup();
                let shown: Vec<String> = lines.iter().take(20).map(u32::to_string).collect();
                Err(NavError(format!(
                    "`{name}` is not declared in {} and occurs {} times (lines {}); give `line` to pick one",
                    self.relative,
                    many.len(),
                    shown.join(", ")
                )))
            }
        }
    }

    /// A location in this session's file.
    pub fn here(&self, start: Position, end: Position) -> Location {
        to_location(
            &self.relative,
            false,
            &self.text,
            &self.index,
            self.encoding,
            start,
            end,
        )
    }
}

/// Builds a location from an LSP range on `text`.
pub fn to_location(
    path: &str,
    outside: bool,
    text: &str,
    index: &LineIndex,
    encoding: PositionEncoding,
    start: Position,
    end: Position,
) -> Location {
    let (line, column) = index.to_one_based(text, start, encoding);
    let (end_line, end_column) = index.to_one_based(text, end, encoding);
    Location {
        path: path.to_string(),
        line,
        column,
        end_line,
        end_column,
        text: line_text(text, line),
        outside,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_skip_longer_identifiers() {
        assert_eq!(whole_words("foo food _foo foo.x", "foo"), [0, 14]);
        assert_eq!(whole_words("a.foo(foo)", "foo"), [2, 6]);
    }

    #[test]
    fn offsets_count_characters() {
        let text = "é = 1\nabc\n";
        let starts = line_starts(text);
        assert_eq!(offset_of(text, &starts, 1, 3).unwrap(), 3);
        assert_eq!(offset_of(text, &starts, 2, 4).unwrap(), 10);
        assert!(offset_of(text, &starts, 2, 5).is_err());
        assert!(offset_of(text, &starts, 9, 1).is_err());
        assert_eq!(line_text(text, 1), "é = 1");
    }
}
