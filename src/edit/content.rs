//! Decides whether bytes are text squiggle may hand to language servers.
//!
//! LSP documents are UTF-8 strings, so anything that is not valid UTF-8 or
//! holds a NUL byte (the usual mark of a binary file) is skipped, and very
//! large files are skipped too: servers choke on them and agents rarely edit
//! them by hand.

/// The default size bound for text sent to servers: 2 MiB.
pub const DEFAULT_MAX_BYTES: usize = 2 * 1024 * 1024;

/// What a file's bytes are, as far as squiggle is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// Valid UTF-8, no NUL byte, within the size bound.
    Text,
    /// Invalid UTF-8 or contains a NUL byte.
    Binary,
    /// Larger than the size bound (checked first, without scanning).
    TooLarge,
}

/// Classifies `bytes`; at most `max_bytes` (see [`DEFAULT_MAX_BYTES`]) count
/// as text.
pub fn classify_content(bytes: &[u8], max_bytes: usize) -> ContentKind {
    if bytes.len() > max_bytes {
        return ContentKind::TooLarge;
    }
    if bytes.contains(&0) || std::str::from_utf8(bytes).is_err() {
        return ContentKind::Binary;
    }
    ContentKind::Text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_binary_and_size() {
        assert_eq!(
            classify_content(b"fn main() {}\n", DEFAULT_MAX_BYTES),
            ContentKind::Text
        );
        assert_eq!(
            classify_content("héllo — ✓\n".as_bytes(), DEFAULT_MAX_BYTES),
            ContentKind::Text
        );
        assert_eq!(classify_content(b"", DEFAULT_MAX_BYTES), ContentKind::Text);
        assert_eq!(
            classify_content(b"abc\0def", DEFAULT_MAX_BYTES),
            ContentKind::Binary
        );
        assert_eq!(
            classify_content(b"\xff\xfe\x00a", DEFAULT_MAX_BYTES),
            ContentKind::Binary
        );
        assert_eq!(
            classify_content(b"caf\xe9", DEFAULT_MAX_BYTES),
            ContentKind::Binary
        );
        assert_eq!(classify_content(b"12345", 5), ContentKind::Text);
        assert_eq!(classify_content(b"123456", 5), ContentKind::TooLarge);
        assert_eq!(
            classify_content(&vec![b'a'; DEFAULT_MAX_BYTES + 1], DEFAULT_MAX_BYTES),
            ContentKind::TooLarge
        );
    }
}
