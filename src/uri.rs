//! `file://` URIs to and from filesystem paths, on every platform.
//!
//! Servers compare URIs as strings, so the encoding must be canonical and the
//! same every time: every byte outside RFC 3986's unreserved set and `/` is
//! percent-encoded. Decoding accepts what servers send back, including
//! encoded and unencoded forms of the same characters.
//!
//! Windows paths: a drive path `C:\a\b.ts` is `file:///C:/a/b.ts` (drive
//! letter upper case, colon not encoded), a UNC path `\\server\share\x` is
//! `file://server/share/x`, and a verbatim prefix (`\\?\C:\`, `\\?\UNC\`)
//! is dropped. Servers send the same files back as `file:///c%3A/a/b.ts`
//! (VS Code's spelling) or with another case of drive letter; [`canonical`]
//! turns any of them into the one spelling squiggle uses, so a server's
//! answer is found under the document squiggle sent. The conversions are
//! pure string functions ([`windows_path_to_uri`], [`windows_uri_to_path`]),
//! tested on every platform.

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
    #[cfg(windows)]
    {
        windows_path_to_uri(&path.to_string_lossy())
    }
    #[cfg(not(windows))]
    {
        unix_path_to_uri(path)
    }
}

/// The path of a `file://` URI, or None for other schemes.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    #[cfg(windows)]
    {
        windows_uri_to_path(uri).map(PathBuf::from)
    }
    #[cfg(not(windows))]
    {
        unix_uri_to_path(uri)
    }
}

/// The one spelling of a URI a server sent: a `file://` URI as
/// [`from_path`] writes its path; any other as it is.
pub fn canonical(uri: &str) -> String {
    match to_path(uri) {
        Some(path) => from_path(&path),
        None => uri.to_string(),
    }
}

#[cfg(not(windows))]
fn unix_path_to_uri(path: &Path) -> String {
    let text = String::from_utf8_lossy(path.as_os_str().as_encoded_bytes());
    format!("file://{}", utf8_percent_encode(&text, PATH_SEGMENT))
}

#[cfg(unix)]
fn unix_uri_to_path(uri: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` both name /x.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let decoded: Vec<u8> = percent_decode_str(rest).collect();
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(&decoded)))
}

#[cfg(not(any(unix, windows)))]
fn unix_uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    Some(PathBuf::from(
        percent_decode_str(rest).decode_utf8_lossy().into_owned(),
    ))
}

/// The `file://` URI of a Windows path (`C:\a\b`, `\\server\share\x`,
/// `\\?\C:\a`); `/` and `\` both separate.
pub fn windows_path_to_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    // A verbatim prefix (`\\?\`) is not part of the file's name.
    let path = match path.strip_prefix("//?/") {
        Some(rest) => match rest.strip_prefix("UNC/") {
            Some(unc) => format!("//{unc}"),
            None => rest.to_string(),
        },
        None => path,
    };
    if let Some(unc) = path.strip_prefix("//") {
        let (host, rest) = unc.split_once('/').unwrap_or((unc, ""));
        return format!(
            "file://{}/{}",
            host.to_ascii_lowercase(),
            utf8_percent_encode(rest, PATH_SEGMENT)
        );
    }
    if let Some((drive, rest)) = split_drive(&path) {
        return format!(
            "file:///{}:{}",
            drive.to_ascii_uppercase(),
            utf8_percent_encode(rest, PATH_SEGMENT)
        );
    }
    format!("file://{}", utf8_percent_encode(&path, PATH_SEGMENT))
}

/// The Windows path of a `file://` URI: `file:///c%3A/a` and
/// `file:///C:/a` are `C:\a`, `file://server/share/x` is
/// `\\server\share\x`. None for other schemes and for URIs that name no
/// drive or share.
pub fn windows_uri_to_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let decoded = percent_decode_str(rest).decode_utf8_lossy().into_owned();
    let (host, path) = match decoded.find('/') {
        Some(i) => decoded.split_at(i),
        None => return None,
    };
    if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
        return Some(format!("\\\\{host}{}", path.replace('/', "\\")));
    }
    let (drive, rest) = split_drive(path.strip_prefix('/')?)?;
    let rest = if rest.is_empty() { "/" } else { rest };
    Some(format!(
        "{}:{}",
        drive.to_ascii_uppercase(),
        rest.replace('/', "\\")
    ))
}

