//! The daemon's Unix socket: only the user's own processes may connect.

use std::io;
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use super::{Reader, Writer};
use crate::platform::paths::{file_id, user_id};

/// The endpoint file's extension.
pub const ENDPOINT_EXTENSION: &str = "sock";

/// A bound socket.
pub struct Listener {
    inner: UnixListener,
    path: PathBuf,
    id: Option<u64>,
}

impl Listener {
    /// Binds `path` (the caller holds the starters' lock), or `None` when a
    /// live daemon already answers there. A socket nobody listens on is
    /// removed first.
    pub fn bind(path: &Path) -> io::Result<Option<Listener>> {
        if path.exists() {
            match std::os::unix::net::UnixStream::connect(path) {
                Ok(_) => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    tracing::info!(socket = %path.display(), "removing a stale socket");
                    let _ = std::fs::remove_file(path);
                }
                Err(_) => {}
            }
        }
        // SAFETY: umask only swaps the process's file creation mask. The
        // socket is created 600 with no window where others could connect.
        let old = unsafe { libc::umask(0o077) };
        let bound = UnixListener::bind(path);
        // SAFETY: as above; restores the previous mask.
        unsafe { libc::umask(old) };
        let inner = match bound {
            Ok(listener) => listener,
            Err(e) if e.kind() == io::ErrorKind::AddrInUse => return Ok(None),
            Err(e) => return Err(e),
        };
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        let id = std::fs::metadata(path).ok().and_then(|m| file_id(&m));
        Ok(Some(Listener {
            inner,
            path: path.to_path_buf(),
            id,
        }))
    }

    /// The next connection from our own user; others are refused (and
    /// logged), as `None`.
    pub async fn accept(&self) -> io::Result<Option<(Reader, Writer)>> {
        let (stream, _) = self.inner.accept().await?;
        if !same_user(&stream) {
            return Ok(None);
        }
        let (read, write) = stream.into_split();
        Ok(Some((Box::new(read), Box::new(write))))
    }

    /// Removes the socket file, if it is still ours (another daemon may
    /// have replaced it), so that no new client connects into a closing
    /// daemon.
    pub fn close(self) {
        let now = std::fs::metadata(&self.path).ok().and_then(|m| file_id(&m));
        if now == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Connects to the daemon at `path`; `None` when nobody listens there.
pub async fn connect(path: &Path) -> io::Result<Option<(Reader, Writer)>> {
    match UnixStream::connect(path).await {
        Ok(stream) => {
            let (read, write) = stream.into_split();
            Ok(Some((Box::new(read), Box::new(write))))
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Only our own user may talk to the daemon.
fn same_user(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == user_id() => true,
        Ok(cred) => {
            tracing::warn!(uid = cred.uid(), "refused a connection from another user");
            false
        }
        Err(e) => {
            tracing::warn!("refused a connection without peer credentials: {e}");
            false
        }
    }
}
