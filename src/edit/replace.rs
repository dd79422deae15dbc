//! Exact-string replacement, with the contract agents already know from their
//! own edit tools: the old text must occur exactly once unless every
//! occurrence is to be replaced, and nothing is ever matched loosely.
//!
//! The one concession is line endings. Agents write `\n`; when the file uses
//! `\r\n` and the text is only found that way, the old text is translated
//! to match. The line breaks the new text inserts take the file's own line
//! ending (judged by its first line, as patches are), so a CRLF file stays
//! CRLF byte for byte.

use super::EditError;

/// How many occurrences of the old text a replacement takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// The only one: the edit is refused unless the text occurs once.
    Once,
    /// Every one (`replace_all`).
    All,
}

/// The result of [`replace_exact`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub content: String,
    pub replacements: usize,
}

/// Replaces `old` with `new` in `content`. `old` must occur exactly once
/// unless [`Replace::All`]: none is [`EditError::NotFound`], several is
/// [`EditError::Ambiguous`]. An empty `old`, or `old == new`, is an error.
///
/// If `old` is not found verbatim but the file uses `\r\n`, `old` is matched
/// with its `\n` turned into `\r\n`. Line breaks in `new` take the file's
/// line ending whichever way `old` was found.
pub fn replace_exact(
    content: &str,
    old: &str,
    new: &str,
    replace: Replace,
) -> Result<Replaced, EditError> {
    if old.is_empty() {
        return Err(EditError::EmptyOld);
    }
    if old == new {
        return Err(EditError::NoChange);
    }
    let new = match super::line_ending(content) {
        Some("\r\n") => to_crlf(new),
        Some(_) => new.replace("\r\n", "\n"),
        None => new.to_string(),
    };
    let count = content.matches(old).count();
    if count > 0 {
        return finish(content, old, &new, count, replace);
    }
    if old.contains('\n') && content.contains("\r\n") {
        let old = to_crlf(old);
        let count = content.matches(old.as_str()).count();
        if count > 0 {
            return finish(content, &old, &new, count, replace);
        }
    }
    Err(EditError::NotFound)
}

fn finish(
    content: &str,
    old: &str,
    new: &str,
    count: usize,
    replace: Replace,
) -> Result<Replaced, EditError> {
    if count > 1 && replace == Replace::Once {
        return Err(EditError::Ambiguous { count });
    }
    Ok(Replaced {
        content: content.replace(old, new),
        replacements: count,
    })
}

fn to_crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        content: &str,
        old: &str,
        new: &str,
        replace: Replace,
        expect: &str,
        replacements: usize,
    ) {
        let got = replace_exact(content, old, new, replace).unwrap();
        assert_eq!(got.content, expect);
        assert_eq!(got.replacements, replacements);
    }

    #[test]
    fn replaces_a_single_occurrence() {
        check(
            "let a = 1;\nlet b = 2;\n",
            "b = 2",
            "b = 3",
            Replace::Once,
            "let a = 1;\nlet b = 3;\n",
            1,
        );
    }

    #[test]
    fn not_found() {
        let err = replace_exact("abc\n", "xyz", "q", Replace::Once).unwrap_err();
        assert!(matches!(err, EditError::NotFound));
        assert!(err.to_string().starts_with("old_string not found"));
    }

    #[test]
    fn ambiguous_names_the_count_and_the_way_out() {
        let err = replace_exact("x\nx\nx\n", "x", "y", Replace::Once).unwrap_err();
        assert!(matches!(err, EditError::Ambiguous { count: 3 }));
        assert_eq!(
            err.to_string(),
            "old_string occurs 3 times; add surrounding lines to make it unique or set replace_all"
        );
    }

    #[test]
    fn replace_all_replaces_every_occurrence() {
        check("x\nx\nx\n", "x", "yy", Replace::All, "yy\nyy\nyy\n", 3);
        check(
            "only once\n",
            "once",
            "twice",
            Replace::All,
            "only twice\n",
            1,
        );
    }

    #[test]
    fn empty_old_and_no_op_are_errors() {
        assert!(matches!(
            replace_exact("abc", "", "x", Replace::Once),
            Err(EditError::EmptyOld)
        ));
        assert!(matches!(
            replace_exact("abc", "b", "b", Replace::Once),
            Err(EditError::NoChange)
        ));
    }

    #[test]
    fn crlf_file_matched_with_lf_text_keeps_crlf() {
        check(
            "fn a() {\r\n    1\r\n}\r\n",
            "fn a() {\n    1\n",
            "fn a() {\n    2\n    3\n",
            Replace::Once,
            "fn a() {\r\n    2\r\n    3\r\n}\r\n",
            1,
        );
        // Text found verbatim is replaced verbatim.
        check("a\r\nb\r\n", "a", "c", Replace::Once, "c\r\nb\r\n", 1);
    }

    /// A multi-line new text whose old text is found
    /// verbatim (one line) inserted bare `\n` into a CRLF file.
    #[test]
    fn inserted_line_breaks_take_the_files_line_ending() {
        check(
            "a = 1\r\nb = 2\r\n",
            "b = 2",
            "b = 2\nc = 3\n# end",
            Replace::Once,
            "a = 1\r\nb = 2\r\nc = 3\r\n# end\r\n",
            1,
        );
        // An LF file gets LF, whatever the agent sent.
        check("a\nb\n", "b", "b\r\nc", Replace::Once, "a\nb\nc\n", 1);
        // A file without a line break yet keeps the new text as given.
        check("a", "a", "b\r\nc", Replace::Once, "b\r\nc", 1);
    }

    #[test]
    fn missing_final_newline_is_preserved() {
        check("one\ntwo", "two", "three", Replace::Once, "one\nthree", 1);
        check("one\ntwo", "one\n", "zero\n", Replace::Once, "zero\ntwo", 1);
    }

    #[test]
    fn non_ascii() {
        check(
            "naïve café — ✓ 日本語\n",
            "café — ✓",
            "thé ✗",
            Replace::Once,
            "naïve thé ✗ 日本語\n",
            1,
        );
        check("ééé", "é", "e", Replace::All, "eee", 3);
    }
}
