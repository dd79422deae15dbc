//! Facts about a file that differ by platform: what kind of special file it
//! is, whether an error is a symlink loop, whether its permissions forbid a
//! plain write and how to say so. `edit::vet` asks; this seam answers.

use std::fs::Metadata;
use std::io;
use std::path::Path;

/// Opens `path` for reading in a way that cannot block on what stands
/// there: on Unix without waiting for a writer (`O_NONBLOCK`, so a named
/// pipe swapped in after its metadata was read opens at once and is then
/// refused from the open file's own metadata) and without making a
/// terminal the controlling one.
pub fn open_for_reading(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// What a file that is neither regular nor a directory is, in words.
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() || kind.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a named pipe");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
    }
    Some("a special file")
}

pub fn is_loop(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Whether a plain write of `path` would be refused for its permissions.
/// Root passes every permission check, so for root (where tests run too)
/// the mode bits decide: no write bit at all means read-only. Anyone else
/// asks the kernel (`access(2)`, which also knows ACLs and read-only mounts).
#[cfg(unix)]
pub fn mode_forbids_writing(path: &Path, meta: &Metadata) -> bool {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return meta.permissions().mode() & 0o222 == 0;
    }
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: c_path is a valid NUL-terminated string that outlives the call.
    if unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } == 0 {
        return false;
    }
    let errno = io::Error::last_os_error().raw_os_error();
    matches!(errno, Some(libc::EACCES | libc::EPERM | libc::EROFS))
}

#[cfg(not(unix))]
pub fn mode_forbids_writing(_path: &Path, meta: &Metadata) -> bool {
    meta.permissions().readonly()
}

#[cfg(unix)]
pub fn describe_mode(meta: &Metadata) -> String {
    use std::os::unix::fs::PermissionsExt;
    format!("mode {:04o}", meta.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
pub fn describe_mode(_meta: &Metadata) -> String {
    "the read-only attribute is set".to_string()
}
