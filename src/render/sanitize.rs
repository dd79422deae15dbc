//! What a server's (or a file name's) text may not carry into a rendering:
//! control characters, and unbounded length.
//!
//! A message goes into the model's context, a hook's JSON and a terminal
//! alike. An ESC sequence or a BEL is an instruction to a terminal and noise
//! to a model, so every C0 control character but tab and the line breaks
//! the renderer itself interprets, DEL, and the C1 controls (`U+0080` to
//! `U+009F`, which some terminals read as ESC sequences too) are written as
//! visible escapes: `\x1b`, `\x7f`, `\u{9b}`. And one message is cut to
//! [`MAX_MESSAGE_CHARS`] before the caps count entries, so a 100 KB message
//! cannot push every other line, its own first line included, out of a
//! capped reply.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The most characters of one message a rendering shows; the rest is
/// counted (` ... (N more characters)`). Below the smallest reply cap (the
/// Codex hook's 5,000), so a capped reply keeps the first error's line.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// The most characters of a diagnostic's code.
pub const MAX_CODE_CHARS: usize = 100;

/// `text` cut to at most `max` characters, the cut counted; whole when it
/// fits.
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((end, _)) => {
            let rest = text[end..].chars().count();
            Cow::Owned(format!("{} ... ({rest} more characters)", &text[..end]))
        }
    }
}

/// `text` with its control characters escaped, but those in `keep` (tab,
/// and the line breaks where the caller splits lines itself).
pub fn controls<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    let is_control = |c: char| is_escaped(c) && !keep.contains(&c);
    if !text.contains(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_control(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

/// The characters no rendering passes through raw (before `keep`).
fn is_escaped(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Where the renderer splits a message into lines itself.
pub const LINE_BREAKS: [char; 3] = ['\t', '\n', '\r'];

/// What a one-line value (a file name, a server id, an attribute) keeps.
pub const ONE_LINE: [char; 1] = ['\t'];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_but_tab_and_what_the_caller_keeps() {
        assert_eq!(
            controls("a\u{1b}[31mred\u{7}\tb\nc\u{0}\u{7f}\u{9b}2J", &LINE_BREAKS),
            "a\\x1b[31mred\\x07\tb\nc\\x00\\x7f\\u{9b}2J"
        );
        assert_eq!(controls("a\nb\rc\td", &ONE_LINE), "a\\x0ab\\x0dc\td");
        assert!(matches!(controls("plain — ✓", &ONE_LINE), Cow::Borrowed(_)));
    }

    #[test]
    fn long_text_is_cut_at_a_character_and_the_rest_counted() {
        assert_eq!(cut("héllo", 5), "héllo");
        assert_eq!(cut("héllo wörld", 5), "héllo ... (6 more characters)");
        assert!(matches!(cut("short", 10), Cow::Borrowed(_)));
    }
}
