//! Table tests for the conversions, and a cross-check against a naive walk
//! over chars that shares no code with `LineIndex`. The naive walk and the
//! text generator are also used by the `text_sync` tests.

use lsp_types::Position;

use super::{LineIndex, PositionEncoding};
use PositionEncoding::{Utf8, Utf16, Utf32};

/// Every offset of `text` that a position can name (char boundaries not
/// inside a `\r\n`), with its position, found by walking chars one by one.
pub(crate) fn naive_positions(text: &str, enc: PositionEncoding) -> Vec<(usize, Position)> {
    let mut out = Vec::new();
    let (mut line, mut col) = (0u32, 0u32);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        out.push((i, Position::new(line, col)));
        if c == '\r' && chars.peek().map(|&(_, n)| n) == Some('\n') {
            chars.next();
        }
        if c == '\r' || c == '\n' {
            line += 1;
            col = 0;
        } else {
            col += match enc {
                Utf8 => c.to_string().len(),
                Utf16 => c.encode_utf16(&mut [0; 2]).len(),
                Utf32 => 1,
            } as u32;
        }
    }
    out.push((text.len(), Position::new(line, col)));
    out
}

/// The offset `pos` names; panics unless it names exactly one such offset.
pub(crate) fn naive_offset(text: &str, pos: Position, enc: PositionEncoding) -> usize {
    let table = naive_positions(text, enc);
    match table.iter().find(|(_, p)| *p == pos) {
        Some(&(offset, _)) => offset,
        None => panic!("{pos:?} names no char boundary of {text:?} in {enc:?}"),
    }
}

/// A deterministic pseudo-random generator (SplitMix64), so failures replay.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` must not be 0.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A text of up to `max_pieces` pieces mixing ASCII, multi-byte chars and
    /// all three line terminators; it may or may not end with one.
    pub(crate) fn text(&mut self, max_pieces: usize) -> String {
        const PIECES: &[&str] = &[
            "a",
            "b",
            "xyz",
            " ",
            "é",
            "😀",
            "中文",
            "\r\n",
            "\r",
            "\n",
            "\n",
            "fn f() {}\n",
        ];
        let n = self.below(max_pieces + 1);
        (0..n).map(|_| PIECES[self.below(PIECES.len())]).collect()
    }
}

fn check_position(text: &str, offset: usize, enc: PositionEncoding, expect: (u32, u32)) {
    let actual = LineIndex::new(text).position(text, offset, enc);
    let expect = Position::new(expect.0, expect.1);
    assert_eq!(actual, expect, "position of {offset} in {text:?} ({enc:?})");
}

fn check_offset(text: &str, pos: (u32, u32), enc: PositionEncoding, expect: usize) {
    let actual = LineIndex::new(text).offset(text, Position::new(pos.0, pos.1), enc);
    assert_eq!(actual, expect, "offset of {pos:?} in {text:?} ({enc:?})");
}

fn check_one_based(text: &str, pos: (u32, u32), enc: PositionEncoding, expect: (u32, u32)) {
    let actual = LineIndex::new(text).to_one_based(text, Position::new(pos.0, pos.1), enc);
    assert_eq!(actual, expect, "1-based of {pos:?} in {text:?} ({enc:?})");
}

#[test]
fn encoding_names_round_trip() {
    for enc in [Utf8, Utf16, Utf32] {
        assert_eq!(PositionEncoding::from_lsp(enc.as_lsp()), Some(enc));
    }
    assert_eq!(PositionEncoding::from_lsp("utf-7"), None);
    assert_eq!(PositionEncoding::from_lsp("UTF-16"), None);
    assert_eq!(PositionEncoding::default(), Utf16);
}

#[test]
fn line_count() {
    for (text, lines) in [
        ("", 1),
        ("a", 1),
        ("a\n", 2),
        ("a\nb", 2),
        ("a\r\nb\r\n", 3),
    ] {
        assert_eq!(LineIndex::new(text).line_count(), lines, "{text:?}");
    }
    for (text, lines) in [("a\rb", 2), ("\r\r", 3), ("\n\r\n\r", 4), ("a\r\rb", 3)] {
        assert_eq!(LineIndex::new(text).line_count(), lines, "{text:?}");
    }
}

#[test]
fn position_of_emoji_and_cjk() {
    let text = "a😀b";
    check_position(text, 1, Utf16, (0, 1));
    check_position(text, 5, Utf16, (0, 3));
    check_position(text, 6, Utf16, (0, 4));
    check_position(text, 5, Utf8, (0, 5));
    check_position(text, 5, Utf32, (0, 2));
    // Offsets inside the emoji snap back to its start.
    check_position(text, 2, Utf16, (0, 1));
    check_position(text, 4, Utf8, (0, 1));
    check_position("中文\nx", 6, Utf16, (0, 2));
    check_position("中文\nx", 6, Utf8, (0, 6));
    check_position("中文\nx", 8, Utf32, (1, 1));
}

