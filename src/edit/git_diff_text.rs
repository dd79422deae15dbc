//! Two readings of `git diff` text every reader of a diff shares: a hunk
//! header's line ranges and git's quoting of unusual path names.

/// The line ranges of a `@@ -a,b +c,d @@` hunk header (a missing `,b` or
/// `,d` means one line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HunkRanges {
    pub old_start: usize,
    pub old_count: usize,
    pub new_start: usize,
    pub new_count: usize,
}

/// The ranges of the hunk header `line` (`@@ -l[,s] +l[,s] @@ ...`), or
/// `None` when it has no numbers (a Codex hunk's `@@ fn name`) or bad ones.
pub fn hunk_ranges(line: &str) -> Option<HunkRanges> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |text: &str| -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((text.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some(HunkRanges {
        old_start,
        old_count,
        new_start,
        new_count,
    })
}

/// The bytes of a path git quoted C-style (`"a\tb\303\251"`, maybe
/// followed by a tab and a timestamp), or `None` when `text` is not quoted.
pub fn unquote(text: &str) -> Option<Vec<u8>> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.rfind('"').map(|end| &t[..end]))?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(byte) = chars.next() {
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'a') => bytes.push(0x07),
            Some(b'b') => bytes.push(0x08),
            Some(b'f') => bytes.push(0x0c),
            Some(b'v') => bytes.push(0x0b),
            Some(digit @ b'0'..=b'7') => {
                let mut value = u32::from(digit - b'0');
                for _ in 0..2 {
                    if let Some(&next @ b'0'..=b'7') = chars.peek() {
                        value = value * 8 + u32::from(next - b'0');
                        chars.next();
                    }
                }
                bytes.push(value as u8);
            }
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hunk_headers_with_and_without_counts() {
        let r = |old_start, old_count, new_start, new_count| {
            Some(HunkRanges {
                old_start,
                old_count,
                new_start,
                new_count,
            })
        };
        assert_eq!(hunk_ranges("@@ -3,4 +3,5 @@ fn main() {"), r(3, 4, 3, 5));
        assert_eq!(hunk_ranges("@@ -3 +3 @@"), r(3, 1, 3, 1));
        assert_eq!(hunk_ranges("@@ -0,0 +1,2 @@"), r(0, 0, 1, 2));
        assert_eq!(hunk_ranges("@@ -10,2 +9,0 @@"), r(10, 2, 9, 0));
        assert_eq!(hunk_ranges("@@ -x +1 @@"), None);
        assert_eq!(hunk_ranges("@@ fn g"), None);
    }

    #[test]
    fn unquotes_what_git_quoted() {
        assert_eq!(unquote("plain"), None);
        assert_eq!(
            unquote("\"a\\tb\\303\\251\"").map(String::from_utf8),
            Some(Ok("a\tbé".to_string()))
        );
        assert_eq!(unquote("\"b/x y\"\t2024-01-01"), Some(b"b/x y".to_vec()));
    }
}
