//! What differs between operating systems, driven through the platform seams:
//! the workspace watch's query-time guarantee and URIs servers spell another way.

// The `.cmd` shim and the Job Object: Windows only.
#[cfg(windows)]
mod shim;
mod uri;
mod watch;