#[test]
fn position_with_line_terminators() {
    let crlf = "ab\r\ncd";
    check_position(crlf, 2, Utf16, (0, 2));
    check_position(crlf, 3, Utf16, (0, 2)); // between \r and \n
    check_position(crlf, 4, Utf16, (1, 0));
    check_position(crlf, 6, Utf16, (1, 2));
    check_position("ab\rcd", 3, Utf16, (1, 0));
    check_position("a\r\rb", 3, Utf16, (2, 0));
    check_position("a\nbc", 4, Utf16, (1, 2)); // last line without newline
    check_position("a\n", 2, Utf16, (1, 0)); // empty last line
    check_position("ab", 99, Utf16, (0, 2)); // past the end
    check_position("", 0, Utf8, (0, 0));
}

#[test]
fn offset_of_emoji_and_cjk() {
    let text = "a😀b";
    check_offset(text, (0, 1), Utf16, 1);
    check_offset(text, (0, 2), Utf16, 1); // between the surrogates
    check_offset(text, (0, 3), Utf16, 5);
    check_offset(text, (0, 4), Utf16, 6);
    check_offset(text, (0, 3), Utf8, 1); // inside the UTF-8 bytes
    check_offset(text, (0, 5), Utf8, 5);
    check_offset(text, (0, 2), Utf32, 5);
    check_offset("中文\nx", (0, 1), Utf16, 3);
    check_offset("中文\nx", (0, 4), Utf8, 3);
    check_offset("中文\nx", (1, 1), Utf32, 8);
}

#[test]
fn offset_clamps() {
    let crlf = "ab\r\ncd";
    check_offset(crlf, (0, 5), Utf16, 2); // before the \r\n
    check_offset(crlf, (1, 1), Utf16, 5);
    check_offset(crlf, (1, 9), Utf16, 6);
    check_offset(crlf, (5, 0), Utf16, 6); // past the last line
    check_offset("ab\rcd", (0, 9), Utf16, 2);
    check_offset("ab\rcd", (1, 0), Utf16, 3);
    check_offset("a\n", (1, 0), Utf16, 2);
    check_offset("a\n", (2, 3), Utf16, 2);
    check_offset("a\n\nb", (1, 4), Utf16, 2);
    check_offset("", (0, 4), Utf8, 0);
}

#[test]
fn one_based_columns_count_scalar_values() {
    check_one_based("a😀b", (0, 3), Utf16, (1, 3));
    check_one_based("a😀b", (0, 5), Utf8, (1, 3));
    check_one_based("a😀b", (0, 2), Utf32, (1, 3));
    check_one_based("a😀b", (0, 2), Utf16, (1, 2)); // inside the pair
    check_one_based("x\n中文z", (1, 2), Utf16, (2, 3));
    check_one_based("x\n中文z", (1, 6), Utf8, (2, 3));
}

#[test]
fn one_based_clamps() {
    check_one_based("ab\ncd", (0, 10), Utf16, (1, 3));
    check_one_based("ab\r\ncd", (0, 10), Utf16, (1, 3));
    check_one_based("ab\rcd", (0, 10), Utf16, (1, 3));
    check_one_based("ab\ncd", (7, 0), Utf16, (2, 3));
    check_one_based("ab\n", (7, 0), Utf16, (2, 1));
    check_one_based("", (0, 0), Utf16, (1, 1));
}

/// Every nameable offset of many generated texts converts both ways exactly
/// as the naive walk says.
#[test]
fn agrees_with_naive_walk() {
    let mut rng = Rng::new(7);
    for _ in 0..500 {
        let text = rng.text(40);
        let index = LineIndex::new(&text);
        for enc in [Utf8, Utf16, Utf32] {
            let table = naive_positions(&text, enc);
            let last = table.last().expect("at least the end").1;
            assert_eq!(index.line_count(), last.line + 1, "{text:?}");
            for &(offset, pos) in &table {
                assert_eq!(index.position(&text, offset, enc), pos, "{text:?} {offset}");
                assert_eq!(index.offset(&text, pos, enc), offset, "{text:?} {pos:?}");
            }
        }
    }
}

/// Both paths of `line_starts`: texts without `\r` take the one-byte search.
#[test]
fn line_starts_by_each_terminator() {
    use super::line_starts;
    assert_eq!(line_starts(""), vec![0]);
    assert_eq!(line_starts("a\nb"), vec![0, 2]);
    assert_eq!(line_starts("a\n\n"), vec![0, 2, 3]);
    assert_eq!(line_starts("a\rb\r\nc\n"), vec![0, 2, 5, 7]);
    assert_eq!(line_starts("\r\r\n\n\r"), vec![0, 1, 3, 4, 5]);
    assert_eq!(line_starts("x\r"), vec![0, 2]);
}
