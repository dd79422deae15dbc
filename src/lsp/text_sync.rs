//! The edits that bring a server's copy of a document up to date. After each
//! agent edit squiggle knows the old and the new text; servers that accept
//! incremental sync get only the changed lines, so a one-character edit in a
//! 10,000-line file costs one small `didChange`, and the server's copy stays
//! byte-for-byte equal to ours (a drift would yield diagnostics for a text that
//! does not exist).

use std::ops::Range;
use std::time::{Duration, Instant};

use lsp_types::TextDocumentContentChangeEvent;
use similar::{Algorithm, DiffTag};

use super::position::{LineIndex, PositionEncoding, line_starts};

/// How long the line diff may search for a small edit script before it settles
/// for a coarser one. A coarser script is still correct, only larger.
const DIFF_DEADLINE: Duration = Duration::from_millis(50);

/// The content changes to send in one didChange so that the server's copy of
/// `old` becomes `new`.
///
/// Applying them in order, each against the result of the previous one (as the
/// LSP specifies), yields `new` exactly. Changes come last hunk first, so each
/// range is also a range of `old`. No range splits a char or a `\r\n`.
pub fn incremental_changes(
    old: &str,
    new: &str,
    enc: PositionEncoding,
) -> Vec<TextDocumentContentChangeEvent> {
    if old == new {
        return Vec::new();
    }
    // Trim unchanged whole lines cheaply before the line diff sees them.
    let prefix = common_line_prefix(old, new);
    let suffix = common_line_suffix(&old[prefix..], &new[prefix..]);
    let (old_lines, old_bounds) = split_lines(&old[prefix..old.len() - suffix]);
    let (new_lines, new_bounds) = split_lines(&new[prefix..new.len() - suffix]);
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_lines,
        &new_lines,
        Some(deadline),
    );

    // Adjacent non-equal ops form one hunk, in line numbers of the middle part.
    // Line numbers come from summing op lengths: similar 2.7 can report a
    // wrong index for the side an insert or delete does not touch
    // (mitsuhiko/similar#78).
    let mut hunks: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let (mut at_old, mut at_new) = (0, 0);
    for op in &ops {
        let o = at_old..at_old + op.old_range().len();
        let n = at_new..at_new + op.new_range().len();
        (at_old, at_new) = (o.end, n.end);
        if op.tag() == DiffTag::Equal {
            continue;
        }
        match hunks.last_mut() {
            Some((ho, hn)) if ho.end == o.start && hn.end == n.start => {
                ho.end = o.end;
                hn.end = n.end;
            }
            _ => hunks.push((o, n)),
        }
    }
    debug_assert_eq!((at_old, at_new), (old_lines.len(), new_lines.len()));

    let index = LineIndex::new(old);
    hunks
        .iter()
        .rev()
        .map(|(o, n)| {
            let old_range = prefix + old_bounds[o.start]..prefix + old_bounds[o.end];
            let new_range = prefix + new_bounds[n.start]..prefix + new_bounds[n.end];
            let (old_range, new_range) = narrow(old, new, old_range, new_range);
            let start = index.position(old, old_range.start, enc);
            let end = index.position(old, old_range.end, enc);
            TextDocumentContentChangeEvent {
                range: Some(lsp_types::Range::new(start, end)),
                range_length: None,
                text: new[new_range].to_string(),
            }
        })
        .collect()
}

/// A change that replaces the server's whole copy with `new`.
pub fn full_change(new: &str) -> TextDocumentContentChangeEvent {
    TextDocumentContentChangeEvent {
        range: None,
        range_length: None,
        text: new.to_string(),
    }
}

/// Whether byte offset `at` starts a line of `text` (the end of a text counts).
fn is_line_start(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    match at.checked_sub(1).map(|i| bytes[i]) {
        None | Some(b'\n') => true,
        Some(b'\r') => bytes.get(at) != Some(&b'\n'),
        Some(_) => false,
    }
}

/// Length of the longest common prefix that ends at a line start in both texts.
fn common_line_prefix(old: &str, new: &str) -> usize {
    let common = common_prefix_len(old.as_bytes(), new.as_bytes());
    (0..=common)
        .rev()
        .find(|&p| is_line_start(old, p) && is_line_start(new, p))
        .unwrap_or(0)
}

/// Length of the longest common suffix that starts at a line start in both texts.
fn common_line_suffix(old: &str, new: &str) -> usize {
    let common = common_suffix_len(old.as_bytes(), new.as_bytes());
    (0..=common)
        .rev()
        .find(|&s| is_line_start(old, old.len() - s) && is_line_start(new, new.len() - s))
        .unwrap_or(0)
}

/// Comparing whole blocks before single bytes: an agent's edit usually leaves
/// kilobytes of equal text on either side, and this runs on every check.
const BLOCK: usize = 64;

/// Length of the longest common prefix of two byte strings.
fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + (a[at..n].iter().zip(&b[at..n]))
        .take_while(|(x, y)| x == y)
        .count()
}

/// Length of the longest common suffix of two byte strings.
fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut at = n;
    while at >= BLOCK && a[at - BLOCK..at] == b[at - BLOCK..at] {
        at -= BLOCK;
    }
    n - at
        + (a[..at].iter().rev().zip(b[..at].iter().rev()))
            .take_while(|(x, y)| x == y)
            .count()
}

/// The lines of `text`, each with its terminator, and the byte offset of each
/// line start followed by the text's length.
fn split_lines(text: &str) -> (Vec<&str>, Vec<usize>) {
    let mut bounds = line_starts(text);
    if bounds.last() != Some(&text.len()) {
        bounds.push(text.len());
    }
    let lines = bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    (lines, bounds)
}

/// Shrinks a hunk to the chars that differ, without splitting a char or a
/// `\r\n` of `old`. Both ranges start at a line start of their text.
fn narrow(
    old: &str,
    new: &str,
    old_range: Range<usize>,
    new_range: Range<usize>,
) -> (Range<usize>, Range<usize>) {
    let (ob, nb) = (
        &old.as_bytes()[old_range.clone()],
        &new.as_bytes()[new_range.clone()],
    );
    let mut pre = ob.iter().zip(nb).take_while(|(a, b)| a == b).count();
    while !(old.is_char_boundary(old_range.start + pre)
        && new.is_char_boundary(new_range.start + pre))
    {
        pre -= 1;
    }
    let (ob, nb) = (&ob[pre..], &nb[pre..]);
    let mut suf = ob
        .iter()
        .rev()
        .zip(nb.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !(old.is_char_boundary(old_range.end - suf) && new.is_char_boundary(new_range.end - suf))
    {
        suf -= 1;
    }
    let (mut a, mut b) = (old_range.start + pre, old_range.end - suf);
    let (mut c, mut d) = (new_range.start + pre, new_range.end - suf);
    // Only trimmed (common) bytes can sit inside a CRLF, since the hunk's own
    // ends are line starts; widen over them on both sides alike.
    let splits_crlf = |at: usize| {
        at > 0 && old.as_bytes()[at - 1] == b'\r' && old.as_bytes().get(at) == Some(&b'\n')
    };
    if splits_crlf(a) {
        a -= 1;
        c -= 1;
    }
    if splits_crlf(b) {
        b += 1;
        d += 1;
    }
    (a..b, c..d)
}

#[cfg(test)]
mod tests;
