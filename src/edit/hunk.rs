//! Applies one file's hunks to its text in memory, for both patch formats.
//!
//! The file is held as lines that remember their own terminator, so a CRLF
//! file patched with an LF patch keeps `\r\n`, untouched lines keep exactly
//! their bytes, and a missing final newline stays missing unless the patch
//! says otherwise. Unified hunks are tried at their stated line first and
//! then at the nearest offset where their context matches exactly; Codex
//! hunks carry no line numbers and are searched for forward from the end of
//! the previous hunk, the way Codex's own `apply_patch` does. A byte order
//! mark is the file's, not its first line's: the hunks match that line with
//! or without it, and the file keeps it.

use super::{BOM, EditError, Hunk, HunkLine};

#[derive(Debug, Clone)]
struct Line<'a> {
    /// The line without its terminator (and without the `\r` of `\r\n`).
    text: &'a str,
    /// `"\n"`, `"\r\n"`, or `""` for a last line without a newline.
    eol: &'a str,
}

fn split_lines(content: &str) -> Vec<Line<'_>> {
    content
        .split_inclusive('\n')
        .map(|line| {
            if let Some(text) = line.strip_suffix("\r\n") {
                Line { text, eol: "\r\n" }
            } else if let Some(text) = line.strip_suffix('\n') {
                Line { text, eol: "\n" }
            } else {
                Line {
                    text: line,
                    eol: "",
                }
            }
        })
        .collect()
}

/// The line endings of the file being patched.
#[derive(Clone, Copy)]
struct Endings<'a> {
    /// The file's own, judged by its first line; `None` when it has none.
    file: Option<&'a str>,
    /// What new lines take: the file's own, else the patch's (`\n`).
    new: &'a str,
    /// The file's last line has no newline.
    lacks_final_newline: bool,
}

/// Applies `hunks` to `content` in order; `path` names the file in errors.
pub(super) fn apply_hunks(path: &str, content: &str, hunks: &[Hunk]) -> Result<String, EditError> {
    let Some(body) = content.strip_prefix(BOM) else {
        return apply_to_lines(path, content, hunks);
    };
    // The mark goes back in front, once, whatever the hunks did to the
    // first line (one that added a mark of its own included).
    let patched = apply_to_lines(path, body, hunks)?;
    Ok(format!(
        "{BOM}{}",
        patched.strip_prefix(BOM).unwrap_or(&patched)
    ))
}

/// A patch line as it is compared with the file: without a byte order mark
/// (a patch made against the file may carry it on its first line or not).
fn unmarked(line: &str) -> &str {
    line.strip_prefix(BOM).unwrap_or(line)
}

/// [`apply_hunks`] for a text without a byte order mark.
fn apply_to_lines(path: &str, content: &str, hunks: &[Hunk]) -> Result<String, EditError> {
    let lines = split_lines(content);
    let file = lines
        .first()
        .map(|line| line.eol)
        .filter(|eol| !eol.is_empty());
    let endings = Endings {
        file,
        new: file.unwrap_or("\n"),
        lacks_final_newline: lines.last().is_some_and(|line| line.eol.is_empty()),
    };
    let mut out: Vec<Line<'_>> = Vec::with_capacity(lines.len());
    let mut cursor = 0;
    let mut drift: isize = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let old: Vec<&str> = hunk.old_lines().map(unmarked).collect();
        let Some(pos) = locate(&lines, hunk, &old, cursor, &mut drift) else {
            return Err(EditError::HunkFailed {
                path: path.to_string(),
                hunk: index + 1,
                header: hunk.header.clone(),
            });
        };
        out.extend_from_slice(&lines[cursor..pos]);
        let block_start = out.len();
        replace_block(&mut out, &lines[pos..pos + old.len()], hunk, endings);
        cursor = pos + old.len();
        if cursor == lines.len() && out.len() > block_start {
            let last = out.last_mut().expect("block is not empty");
            last.eol = match hunk.old_start {
                Some(_) if hunk.new_missing_newline => "",
                Some(_) if hunk.old_missing_newline && last.eol.is_empty() => endings.new,
                Some(_) => last.eol,
                // Codex patches cannot say anything about the final newline,
                // so the file keeps what it had.
                None if endings.lacks_final_newline => "",
                None => last.eol,
            };
        }
    }
    out.extend_from_slice(&lines[cursor..]);
    Ok(join_lines(&out, endings.new, content.len() + 64))
}

