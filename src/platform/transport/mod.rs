//! How a workspace's daemon and its clients reach each other, and how the
//! daemon refuses everyone but its user. One interface, two transports:
//!
//! - Unix (Linux, macOS): a Unix socket in the user's private runtime
//!   directory, created mode 600 (under a umask of 077, so there is no
//!   moment others could connect), and every connection's peer uid checked
//!   against ours ([`unix`]).
//! - Windows: a loopback TCP port guarded by a token ([`tcp`]): the daemon
//!   writes its address and a fresh 256-bit random token into the endpoint
//!   file in the user's private directory; a client must send the token
//!   first, or it is disconnected unheard. `docs/security.md` has the
//!   threat model. The TCP transport builds and is tested on every
//!   platform; only Windows uses it.
//!
//! Either way the endpoint is a file next to the starters' lock: a daemon
//! binds under that lock, and an endpoint nobody answers on (a daemon that
//! was killed) is removed first, so that recovery from a stale endpoint and
//! the start race work the same everywhere.

pub mod tcp;
#[cfg(unix)]
pub mod unix;

use tokio::io::{AsyncRead, AsyncWrite};

/// The reading half of a connection.
pub type Reader = Box<dyn AsyncRead + Send + Unpin>;
/// The writing half of a connection.
pub type Writer = Box<dyn AsyncWrite + Send + Unpin>;

#[cfg(unix)]
pub use unix::{ENDPOINT_EXTENSION, Listener, connect};

#[cfg(not(unix))]
pub use tcp::{ENDPOINT_EXTENSION, Listener, connect};
