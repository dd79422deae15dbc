//! Content-Length framing, the wire under every JSON-RPC message squiggle
//! reads or writes (LSP's base protocol, also used by the service and daemon).
//!
//! Lenient reading, strict writing: header names match case-insensitively,
//! `Content-Type` and unknown headers are ignored, junk lines some servers
//! print among the headers (`Listening on stdio`) are skipped, and a frame
//! that is too large is reported at once, from its header alone, then
//! skipped whole at the next read so the stream stays in sync (a client that
//! announces 100 TB and stops gets its parse error without waiting for
//! bytes that never come). End of input between frames is a clean
//! `Ok(None)`; inside a frame it is an error.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest body we accept unless told otherwise.
pub const DEFAULT_MAX_FRAME: usize = 64 * 1024 * 1024;
/// Header lines longer than this are junk, not headers.
const MAX_HEADER_LINE: usize = 8 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("reading the stream failed: {0}")]
    Io(#[from] io::Error),
    #[error("received a {size}-byte message, over the {limit}-byte limit; it is skipped unread")]
    TooLarge { size: usize, limit: usize },
    #[error("received headers without a valid Content-Length ({0})")]
    BadHeader(String),
    #[error("the stream ended inside a message")]
    Truncated,
}

impl FrameError {
    /// Whether the stream can still be read after this error (the bad frame
    /// was consumed whole), as opposed to the stream being over.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, FrameError::TooLarge { .. } | FrameError::BadHeader(_))
    }
}

/// Reads one framed body at a time from a buffered stream.
pub struct FrameReader<R> {
    inner: R,
    max_frame: usize,
    line: Vec<u8>,
    /// Bytes of an oversized frame, already reported, still to skip.
    skip: u64,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, DEFAULT_MAX_FRAME)
    }

    pub fn with_limit(inner: R, max_frame: usize) -> Self {
        FrameReader {
            inner,
            max_frame,
            line: Vec::with_capacity(64),
            skip: 0,
        }
    }

    /// The next message body, `Ok(None)` at a clean end of input.
    pub async fn read_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        if self.skip > 0 {
            let skip = std::mem::take(&mut self.skip);
            let skipped =
                tokio::io::copy(&mut (&mut self.inner).take(skip), &mut tokio::io::sink()).await?;
            if skipped < skip {
                return Err(FrameError::Truncated);
            }
        }
        let mut content_length: Option<usize> = None;
        let mut bad_length: Option<String> = None;
        let mut saw_header = false;
        loop {
            if !self.read_line().await? {
                // End of input: clean between frames, truncated inside headers.
                return if saw_header {
                    Err(FrameError::Truncated)
                } else {
                    Ok(None)
                };
            }
            let line = trim_line_end(&self.line);
            if line.is_empty() {
                if saw_header {
                    break;
                }
                continue; // a blank junk line before any header
            }
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                continue; // junk line without a colon: skip it
            };
            let name = &line[..colon];
            let value = String::from_utf8_lossy(&line[colon + 1..])
                .trim()
                .to_string();
            if name.eq_ignore_ascii_case(b"content-length") {
                saw_header = true;
                match value.parse::<usize>() {
                    Ok(n) => content_length = Some(n),
                    Err(_) => bad_length = Some(value),
                }
            } else if name.eq_ignore_ascii_case(b"content-type") {
                saw_header = true;
            }
            // Other "name: value" lines are unknown headers or junk: ignored.
        }
        let Some(size) = content_length else {
            return Err(FrameError::BadHeader(
                bad_length.unwrap_or_else(|| "missing".into()),
            ));
        };
        if size > self.max_frame {
            self.skip = size as u64;
            return Err(FrameError::TooLarge {
                size,
                limit: self.max_frame,
            });
        }
        let mut body = vec![0u8; size];
        match self.inner.read_exact(&mut body).await {
            Ok(_) => Ok(Some(body)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(FrameError::Truncated),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads one line into `self.line` (bounded; an overlong line is cut and
    /// the rest of it discarded). Returns false at end of input with nothing read.
    async fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        let mut any = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(any);
            }
            any = true;
            let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..=i], true),
                None => (available, false),
            };
            let room = MAX_HEADER_LINE.saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let used = chunk.len();
            self.inner.consume(used);
            if done {
                return Ok(true);
            }
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// Writes one framed message and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin>(writer: &mut W, body: &[u8]) -> io::Result<()> {
    let mut frame = Vec::with_capacity(body.len() + 32);
    push_frame(&mut frame, body);
    writer.write_all(&frame).await?;
    writer.flush().await
}

/// Appends one framed message (header and body) to `out`, for writers that
/// send several frames in one write.
pub fn push_frame(out: &mut Vec<u8>, body: &[u8]) {
    use std::io::Write as _;
    // Writing into a Vec cannot fail.
    let _ = write!(out, "Content-Length: {}\r\n\r\n", body.len());
    out.extend_from_slice(body);
}

#[cfg(test)]
mod tests;
