//! What differs between operating systems, driven through the platform seams:
//! the workspace watch's query-time guarantee, URIs servers spell another way,
//! and the handles a started daemon must not inherit.

// The `.cmd` shim and the Job Object: Windows only.
mod daemon_handles;
#[cfg(windows)]
mod shim;
mod uri;
mod watch;