/// `C:/rest` → (`C`, `/rest`).
fn split_drive(path: &str) -> Option<(char, &str)> {
    let mut chars = path.chars();
    let drive = chars.next().filter(char::is_ascii_alphabetic)?;
    let rest = chars.as_str().strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with('/')).then_some((drive, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
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

    #[cfg(unix)]
    #[test]
    fn encodes_like_vscode_for_common_paths() {
        assert_eq!(
            from_path(Path::new("/home/u/my proj/a.ts")),
            "file:///home/u/my%20proj/a.ts"
        );
    }

    #[cfg(unix)]
    #[test]
    fn accepts_localhost_and_rejects_other_schemes() {
        assert_eq!(
            to_path("file://localhost/a/b").as_deref(),
            Some(Path::new("/a/b"))
        );
        assert_eq!(to_path("untitled:Untitled-1"), None);
        assert_eq!(to_path("https://x/y"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_differently_encoded_uri_is_canonical_as_ours() {
        let ours = from_path(Path::new("/w/my proj/a-b.ts"));
        assert_eq!(canonical("file:///w/my%20proj/a%2Db.ts"), ours);
        assert_eq!(canonical("file://localhost/w/my proj/a-b.ts"), ours);
        assert_eq!(canonical("untitled:1"), "untitled:1");
    }

    #[test]
    fn windows_drive_paths_become_upper_case_unencoded_drive_uris() {
        assert_eq!(
            windows_path_to_uri(r"C:\Users\me\my proj\a.ts"),
            "file:///C:/Users/me/my%20proj/a.ts"
        );
        assert_eq!(windows_path_to_uri(r"c:\x\é.py"), "file:///C:/x/%C3%A9.py");
        assert_eq!(
            windows_path_to_uri(r"\\?\D:\src\m.rs"),
            "file:///D:/src/m.rs"
        );
        assert_eq!(
            windows_path_to_uri("C:/mixed\\seps.go"),
            "file:///C:/mixed/seps.go"
        );
    }

    #[test]
    fn windows_unc_paths_name_their_host() {
        assert_eq!(
            windows_path_to_uri(r"\\Server\share\dir\a b.ts"),
            "file://server/share/dir/a%20b.ts"
        );
        assert_eq!(
            windows_path_to_uri(r"\\?\UNC\server\share\x.py"),
            "file://server/share/x.py"
        );
        assert_eq!(
            windows_uri_to_path("file://server/share/dir/a%20b.ts").as_deref(),
            Some(r"\\server\share\dir\a b.ts")
        );
    }

    #[test]
    fn windows_uris_as_servers_send_them_back_name_the_same_file() {
        let ours = windows_path_to_uri(r"C:\w\src\main.ts");
        for theirs in [
            "file:///c%3A/w/src/main.ts",
            "file:///C%3A/w/src/main.ts",
            "file:///c:/w/src/main.ts",
            "file:///C:/w/src/main.ts",
            "file://localhost/c:/w/src/main.ts",
            "file:///c%3a/w/src/main.ts",
        ] {
            let path = windows_uri_to_path(theirs);
            assert_eq!(path.as_deref(), Some(r"C:\w\src\main.ts"), "{theirs}");
            assert_eq!(
                windows_path_to_uri(&path.unwrap_or_default()),
                ours,
                "{theirs}"
            );
        }
        assert_eq!(windows_uri_to_path("file:///C:").as_deref(), Some(r"C:\"));
        assert_eq!(windows_uri_to_path("file:///no-drive/x"), None);
        assert_eq!(windows_uri_to_path("untitled:1"), None);
    }
}
