//! What differs between operating systems, driven through the platform seams:
//! the workspace watch's query-time guarantee, URIs servers spell another way,
//! the handles a started daemon must not inherit, and (Windows) two
//! spellings of one file on a case-insensitive file system.

// Two spellings of one file: Windows only (Linux is case-sensitive).
#[cfg(windows)]
mod case;
// The `.cmd` shim and the Job Object: Windows only.
mod daemon_handles;
#[cfg(windows)]
mod shim;
mod uri;
mod watch;