/// Where `hunk` (old side `old`) applies, never before `cursor`: a unified
/// hunk near its stated line moved by the `drift` of the hunks before it
/// (updated), a Codex hunk searched for forward.
fn locate(
    lines: &[Line<'_>],
    hunk: &Hunk,
    old: &[&str],
    cursor: usize,
    drift: &mut isize,
) -> Option<usize> {
    let Some(start) = hunk.old_start else {
        return seek_forward(lines, old, cursor, hunk);
    };
    // An empty old side inserts after line `start`.
    let stated = if old.is_empty() {
        start
    } else {
        start.saturating_sub(1)
    };
    let expected = stated.saturating_add_signed(*drift);
    let pos = seek_near(lines, old, cursor, expected, hunk.old_missing_newline);
    if let Some(pos) = pos {
        *drift = pos as isize - stated as isize;
    }
    pos
}

/// Pushes the hunk's new side for the `matched` old lines: context lines
/// keep their own bytes, added lines take the file's line ending.
fn replace_block<'a>(
    out: &mut Vec<Line<'a>>,
    matched: &[Line<'a>],
    hunk: &'a Hunk,
    endings: Endings<'a>,
) {
    let mut matched = matched.iter();
    for line in &hunk.lines {
        match line {
            HunkLine::Context(_) => out.push(
                matched
                    .next()
                    .expect("matched block covers old lines")
                    .clone(),
            ),
            HunkLine::Remove(_) => {
                matched.next();
            }
            HunkLine::Add(text) => out.push(match text.strip_suffix('\r') {
                Some(text) => Line {
                    text,
                    eol: endings.file.unwrap_or("\r\n"),
                },
                None => Line {
                    text,
                    eol: endings.new,
                },
            }),
        }
    }
}

/// The lines as text; a line that had no newline but is no longer last
/// gets `eol`.
fn join_lines(out: &[Line<'_>], eol: &str, capacity: usize) -> String {
    let mut result = String::with_capacity(capacity);
    let count = out.len();
    for (i, line) in out.iter().enumerate() {
        result.push_str(line.text);
        result.push_str(if line.eol.is_empty() && i + 1 < count {
            eol
        } else {
            line.eol
        });
    }
    result
}

/// Finds where `old` matches exactly, at `expected` or else at the nearest
/// offset from it, never before `min`. With `at_eof`, the match must end the
/// file.
fn seek_near(
    lines: &[Line<'_>],
    old: &[&str],
    min: usize,
    expected: usize,
    at_eof: bool,
) -> Option<usize> {
    let len = lines.len();
    if old.len() > len.saturating_sub(min) {
        return None;
    }
    let max = len - old.len();
    if at_eof {
        return matches_at(lines, old, max, |a, b| a == b).then_some(max);
    }
    let expected = expected.clamp(min, max);
    if old.is_empty() {
        return Some(expected);
    }
    let span = (max - expected).max(expected - min);
    for distance in 0..=span {
        let after = expected + distance;
        if after <= max && matches_at(lines, old, after, |a, b| a == b) {
            return Some(after);
        }
        if let Some(before) = expected
            .checked_sub(distance)
            .filter(|&before| before >= min && distance > 0)
            && matches_at(lines, old, before, |a, b| a == b)
        {
            return Some(before);
        }
    }
    None
}

/// Codex-style search: anchors in order, then the old lines, from `min`
/// forward. Each search tries an exact match first, then ignoring trailing
/// whitespace, then ignoring surrounding whitespace.
fn seek_forward(lines: &[Line<'_>], old: &[&str], min: usize, hunk: &Hunk) -> Option<usize> {
    let mut start = min;
    for anchor in &hunk.anchors {
        start = seek_sequence(lines, &[unmarked(anchor)], start)? + 1;
    }
    if old.is_empty() {
        // Pure insertion: right after the anchor, or else at the end.
        return Some(if hunk.anchors.is_empty() {
            lines.len().max(start)
        } else {
            start
        });
    }
    if hunk.at_eof
        && let Some(pos) = lines
            .len()
            .checked_sub(old.len())
            .filter(|&pos| pos >= start)
        && PASSES.iter().any(|same| matches_at(lines, old, pos, same))
    {
        return Some(pos);
    }
    seek_sequence(lines, old, start)
}

type Same = fn(&str, &str) -> bool;

const PASSES: [Same; 3] = [
    |a, b| a == b,
    |a, b| a.trim_end() == b.trim_end(),
    |a, b| a.trim() == b.trim(),
];

fn seek_sequence(lines: &[Line<'_>], old: &[&str], start: usize) -> Option<usize> {
    let last = lines.len().checked_sub(old.len())?;
    PASSES
        .iter()
        .find_map(|same| (start..=last).find(|&pos| matches_at(lines, old, pos, same)))
}

fn matches_at(
    lines: &[Line<'_>],
    old: &[&str],
    pos: usize,
    same: impl Fn(&str, &str) -> bool,
) -> bool {
    lines[pos..pos + old.len()]
        .iter()
        .zip(old)
        .all(|(line, old)| same(line.text, old))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(old_start: Option<usize>, lines: &[&str]) -> Hunk {
        let lines = lines
            .iter()
            .map(|line| match line.split_at(1) {
                (" ", text) => HunkLine::Context(text.into()),
                ("-", text) => HunkLine::Remove(text.into()),
                ("+", text) => HunkLine::Add(text.into()),
                _ => panic!("bad hunk line {line:?}"),
            })
            .collect();
        Hunk {
            header: "@@".into(),
            old_start,
            lines,
            ..Hunk::default()
        }
    }

    fn check(content: &str, hunks: &[Hunk], expect: &str) {
        assert_eq!(apply_hunks("f", content, hunks).unwrap(), expect);
    }

    #[test]
    fn insertion_into_an_empty_file() {
        check("", &[hunk(Some(0), &["+a", "+b"])], "a\nb\n");
    }

    #[test]
    fn pure_insertion_after_a_stated_line() {
        check("a\nb\nc\n", &[hunk(Some(2), &["+x"])], "a\nb\nx\nc\n");
    }

    #[test]
    fn codex_append_keeps_a_missing_final_newline() {
        check("a\nb", &[hunk(None, &["+c"])], "a\nb\nc");
        check("a\nb\n", &[hunk(None, &["+c"])], "a\nb\nc\n");
    }

    #[test]
    fn codex_insertion_after_anchor() {
        let mut h = hunk(None, &["+    x = 1"]);
        h.anchors = vec!["def g():".into()];
        check(
            "def f():\n    pass\ndef g():\n    pass\n",
            &[h],
            "def f():\n    pass\ndef g():\n    x = 1\n    pass\n",
        );
    }

    #[test]
    fn context_after_a_line_without_newline_gains_one() {
        // The patch was made against a file with a final newline; appending
        // after a last line that lacks one must not glue the lines together.
        check("a\nb", &[hunk(Some(1), &[" a", " b", "+c"])], "a\nb\nc\n");
    }

    #[test]
    fn failure_names_file_hunk_and_header() {
        let err = apply_hunks(
            "f",
            "a\n",
            &[hunk(Some(1), &[" a"]), hunk(Some(1), &["-zzz"])],
        )
        .unwrap_err();
        assert!(
            matches!(err, EditError::HunkFailed { ref path, hunk: 2, ref header } if path == "f" && header == "@@")
        );
    }

    /// A patch whose context is a BOM file's first
    /// line, written without the mark (as models do), was refused.
    #[test]
    fn the_first_line_matches_with_or_without_the_byte_order_mark_which_is_kept() {
        let file = "\u{feff}import os\r\nx = 1\r\n";
        let without = hunk(None, &[" import os", "-x = 1", "+x = 2", "+y = 3"]);
        check(file, &[without], "\u{feff}import os\r\nx = 2\r\ny = 3\r\n");
        let with = hunk(Some(1), &["-\u{feff}import os", "+\u{feff}import sys"]);
        check(file, &[with], "\u{feff}import sys\r\nx = 1\r\n");
        let mut anchored = hunk(None, &["+import re"]);
        anchored.anchors = vec!["\u{feff}import os".into()];
        check(
            "import os\nx = 1\n",
            &[anchored],
            "import os\nimport re\nx = 1\n",
        );
    }

    #[test]
    fn hunks_never_match_before_the_previous_one() {
        // The second hunk's line exists only above the first hunk.
        let err = apply_hunks(
            "f",
            "x\ny\n",
            &[hunk(Some(2), &["-y"]), hunk(Some(1), &["-x"])],
        )
        .unwrap_err();
        assert!(matches!(err, EditError::HunkFailed { hunk: 2, .. }));
    }
}
