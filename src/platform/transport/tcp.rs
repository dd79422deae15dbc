//! The daemon on a loopback TCP port, guarded by a token: the transport
//! Windows uses (`docs/security.md` has the threat model). The daemon
//! binds `127.0.0.1` on a port the system chooses and writes
//! `<address>\n<token>\n<pid>\n` into the endpoint file, in the user's private
//! runtime directory; the token is 32 random bytes from the system's
//! generator, new for every daemon. A client reads the file and sends the
//! token as its first line; the daemon compares it in constant time and
//! drops a connection that sends anything else, or nothing within
//! [`HELLO_TIMEOUT`], without answering it.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{Reader, Writer};
use crate::platform::paths::private_file;

/// The endpoint file's extension.
pub const ENDPOINT_EXTENSION: &str = "endpoint";

/// How long a connection has to send the token.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// Hex digits in a token.
const TOKEN_LEN: usize = 64;

/// A bound port and the token it asks for.
pub struct Listener {
    inner: TcpListener,
    path: PathBuf,
    contents: String,
    token: String,
}

impl Listener {
    /// Binds a loopback port and publishes it with a new token in `path`
    /// (the caller holds the starters' lock), or `None` when a live daemon
    /// already answers at the address `path` names. An endpoint nobody
    /// answers on is replaced.
    pub fn bind(path: &Path) -> io::Result<Option<Listener>> {
        if let Some(endpoint) = read_endpoint(path) {
            // Its daemon is alive and answering (a port reused by some
            // other program after the daemon died does not count).
            let answers = || {
                std::net::TcpStream::connect_timeout(&endpoint.addr, Duration::from_secs(1)).is_ok()
            };
            if crate::platform::process::alive(endpoint.pid) && answers() {
                return Ok(None);
            }
            tracing::info!(endpoint = %path.display(), "removing a stale endpoint");
            let _ = std::fs::remove_file(path);
        }
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let inner = TcpListener::from_std(listener)?;
        let token = new_token()?;
        let contents = format!("{}\n{token}\n{}\n", inner.local_addr()?, std::process::id());
        // Written whole under another name, then renamed: a client never
        // reads half an endpoint.
        let tmp = path.with_extension("endpoint-new");
        {
            use std::io::Write;
            let mut file = private_file()
                .create(true)
                .truncate(true)
                .write(true)
                .open(&tmp)?;
            file.write_all(contents.as_bytes())?;
        }
        crate::platform::replace::rename_over(&tmp, path)?;
        Ok(Some(Listener {
            inner,
            path: path.to_path_buf(),
            contents,
            token,
        }))
    }

    /// The next connection that sent the token; one that did not is
    /// dropped (and logged), as `None`.
    pub async fn accept(&self) -> io::Result<Option<(Reader, Writer)>> {
        let (mut stream, peer) = self.inner.accept().await?;
        let hello = tokio::time::timeout(HELLO_TIMEOUT, read_line(&mut stream)).await;
        match hello {
            Ok(Ok(line)) if same(line.as_bytes(), self.token.as_bytes()) => {
                let (read, write) = stream.into_split();
                Ok(Some((Box::new(read), Box::new(write))))
            }
            _ => {
                tracing::warn!(%peer, "refused a connection without the daemon's token");
                Ok(None)
            }
        }
    }

