//! Cutting a whole reply to a number of characters: a hook's agent takes so
//! much context and no more (Codex CLI moves longer hook context out of the
//! conversation). The cut falls at a line boundary, closes a block it left
//! open, and says that it cut.

const TRUNCATED: &str = "... (truncated)\n";
const CLOSE: &str = "</diagnostics>\n";

/// Cuts `text` to at most `max` characters at a line boundary, closing a
/// `<diagnostics>` block left open and ending with `... (truncated)`.
pub fn cap(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let budget = max.saturating_sub(CLOSE.len() + TRUNCATED.len());
    let mut out = String::new();
    let mut used = 0;
    let mut open = false;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if used + n > budget {
            break;
        }
        used += n;
        out.push_str(line);
        if line.starts_with("<diagnostics ") {
            open = true;
        } else if line.starts_with("</diagnostics>") {
            open = false;
        }
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if open {
        out.push_str(CLOSE);
    }
    out.push_str(TRUNCATED);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(cap("a\nb\n".into(), 100), "a\nb\n");
    }

    #[test]
    fn long_text_is_cut_at_a_line_closing_the_open_block() {
        let mut text = String::from(
            "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.py\">\n",
        );
        for i in 0..1000 {
            text.push_str(&format!("ERROR [{i}:1] something is wrong here\n"));
        }
        text.push_str("</diagnostics>\n");
        let out = cap(text, 1000);
        assert!(out.chars().count() <= 1000, "{}", out.len());
        assert!(
            out.ends_with(" something is wrong here\n</diagnostics>\n... (truncated)\n"),
            "{out}"
        );
        assert!(out.starts_with(
            "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.py\">\nERROR [0:1]"
        ));
        assert!(out.lines().all(|l| !l.is_empty()));
    }
}
