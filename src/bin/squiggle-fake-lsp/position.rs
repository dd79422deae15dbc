//! LSP positions (line, character) in each of the three negotiable encodings.
//!
//! Written independently of squiggle's own position code on purpose: if both were the same
//! code, a bug in it would agree with itself and every test would pass.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Encoding {
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "utf-16")]
    Utf16,
    #[serde(rename = "utf-32")]
    Utf32,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
            Encoding::Utf32 => "utf-32",
        }
    }

    /// How many code units `c` takes in this encoding.
    fn width(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// Byte offsets where each line starts. Lines end at `\n`, `\r\n` or a lone `\r`, as the spec
/// says. A text ending in a terminator has a last, empty line.
pub fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    // The fake should cost little next to the client it tests: benchmarks
    // time squiggle against it. So: a vectorized search for both terminators.
    for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        let ends_line = bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n');
        if ends_line {
            starts.push(i + 1);
        }
    }
    starts
}

/// The byte range of line `line`'s content, without its terminator.
fn line_content(text: &str, starts: &[usize], line: usize) -> (usize, usize) {
    let start = starts[line];
    let mut end = starts.get(line + 1).copied().unwrap_or(text.len());
    let bytes = text.as_bytes();
    if end > start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    if end > start && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    (start, end)
}

/// Where a position resolves to, and whether it had to be clamped to get there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub offset: usize,
    pub clamped: bool,
}

/// Converts a position to a byte offset. A position past the end of its line clamps to the
/// line's end, one past the last line clamps to the end of the text, and one inside a
/// character (half a surrogate pair, a byte inside UTF-8) clamps to that character's start.
#[cfg(test)]
pub fn offset_at(text: &str, pos: Position, encoding: Encoding) -> Resolved {
    offset_in(text, &line_starts(text), pos, encoding)
}

/// [`offset_at`] with the text's line starts already computed, for callers converting
/// several positions of one text.
pub fn offset_in(text: &str, starts: &[usize], pos: Position, encoding: Encoding) -> Resolved {
    let line = pos.line as usize;
    if line >= starts.len() {
        return Resolved {
            offset: text.len(),
            clamped: true,
        };
    }
    let (start, end) = line_content(text, starts, line);
    let mut units = 0u32;
    for (i, c) in text[start..end].char_indices() {
        if units == pos.character {
            return Resolved {
                offset: start + i,
                clamped: false,
            };
        }
        let width = encoding.width(c);
        if units + width > pos.character {
            return Resolved {
                offset: start + i,
                clamped: true,
            };
        }
        units += width;
    }
    Resolved {
        offset: end,
        clamped: units != pos.character,
    }
}

/// Converts a byte offset (on a character boundary) to a position.
#[cfg(test)]
pub fn position_at(text: &str, offset: usize, encoding: Encoding) -> Position {
    position_in(text, &line_starts(text), offset, encoding)
}

/// [`position_at`] with the text's line starts already computed.
pub fn position_in(text: &str, starts: &[usize], offset: usize, encoding: Encoding) -> Position {
    let line = starts.partition_point(|&s| s <= offset) - 1;
    let character = text[starts[line]..offset]
        .chars()
        .map(|c| encoding.width(c))
        .sum();
    Position {
        line: line as u32,
        character,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn encodings_count_differently() {
        let text = "a😀b\nx";
        let b = text.find('b').unwrap();
        assert_eq!(position_at(text, b, Encoding::Utf16), pos(0, 3));
        assert_eq!(position_at(text, b, Encoding::Utf8), pos(0, 5));
        assert_eq!(position_at(text, b, Encoding::Utf32), pos(0, 2));
        assert_eq!(offset_at(text, pos(0, 3), Encoding::Utf16).offset, b);
        assert_eq!(
            offset_at(text, pos(1, 1), Encoding::Utf16).offset,
            text.len()
        );
    }

    #[test]
    fn out_of_range_clamps() {
        let text = "ab\r\ncd";
        assert_eq!(
            offset_at(text, pos(0, 9), Encoding::Utf16),
            Resolved {
                offset: 2,
                clamped: true
            }
        );
        assert_eq!(
            offset_at(text, pos(5, 0), Encoding::Utf16),
            Resolved {
                offset: 6,
                clamped: true
            }
        );
        assert_eq!(
            offset_at("😀", pos(0, 1), Encoding::Utf16),
            Resolved {
                offset: 0,
                clamped: true
            }
        );
    }

    #[test]
    fn lone_carriage_return_ends_a_line() {
        assert_eq!(line_starts("a\rb\r\nc\n"), vec![0, 2, 5, 7]);
        assert_eq!(position_at("a\rb", 2, Encoding::Utf16), pos(1, 0));
    }
}
