//! Why a session call was refused, each refusal naming what to do.

/// Why a session call was refused. Nothing changed when it is returned.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SessionError {
    /// Also another client's session: the same words, so that nothing
    /// tells it the session exists.
    #[error(
        "no session {id} is open to this client ({}); a session belongs to the connection or MCP session that opened it, and is discarded when that ends or after {idle} minutes untouched",
        held(open)
    )]
    Unknown {
        id: String,
        /// The client's own open sessions.
        open: Vec<String>,
        idle: u64,
    },
    #[error(
        "{max} {} open, the most lsp.sessions.maxOpen allows; commit or discard one first",
        if *max == 1 { "session is" } else { "sessions are" }
    )]
    TooMany { max: usize },
    #[error(
        "session {session} would hold {} of text, over the {} lsp.sessions.maxEditedMiB allows; nothing was changed",
        size(*bytes), size(*max)
    )]
    TooLarge {
        session: String,
        bytes: usize,
        max: usize,
    },
    #[error("{path} is not in session {session} (it holds {}); open a session over every file the change touches", held.join(", "))]
    NotInSession {
        session: String,
        path: String,
        held: Vec<String>,
    },
    #[error("{path} is outside the workspace {root}")]
    Outside { path: String, root: String },
    #[error("a session needs at least one file")]
    NoFiles,
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{0}; the session is unchanged")]
    Edit(String),
    #[error(
        "{path} changed on disk since session {session} opened; nothing was written; discard the session and redo the change on the file as it is now"
    )]
    ChangedOnDisk { session: String, path: String },
    #[error(
        "{path} no longer leads to the file session {session} opened (a directory or the file became a symbolic link); nothing was written; discard the session"
    )]
    Moved { session: String, path: String },
    #[error("session {session} was {how} while this call waited for it; nothing was changed")]
    Closed { session: String, how: &'static str },
    #[error("{0}")]
    Write(String),
}

fn held(open: &[String]) -> String {
    if open.is_empty() {
        "it has none".into()
    } else {
        format!("it has {}", open.join(", "))
    }
}

fn size(bytes: usize) -> String {
    if bytes < 1024 * 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::SessionError;

    #[test]
    fn one_session_is_said_in_the_singular() {
        assert_eq!(
            SessionError::TooMany { max: 1 }.to_string(),
            "1 session is open, the most lsp.sessions.maxOpen allows; commit or discard one first"
        );
    }
}
