//! What of a file may be sent to a language server: the caller's text or
//! the file on disk, refused (with the outcome that says why) when it is
//! not a regular file, unreadable, binary or over the size limit.

use std::path::Path;
use std::sync::Arc;

use super::report::ServerOutcome;
use crate::diagnostic::Outcome;
use crate::edit::{ContentKind, DEFAULT_MAX_BYTES, classify_content};

/// The text to send for a file: the caller's, or the file on disk; or why
/// none is sent (unreadable, binary, oversized).
pub(super) fn checkable_text(
    content: Option<Arc<str>>,
    canonical: &Path,
) -> Result<Arc<str>, ServerOutcome> {
    let text = match content {
        Some(text) => text,
        None => read_checkable(canonical)?,
    };
    // `memchr` is vectorized; `str::contains(char)` walks the text bytewise.
    if memchr::memchr(0, text.as_bytes()).is_some() {
        let detail = "binary content is not sent to servers".to_string();
        return Err(ServerOutcome::without_server(Outcome::BinaryFile, detail));
    }
    if text.len() > DEFAULT_MAX_BYTES {
        return Err(ServerOutcome::without_server(
            Outcome::BinaryFile,
            too_large(),
        ));
    }
    Ok(text)
}

/// Reads a file squiggle may send to servers, or says why not.
fn read_checkable(path: &Path) -> Result<Arc<str>, ServerOutcome> {
    // A named pipe would block the read until someone writes into it.
    if let Some(kind) = crate::edit::special_file(path) {
        return Err(ServerOutcome::without_server(
            Outcome::Unavailable,
            format!("{} is {kind}, not a regular file; not read", path.display()),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        ServerOutcome::without_server(
            Outcome::Unavailable,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    match classify_content(&bytes, DEFAULT_MAX_BYTES) {
        ContentKind::Text => Ok(Arc::from(String::from_utf8_lossy(&bytes).as_ref())),
        ContentKind::Binary => Err(ServerOutcome::without_server(
            Outcome::BinaryFile,
            "binary content is not sent to servers".into(),
        )),
        ContentKind::TooLarge => Err(ServerOutcome::without_server(
            Outcome::BinaryFile,
            too_large(),
        )),
    }
}

/// Why a file over the size limit is not checked.
fn too_large() -> String {
    format!(
        "files over {} MiB are not sent to servers",
        DEFAULT_MAX_BYTES / (1024 * 1024)
    )
}
