//! Conversions between byte offsets, LSP positions and squiggle's 1-based
//! columns. A server counts `character` in the position encoding negotiated at
//! `initialize` (UTF-16 code units unless both sides agree otherwise), while
//! squiggle edits bytes and shows the model columns in Unicode scalar values.
//! Getting any of these wrong puts a squiggle under the wrong token or makes a
//! server's copy of a document drift from ours, so every conversion lives here.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, as the LSP specification says.

use lsp_types::Position;

/// How a server counts `Position::character`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units: the LSP default, and the only encoding every server
    /// supports.
    #[default]
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl PositionEncoding {
    /// Parses a `PositionEncodingKind` string such as `"utf-16"`.
    pub fn from_lsp(kind: &str) -> Option<Self> {
        match kind {
            "utf-8" => Some(Self::Utf8),
            "utf-16" => Some(Self::Utf16),
            "utf-32" => Some(Self::Utf32),
            _ => None,
        }
    }

    /// The `PositionEncodingKind` string for this encoding.
    pub fn as_lsp(self) -> &'static str {
        match self {
            Self::Utf8 => "utf-8",
            Self::Utf16 => "utf-16",
            Self::Utf32 => "utf-32",
        }
    }

    /// How many units `c` occupies in this encoding.
    fn units(self, c: char) -> usize {
        match self {
            Self::Utf8 => c.len_utf8(),
            Self::Utf16 => c.len_utf16(),
            Self::Utf32 => 1,
        }
    }
}

/// Line starts of a text, built once, used for many conversions.
///
/// The index does not keep the text; every method takes the text it was built
/// from, and conversions cost time in proportion to one line, not the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset where each line starts; the first is always 0.
    starts: Vec<usize>,
    /// Length of the text in bytes.
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        Self {
            starts: line_starts(text),
            len: text.len(),
        }
    }

    /// Number of lines. An empty text has one line, and so does `"a"`; a text
    /// ending in a line terminator has an empty last line after it.
    pub fn line_count(&self) -> u32 {
        to_u32(self.starts.len())
    }

    /// Byte offset -> LSP position in `enc`.
    ///
    /// The offset is clamped to the text and moved back to a char boundary; an
    /// offset between the `\r` and `\n` of a CRLF moves back before the `\r`.
    pub fn position(&self, text: &str, offset: usize, enc: PositionEncoding) -> Position {
        debug_assert_eq!(text.len(), self.len, "LineIndex used with another text");
        let offset = self.snap(text, offset);
        let line = self.line_of(offset);
        let start = self.starts[line];
        let character = text[start..offset].chars().map(|c| enc.units(c)).sum();
        Position::new(to_u32(line), to_u32(character))
    }

    /// LSP position -> byte offset.
    ///
    /// Lines past the end clamp to the end of the text; characters past the
    /// end of a line clamp to the line end (before its terminator); a position
    /// inside a multi-unit char (such as between the halves of a UTF-16
    /// surrogate pair) snaps to the start of that char.
    pub fn offset(&self, text: &str, pos: Position, enc: PositionEncoding) -> usize {
        debug_assert_eq!(text.len(), self.len, "LineIndex used with another text");
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return self.len;
        }
        let start = self.starts[line];
        let end = self.content_end(text, line);
        let wanted = pos.character as usize;
        let mut seen = 0;
        for (i, c) in text[start..end].char_indices() {
            seen += enc.units(c);
            if seen > wanted {
                return start + i;
            }
        }
        end
    }

    /// LSP position -> squiggle's 1-based `(line, column)`, where the column
    /// counts Unicode scalar values of the line (what the model sees).
    ///
    /// Clamps like [`LineIndex::offset`]: past the end of a line gives the
    /// line's length + 1, and past the last line gives the end of the text.
    pub fn to_one_based(&self, text: &str, pos: Position, enc: PositionEncoding) -> (u32, u32) {
        let offset = self.offset(text, pos, enc);
        let line = self.line_of(offset);
        let column = text[self.starts[line]..offset].chars().count() + 1;
        (to_u32(line + 1), to_u32(column))
    }

    /// Clamps `offset` to the text, a char boundary and outside any CRLF.
    fn snap(&self, text: &str, offset: usize) -> usize {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let bytes = text.as_bytes();
        if offset > 0 && bytes[offset - 1] == b'\r' && bytes.get(offset) == Some(&b'\n') {
            offset -= 1;
        }
        offset
    }

    /// The 0-based line holding `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) - 1
    }

    /// Byte offset where `line`'s content ends, before its terminator.
    fn content_end(&self, text: &str, line: usize) -> usize {
        let Some(&next) = self.starts.get(line + 1) else {
            return self.len;
        };
        let terminator = if text[..next].ends_with("\r\n") { 2 } else { 1 };
        (next - terminator).max(self.starts[line])
    }
}

/// Byte offsets where the lines of `text` start, by the LSP's rules.
///
/// Runs on every check (incremental sync, normalizing diagnostics), so it
/// searches with `memchr` rather than a byte loop; most texts have no `\r` at
/// all and take the one-byte search.
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
    starts.push(0);
    if memchr::memchr(b'\r', bytes).is_none() {
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        return starts;
    }
    for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        // A `\r` followed by `\n` is one terminator, ended by the `\n`.
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        starts.push(i + 1);
    }
    starts
}

/// Positions are `u32` on the wire; a text over 4 GiB saturates rather than wraps.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
pub(crate) mod tests;