    /// Removes the endpoint file, if it still names this daemon.
    pub fn close(self) {
        if std::fs::read_to_string(&self.path).is_ok_and(|now| now == self.contents) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Connects to the daemon that `path` names and sends its token; `None`
/// when there is no endpoint or nobody answers at its address.
pub async fn connect(path: &Path) -> io::Result<Option<(Reader, Writer)>> {
    let Some(Endpoint { addr, token, .. }) = read_endpoint(path) else {
        return Ok(None);
    };
    let mut stream = match TcpStream::connect(addr).await {
        Ok(stream) => stream,
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Ok(None),
        Err(e) => return Err(e),
    };
    stream.set_nodelay(true)?;
    stream.write_all(format!("{token}\n").as_bytes()).await?;
    let (read, write) = stream.into_split();
    Ok(Some((Box::new(read), Box::new(write))))
}

/// What an endpoint file says.
struct Endpoint {
    addr: SocketAddr,
    token: String,
    pid: u32,
}

/// The endpoint in a file; `None` when it is missing or not one (half
/// written files are never seen: they are renamed whole).
fn read_endpoint(path: &Path) -> Option<Endpoint> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let addr: SocketAddr = lines.next()?.parse().ok()?;
    let token = lines.next()?.to_string();
    let pid = lines.next()?.parse().ok()?;
    let valid = addr.ip().is_loopback() && token.len() == TOKEN_LEN;
    valid.then_some(Endpoint { addr, token, pid })
}

fn new_token() -> io::Result<String> {
    let mut bytes = [0u8; TOKEN_LEN / 2];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(format!("no random token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The first line a client sends, at most a token's length (and its end
/// of line) long.
async fn read_line(stream: &mut TcpStream) -> io::Result<String> {
    let mut line = Vec::with_capacity(TOKEN_LEN + 1);
    let mut byte = [0u8; 1];
    while line.len() <= TOKEN_LEN {
        if stream.read(&mut byte).await? == 0 {
            break;
        }
        if byte[0] == b'\n' {
            return Ok(String::from_utf8_lossy(&line).into_owned());
        }
        line.push(byte[0]);
    }
    Err(io::Error::new(io::ErrorKind::InvalidData, "no token line"))
}

/// Compares two byte strings in time that depends on their lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncBufReadExt;

    fn endpoint() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("0123456789abcdef.endpoint");
        (dir, path)
    }

    /// Echoes one line per accepted connection; counts refusals.
    async fn serve_one(listener: Listener) -> bool {
        match listener.accept().await {
            Ok(Some((read, mut write))) => {
                let mut lines = tokio::io::BufReader::new(read).lines();
                if let Ok(Some(line)) = lines.next_line().await {
                    let _ = write.write_all(format!("echo {line}\n").as_bytes()).await;
                }
                true
            }
            _ => false,
        }
    }

    #[tokio::test]
    async fn a_client_with_the_token_is_served() {
        let (_dir, path) = endpoint();
        let Ok(Some(listener)) = Listener::bind(&path) else {
            panic!("no listener")
        };
        let server = tokio::spawn(serve_one(listener));
        let Ok(Some((read, mut write))) = connect(&path).await else {
            panic!("no connection")
        };
        write
            .write_all(b"hello\n")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut lines = tokio::io::BufReader::new(read).lines();
        let answer = lines.next_line().await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer.as_deref(), Some("echo hello"));
        assert!(server.await.unwrap_or(false));
    }

    #[tokio::test]
    async fn a_client_without_the_token_is_refused_unheard() {
        let (_dir, path) = endpoint();
        let Ok(Some(listener)) = Listener::bind(&path) else {
            panic!("no listener")
        };
        let endpoint = read_endpoint(&path).unwrap_or_else(|| panic!("no endpoint"));
        let server = tokio::spawn(serve_one(listener));
        let mut stream = TcpStream::connect(endpoint.addr)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let wrong: String = endpoint.token.chars().rev().collect();
        stream
            .write_all(format!("{wrong}\nhello\n").as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!server.await.unwrap_or(true), "served without the token");
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest).await;
        assert!(rest.is_empty(), "answered: {rest:?}");
    }

    #[tokio::test]
    async fn a_stale_endpoint_is_replaced_and_a_live_one_kept() {
        let (_dir, path) = endpoint();
        let first = Listener::bind(&path).unwrap_or_else(|e| panic!("{e}"));
        let first = first.unwrap_or_else(|| panic!("no listener"));
        // A live daemon answers: a second one does not bind.
        assert!(matches!(Listener::bind(&path), Ok(None)));
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        // Killed without cleaning up: the file stays, nobody answers.
        drop(first);
        let second = Listener::bind(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(second.is_some(), "the stale endpoint was not replaced");
        let after = std::fs::read_to_string(&path).unwrap_or_default();
        assert_ne!(before, after, "a new address and token");
        if let Some(second) = second {
            second.close();
        }
        assert!(!path.exists(), "closed: the endpoint is removed");
    }

    #[test]
    fn tokens_are_new_each_time_and_compared_whole() {
        let (a, b) = (new_token(), new_token());
        assert!(matches!((&a, &b), (Ok(a), Ok(b)) if a != b && a.len() == TOKEN_LEN));
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
