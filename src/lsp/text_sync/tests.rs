//! Changes are checked by applying them with a naive applier that shares no
//! code with `LineIndex` and refuses any range that splits a char or a `\r\n`.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

use super::{full_change, incremental_changes};
use crate::lsp::position::PositionEncoding::{self, Utf8, Utf16, Utf32};
use crate::lsp::position::tests::{Rng, naive_offset};

/// Applies `changes` in order, each to the result of the previous one.
fn apply(text: &str, changes: &[TextDocumentContentChangeEvent], enc: PositionEncoding) -> String {
    let mut text = text.to_string();
    for change in changes {
        let Some(range) = change.range else {
            text = change.text.clone();
            continue;
        };
        let start = naive_offset(&text, range.start, enc);
        let end = naive_offset(&text, range.end, enc);
        assert!(start <= end, "backwards range {range:?}");
        text.replace_range(start..end, &change.text);
    }
    text
}

/// Checks the changes from `old` to `new` in every encoding and returns the
/// UTF-16 ones.
fn check(old: &str, new: &str) -> Vec<TextDocumentContentChangeEvent> {
    let mut utf16 = Vec::new();
    for enc in [Utf8, Utf16, Utf32] {
        let changes = incremental_changes(old, new, enc);
        let applied = apply(old, &changes, enc);
        assert_eq!(applied, new, "old {old:?}\nchanges {changes:?}\n({enc:?})");
        assert!(changes.iter().all(|c| c.range_length.is_none()));
        // Last hunk first: each range ends before the previous one starts.
        for pair in changes.windows(2) {
            let (later, earlier) = (pair[0].range.unwrap(), pair[1].range.unwrap());
            assert!(earlier.end < later.start, "out of order: {changes:?}");
        }
        if enc == Utf16 {
            utf16 = changes;
        }
    }
    utf16
}

fn change(start: (u32, u32), end: (u32, u32), text: &str) -> TextDocumentContentChangeEvent {
    TextDocumentContentChangeEvent {
        range: Some(Range::new(
            Position::new(start.0, start.1),
            Position::new(end.0, end.1),
        )),
        range_length: None,
        text: text.to_string(),
    }
}

#[test]
fn identical_texts_need_no_change() {
    assert!(check("", "").is_empty());
    assert!(check("a\r\nb😀", "a\r\nb😀").is_empty());
}

#[test]
fn full_change_has_no_range() {
    let c = full_change("a\n");
    assert_eq!(
        (c.range, c.range_length, c.text.as_str()),
        (None, None, "a\n")
    );
}

#[test]
fn one_char_edit_sends_one_char() {
    assert_eq!(
        check("let x = 1;\n", "let y = 1;\n"),
        [change((0, 4), (0, 5), "y")]
    );
    assert_eq!(check("a😀b", "a😁b"), [change((0, 1), (0, 3), "😁")]);
    assert_eq!(check("中文\n", "中x文\n"), [change((0, 1), (0, 1), "x")]);
}

#[test]
fn one_char_edit_in_a_long_file() {
    for eol in ["\n", "\r\n"] {
        let old: String = (0..10_000).map(|i| format!("line {i}{eol}")).collect();
        let new = old.replacen("line 5000", "line 5X00", 1);
        assert_eq!(check(&old, &new), [change((5000, 6), (5000, 7), "X")]);
    }
}

#[test]
fn separate_edits_come_last_first() {
    let mut lines: Vec<String> = (0..20).map(|i| format!("{i}\n")).collect();
    let old = lines.concat();
    lines[3] = "three\n".to_string();
    lines.remove(15);
    let new = lines.concat();
    assert_eq!(
        check(&old, &new),
        [
            change((15, 0), (16, 0), ""),
            change((3, 0), (3, 1), "three")
        ]
    );
}

#[test]
fn empty_old_or_new() {
    assert_eq!(check("", "a\nb"), [change((0, 0), (0, 0), "a\nb")]);
    assert_eq!(check("a\nb", ""), [change((0, 0), (1, 1), "")]);
    assert_eq!(check("\r\n", ""), [change((0, 0), (1, 0), "")]);
}

#[test]
fn final_newline_added_or_removed() {
    assert_eq!(check("a\nb", "a\nb\n"), [change((1, 1), (1, 1), "\n")]);
    assert_eq!(check("a\nb\n", "a\nb"), [change((1, 1), (2, 0), "")]);
    assert_eq!(
        check("a\r\nb", "a\r\nb\r\n"),
        [change((1, 1), (1, 1), "\r\n")]
    );
}

#[test]
fn crlf_is_never_split() {
    // Text inserted between \r and \n replaces the whole terminator.
    assert_eq!(
        check("a\r\nb", "a\rX\nb"),
        [change((0, 1), (1, 0), "\rX\n")]
    );
    assert_eq!(check("a\r\nb", "a\rb"), [change((0, 1), (1, 0), "\r")]);
    assert_eq!(check("a\r\nb", "a\nb"), [change((0, 1), (1, 0), "\n")]);
    // Completing a lone \r into \r\n inserts at the start of the next line.
    assert_eq!(check("a\rb", "a\r\nb"), [change((1, 0), (1, 0), "\n")]);
    check("x\r\r\ny\r\n", "x\r\ny\r\r\n");
    check("\r\n\r\n", "\r\r\n\n");
}

/// Many generated pairs, each a few random edits of a random text, and some
/// unrelated pairs: the changes always rebuild the new text exactly.
#[test]
fn changes_rebuild_generated_texts() {
    let mut rng = Rng::new(42);
    for round in 0..3000 {
        let old = rng.text(if round % 10 == 0 { 200 } else { 40 });
        let new = if round % 7 == 0 {
            rng.text(40)
        } else {
            mutate(&mut rng, &old)
        };
        check(&old, &new);
    }
}

/// A few random replacements, each of a short run of chars (possibly none)
/// by a short generated text (possibly empty). Edits may split a `\r\n`.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut text = text.to_string();
    for _ in 0..=rng.below(4) {
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let start = rng.below(bounds.len());
        let end = (start + rng.below(4)).min(bounds.len() - 1);
        let insert = rng.text(3);
        text.replace_range(bounds[start]..bounds[end], &insert);
    }
    text
}

/// The block-wise common prefix and suffix agree with a byte-by-byte count
/// around every block boundary.
#[test]
fn common_prefix_and_suffix_by_blocks() {
    use super::{BLOCK, common_prefix_len, common_suffix_len};
    let naive_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let naive_suffix = |a: &[u8], b: &[u8]| {
        (a.iter().rev().zip(b.iter().rev()))
            .take_while(|(x, y)| x == y)
            .count()
    };
    let base: Vec<u8> = (0..3 * BLOCK + 7).map(|i| b'a' + (i % 26) as u8).collect();
    for differ_at in 0..base.len() {
        let mut other = base.clone();
        other[differ_at] = b'#';
        for cut in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1] {
            let shorter = &other[..other.len().saturating_sub(cut)];
            assert_eq!(
                common_prefix_len(&base, shorter),
                naive_prefix(&base, shorter),
                "prefix, differ at {differ_at}, cut {cut}"
            );
            let shorter = &other[cut.min(other.len())..];
            assert_eq!(
                common_suffix_len(&base, shorter),
                naive_suffix(&base, shorter),
                "suffix, differ at {differ_at}, cut {cut}"
            );
        }
    }
    assert_eq!(common_prefix_len(&base, &base), base.len());
    assert_eq!(common_suffix_len(&base, &base), base.len());
}
