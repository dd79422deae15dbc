//! What stands at a path before a mutation touches it.
//!
//! A mutation reads the file it changes and then replaces it (a temporary
//! file renamed over it). Both are wrong for anything but a regular file:
//! opening a named pipe blocks until someone writes into it, a device reads
//! forever, and a rename over a socket silently turns it into a file. So
//! anything else is refused here, from its metadata alone, before anything
//! opens it; a symbolic link loop is named as one rather than reported as a
//! path outside the workspace; and a file whose mode forbids writing is
//! refused as a plain write would refuse it — a rename needs only the
//! directory's permission, so without this check squiggle would replace a
//! file its owner had made read-only.
//!
//! Readers use the same rule: every path squiggle reads whole or in part
//! (sessions, navigation, impact, the importer scans, configuration, the
//! evidence log, `audit`) goes through [`read_regular`] or
//! [`read_regular_head`], which refuse anything but a regular file from its
//! metadata, open without waiting on a pipe swapped in meanwhile, check the
//! open file again, and never read past a size limit.

use std::fs::{self, Metadata};
use std::io::{self, Read};
use std::path::Path;

use super::EditError;
use crate::platform::file_facts::{
    describe_mode, is_loop, mode_forbids_writing, open_for_reading, special_kind,
};

/// The most a reader reads of a file it needs whole, unless it says less:
/// the largest text a session, a check or a navigation request handles.
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

/// Refuses a path whose file exists and is not a regular file (a directory
/// is left to the read or write that follows, which names it), or that is a
/// symbolic link loop. `shown` names the path in the error. A path that
/// does not exist yet passes.
pub fn vet_path(path: &Path, shown: &str) -> Result<(), EditError> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if is_loop(&e) => {
            return Err(EditError::SymlinkLoop {
                path: shown.to_string(),
            });
        }
        // Missing, or unreadable metadata: the read or write that follows
        // says why.
        Err(_) => return Ok(()),
    };
    match special_kind(&meta) {
        Some(kind) => Err(EditError::NotRegular {
            path: shown.to_string(),
            kind,
        }),
        None => Ok(()),
    }
}

/// What the file at `path` is when it is neither a regular file nor a
/// directory ("a named pipe"), from its metadata alone: for a reader that
/// must not open it (a check of a path a hook names).
pub fn special_file(path: &Path) -> Option<&'static str> {
    fs::metadata(path).ok().as_ref().and_then(special_kind)
}

/// The error a reader returns for a file that is not a regular one.
fn not_regular(kind: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {kind}, not a regular file, and squiggle never opens one"),
    )
}

fn too_large(len: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("it is {len} bytes, over the limit of {limit} bytes"),
    )
}

/// `path` opened for reading, when it is a regular file (or a directory,
/// which the read then refuses): refused from its metadata before opening,
/// opened without blocking, and checked again from the open file. Returns
/// the file and its length.
pub fn open_regular(path: &Path) -> io::Result<(fs::File, u64)> {
    let meta = fs::metadata(path)?;
    if let Some(kind) = special_kind(&meta) {
        return Err(not_regular(kind));
    }
    let file = open_for_reading(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = special_kind(&meta) {
        return Err(not_regular(kind));
    }
    Ok((file, meta.len()))
}

/// The bytes of the regular file at `path`, refused (nothing read) when
/// it holds more than `limit` bytes.
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path)?;
    if len > limit {
        return Err(too_large(len, limit));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let read = bytes.len() as u64;
    if read > limit {
        return Err(too_large(read, limit));
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path, limit)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// At most `limit` bytes from the start of the regular file at `path`,
/// into `buf` (cleared first).
pub fn read_regular_head(path: &Path, limit: u64, buf: &mut Vec<u8>) -> io::Result<()> {
    buf.clear();
    let (file, _) = open_regular(path)?;
    file.take(limit).read_to_end(buf).map(|_| ())
}

/// Why the existing file at `path` may not be replaced, when its mode (or
/// the platform's read-only attribute) forbids writing it; `None` when a
/// plain write would be allowed or the file does not exist.
pub(super) fn write_forbidden(path: &Path, meta: &Metadata) -> Option<io::Error> {
    if !mode_forbids_writing(path, meta) {
        return None;
    }
    Some(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "it is read-only ({}), and squiggle never replaces a file that a plain write would be refused; make it writable first if it should change",
            describe_mode(meta)
        ),
    ))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn special_files_and_loops_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()));
        let err = vet_path(&fifo, "pipe").unwrap_err().to_string();
        assert!(
            err.starts_with("pipe is a named pipe, not a regular file"),
            "{err}"
        );
        let socket = tmp.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = vet_path(&socket, "sock").unwrap_err().to_string();
        assert!(err.starts_with("sock is a socket"), "{err}");
        let err = vet_path(Path::new("/dev/null"), "null")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("null is a character device"), "{err}");
        let looped = tmp.path().join("loop");
        std::os::unix::fs::symlink("loop", &looped).unwrap();
        let err = vet_path(&looped, "loop").unwrap_err().to_string();
        assert!(err.starts_with("loop is a symbolic link loop"), "{err}");
        let inner = tmp.path().join("loop/inner.txt");
        let err = vet_path(&inner, "loop/inner.txt").unwrap_err().to_string();
        assert!(err.contains("symbolic link loop"), "{err}");
    }

    #[test]
    fn readers_refuse_pipes_and_devices_and_stop_at_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()));
        let err = read_regular(&fifo, 10).unwrap_err().to_string();
        assert!(err.starts_with("it is a named pipe"), "{err}");
        let mut buf = Vec::new();
        let err = read_regular_head(&fifo, 10, &mut buf).unwrap_err();
        assert!(err.to_string().starts_with("it is a named pipe"), "{err}");
        let err = read_regular(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        let file = tmp.path().join("f.txt");
        fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_regular(&file, 10).unwrap(), b"0123456789");
        let err = read_regular(&file, 9).unwrap_err().to_string();
        assert_eq!(err, "it is 10 bytes, over the limit of 9 bytes");
        read_regular_head(&file, 4, &mut buf).unwrap();
        assert_eq!(buf, b"0123");
    }

    #[test]
    fn regular_files_directories_and_new_paths_pass() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f.txt");
        fs::write(&file, "x").unwrap();
        assert!(vet_path(&file, "f.txt").is_ok());
        assert!(vet_path(tmp.path(), ".").is_ok());
        assert!(vet_path(&tmp.path().join("new/g.txt"), "new/g.txt").is_ok());
    }

    #[test]
    fn a_file_without_write_bits_is_read_only_for_root_too() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("ro.txt");
        fs::write(&file, "x").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o444)).unwrap();
        let meta = fs::metadata(&file).unwrap();
        let err = write_forbidden(&file, &meta).map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.starts_with("it is read-only (mode 0444)")),
            "{err:?}"
        );
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let meta = fs::metadata(&file).unwrap();
        assert!(write_forbidden(&file, &meta).is_none());
    }
}
