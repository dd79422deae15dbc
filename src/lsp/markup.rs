//! LSP 3.18 lets a server send a diagnostic's message as `MarkupContent`
//! (`{"kind": "markdown", "value": …}`). squiggle's replies are plain text
//! that the renderers escape: markdown passed through would show the model
//! backticks, emphasis marks, fences and link targets as if the server had
//! written them. So a markdown message is flattened to the text a reader
//! of the rendered markdown sees; a `plaintext` one is taken as it is.

/// `value` of a `MarkupContent` of `kind`, as plain text.
pub fn plain(kind: &str, value: &str) -> String {
    if kind != "markdown" {
        return value.to_string();
    }
    let lines: Vec<String> = value
        .lines()
        .filter(|line| !line.trim_start().starts_with("```"))
        .map(flatten_line)
        .collect();
    lines.join("\n").trim().to_string()
}

/// One line of markdown without its inline marks: code spans keep their
/// text verbatim, `**`/`__` emphasis goes, `[text](target)` keeps `text`, a
/// backslash escape keeps the character it escapes, and a leading `#`
/// heading mark goes.
fn flatten_line(line: &str) -> String {
    let heading = line.trim_start_matches('#');
    let line = match heading.strip_prefix(' ') {
        Some(rest) if heading.len() < line.len() => rest,
        _ => line,
    };
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\\' if next.is_some_and(|n| n.is_ascii_punctuation()) => {
                out.extend(next);
                i += 2;
            }
            // A code span's text is kept as written (`__init__`).
            '`' => match chars[i + 1..].iter().position(|&c| c == '`') {
                Some(len) => {
                    out.extend(&chars[i + 1..i + 1 + len]);
                    i += len + 2;
                }
                None => i += 1,
            },
            '*' | '_' if next == Some(c) => i += 2,
            '[' => match link(&chars[i..]) {
                Some((text, used)) => {
                    out.push_str(&flatten_line(&text));
                    i += used;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            },
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `[text](target)` at the start of `chars`: its text, and how many
/// characters it spans.
fn link(chars: &[char]) -> Option<(String, usize)> {
    let close = chars.iter().position(|&c| c == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = chars[close + 2..].iter().position(|&c| c == ')')? + close + 2;
    Some((chars[1..close].iter().collect(), end + 1))
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn markdown_is_flattened_and_plaintext_kept() {
        assert_eq!(
            plain(
                "markdown",
                "Type `int` is **not** assignable to [`str`](https://docs/x)\\_ok"
            ),
            "Type int is not assignable to str_ok"
        );
        assert_eq!(
            plain("markdown", "```python\nx: str = 1\n```\n# Bad type"),
            "x: str = 1\nBad type"
        );
        assert_eq!(
            plain("plaintext", "keep `this` **raw**"),
            "keep `this` **raw**"
        );
        assert_eq!(
            plain("markdown", "a_b snake_case [x] y"),
            "a_b snake_case [x] y"
        );
        assert_eq!(plain("markdown", "#include missing"), "#include missing");
        assert_eq!(plain("markdown", "`__init__` of **A**"), "__init__ of A");
    }
}
