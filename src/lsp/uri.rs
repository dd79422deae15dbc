//! `file://` URIs to and from filesystem paths.
//!
//! Servers compare URIs as strings, so the encoding must be canonical and the
//! same every time: every byte outside RFC 3986's unreserved set and `/` is
//! percent-encoded. Decoding accepts what servers send back, including
//! encoded and unencoded forms of the same characters.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The `file://` URI of an absolute path.
pub fn from_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    let text = String::from_utf8_lossy(bytes);
    format!("file://{}", utf8_percent_encode(&text, PATH_SEGMENT))
}

/// The path of a `file://` URI, or None for other schemes.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` both name /x.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let decoded: Vec<u8> = percent_decode_str(rest).collect();
    Some(PathBuf::from(OsStr::from_bytes(&decoded)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_odd_characters() {
        for p in [
            "/a/b.py",
            "/tmp/with space/é 😀.ts",
            "/x/[id]/page#1?.tsx",
            "/a/100%/b",
        ] {
            let uri = from_path(Path::new(p));
            assert!(
                !uri[7..].contains(' ') && !uri[7..].contains('#') && !uri[7..].contains('?'),
                "{uri}"
            );
            assert_eq!(to_path(&uri).as_deref(), Some(Path::new(p)), "{uri}");
        }
    }

    #[test]
    fn encodes_like_vscode_for_common_paths() {
        assert_eq!(
            from_path(Path::new("/home/u/my proj/a.ts")),
            "file:///home/u/my%20proj/a.ts"
        );
    }

    #[test]
    fn accepts_localhost_and_rejects_other_schemes() {
        assert_eq!(
            to_path("file://localhost/a/b").as_deref(),
            Some(Path::new("/a/b"))
        );
        assert_eq!(to_path("untitled:Untitled-1"), None);
        assert_eq!(to_path("https://x/y"), None);
    }
}
