//! Connecting to a language server someone else started (a server entry's
//! `connect`): a TCP port on this machine everywhere, a Unix socket where
//! the platform has them. The one place that knows which streams exist, so
//! that the LSP client reads and writes a connection the way it reads and
//! writes a child's stdio, with no `cfg` of its own.
//!
//! Only loopback addresses are accepted: LSP has no authentication and no
//! encryption, and what crosses it is the text of the user's files.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use tokio::io::{AsyncRead, AsyncWrite};

/// Where a running server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A loopback address and port.
    Tcp(SocketAddr),
    /// A Unix domain socket's path (absolute).
    Unix(PathBuf),
}

/// What `connect` accepts, for error messages.
pub const EXPECTED: &str =
    "127.0.0.1:PORT, [::1]:PORT, localhost:PORT or the absolute path of a Unix socket";

impl Endpoint {
    /// Reads `127.0.0.1:PORT`, `[::1]:PORT`, `localhost:PORT` or an
    /// absolute socket path; the error says what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Endpoint, String> {
        let text = text.trim();
        if text.starts_with('/') || std::path::Path::new(text).is_absolute() {
            return Ok(Endpoint::Unix(PathBuf::from(text)));
        }
        let address = match text.strip_prefix("localhost:") {
            Some(port) => port
                .parse::<u16>()
                .map(|port| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port))
                .map_err(|_| format!("\"{text}\" has no port number 1-65535")),
            None => text
                .parse::<SocketAddr>()
                .map_err(|_| format!("\"{text}\" is neither an address:port nor an absolute path")),
        }?;
        if address.port() == 0 {
            return Err(format!("\"{text}\" has port 0; a port is 1-65535"));
        }
        if !address.ip().is_loopback() {
            return Err(format!(
                "{} is not a loopback address: squiggle sends files' text unencrypted and unauthenticated, so it connects only to this machine",
                address.ip()
            ));
        }
        Ok(Endpoint::Tcp(address))
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Tcp(address) => write!(f, "{address}"),
            Endpoint::Unix(path) => write!(f, "{}", path.display()),
        }
    }
}

/// One open connection, split so that one task reads while another writes.
pub struct Connection {
    pub read: Box<dyn AsyncRead + Send + Unpin>,
    pub write: Box<dyn AsyncWrite + Send + Unpin>,
}

/// Opens a connection to `endpoint`; the error names it.
pub async fn connect(endpoint: &Endpoint) -> std::io::Result<Connection> {
    let opened = match endpoint {
        Endpoint::Tcp(address) => tcp(*address).await,
        Endpoint::Unix(path) => unix(path).await,
    };
    opened.map_err(|e| std::io::Error::new(e.kind(), format!("cannot connect to {endpoint}: {e}")))
}

async fn tcp(address: SocketAddr) -> std::io::Result<Connection> {
    let stream = tokio::net::TcpStream::connect(address).await?;
    // Frames are written whole: no reason to hold a small one back.
    stream.set_nodelay(true)?;
    let (read, write) = stream.into_split();
    Ok(Connection {
        read: Box::new(read),
        write: Box::new(write),
    })
}

#[cfg(unix)]
async fn unix(path: &std::path::Path) -> std::io::Result<Connection> {
    let (read, write) = tokio::net::UnixStream::connect(path).await?.into_split();
    Ok(Connection {
        read: Box::new(read),
        write: Box::new(write),
    })
}

#[cfg(not(unix))]
async fn unix(_path: &std::path::Path) -> std::io::Result<Connection> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "Unix sockets are not supported on this platform; listen on 127.0.0.1:PORT instead",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_loopback_addresses_and_socket_paths() {
        let local = |port| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port);
        assert_eq!(
            Endpoint::parse("127.0.0.1:4389"),
            Ok(Endpoint::Tcp(local(4389)))
        );
        assert_eq!(
            Endpoint::parse("localhost:4389"),
            Ok(Endpoint::Tcp(local(4389)))
        );
        assert!(matches!(
            Endpoint::parse("[::1]:7"),
            Ok(Endpoint::Tcp(a)) if a.ip().is_loopback()
        ));
        assert_eq!(
            Endpoint::parse("/run/gopls.sock"),
            Ok(Endpoint::Unix("/run/gopls.sock".into()))
        );
    }

    #[test]
    fn refuses_remote_addresses_port_zero_and_nonsense() {
        for (text, says) in [
            ("10.0.0.2:4389", "not a loopback address"),
            ("127.0.0.1:0", "port 0"),
            ("localhost:99999", "no port number"),
            ("gopls.sock", "neither"),
            ("127.0.0.1", "neither"),
        ] {
            let error = Endpoint::parse(text).err().unwrap_or_default();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[tokio::test]
    async fn a_refused_connection_names_the_endpoint() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("address");
        drop(listener);
        let endpoint = Endpoint::Tcp(address);
        let error = connect(&endpoint).await.err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains(&address.to_string())),
            "{error:?}"
        );
    }
}
