//! Base-protocol framing (`Content-Length` headers) for stdin and stdout, and the framing
//! faults that some real servers show: junk lines among the headers, garbage bodies, odd
//! header case, oversized and truncated frames.
//!
//! Its own code rather than squiggle's, so that the two can disagree and a test can notice.

use std::io::{self, BufRead, Write};
use std::sync::mpsc::Sender;

use serde_json::Value;

/// What the reader thread hands the main loop.
pub enum Incoming {
    /// One frame's body, parsed by the main thread: parsing there keeps the
    /// message's allocations and frees in one thread (freeing memory another
    /// thread's allocator arena holds costs a lock per block).
    Body(Vec<u8>),
    Eof,
}

/// Reads frames from stdin until it closes, forwarding each parsed message.
pub fn spawn_reader(tx: Sender<Incoming>) {
    std::thread::spawn(move || {
        let stdin = io::stdin();
        let mut input = stdin.lock();
        loop {
            match read_body(&mut input) {
                Ok(Some(body)) => {
                    if tx.send(Incoming::Body(body)).is_err() {
                        return;
                    }
                }
                Ok(None) => break,
                Err(err) => {
                    eprintln!("squiggle-fake-lsp: reading stdin failed: {err}");
                    break;
                }
            }
        }
        let _ = tx.send(Incoming::Eof);
    });
}

/// Reads one message, skipping junk header lines and bodies that are not JSON.
/// End of input (even mid-frame) is `Ok(None)`.
#[cfg(test)]
pub fn read_message(input: &mut impl BufRead) -> io::Result<Option<Value>> {
    while let Some(body) = read_body(input)? {
        if let Some(msg) = parse_body(&body) {
            return Ok(Some(msg));
        }
    }
    Ok(None)
}

/// Reads one frame's body, skipping junk header lines. End of input (even
/// mid-frame) is `Ok(None)`.
pub fn read_body(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let Some(length) = read_headers(input)? else {
        return Ok(None);
    };
    let mut body = vec![0; length];
    match input.read_exact(&mut body) {
        Ok(()) => Ok(Some(body)),
        Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(err) => Err(err),
    }
}

/// A body as JSON; a body that is not JSON is reported and skipped.
pub fn parse_body(body: &[u8]) -> Option<Value> {
    match serde_json::from_slice(body) {
        Ok(msg) => Some(msg),
        Err(err) => {
            eprintln!("squiggle-fake-lsp: skipping a frame that is not JSON: {err}");
            None
        }
    }
}

/// Reads header lines up to the blank line and returns the content length.
fn read_headers(input: &mut impl BufRead) -> io::Result<Option<usize>> {
    let mut length = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_some() {
                return Ok(length);
            }
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            eprintln!("squiggle-fake-lsp: skipping junk header line {text:?}");
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            match value.trim().parse() {
                Ok(n) => length = Some(n),
                Err(_) => eprintln!("squiggle-fake-lsp: bad Content-Length {value:?}"),
            }
        }
    }
}

/// How outgoing frames are dressed; the defaults produce a plain, correct frame.
#[derive(Debug, Default)]
pub struct FrameStyle {
    pub garbage_frames: bool,
    pub junk_header_lines: bool,
    pub lowercase_headers: bool,
    pub extra_header: Option<String>,
}

pub struct FrameWriter {
    out: io::Stdout,
    style: FrameStyle,
}

impl FrameWriter {
    pub fn new(style: FrameStyle) -> FrameWriter {
        FrameWriter {
            out: io::stdout(),
            style,
        }
    }

    /// Writes one frame around `body`, plus whatever junk the style asks for, and flushes.
    pub fn write(&mut self, body: &[u8]) -> io::Result<()> {
        let mut out = self.out.lock();
        if self.style.garbage_frames {
            out.write_all(b"Content-Length: 9\r\n\r\nnot json!")?;
        }
        let header = Self::header(&self.style, body.len());
        out.write_all(&header)?;
        out.write_all(body)?;
        out.flush()
    }

    fn header(style: &FrameStyle, length: usize) -> Vec<u8> {
        let name = if style.lowercase_headers {
            "content-length"
        } else {
            "Content-Length"
        };
        let mut header = Vec::new();
        if style.junk_header_lines {
            header.extend_from_slice(b"Listening on stdio\r\n");
        }
        header.extend_from_slice(format!("{name}: {length}\r\n").as_bytes());
        if style.junk_header_lines {
            header.extend_from_slice(b"[info] hello\n");
        }
        if let Some(extra) = &style.extra_header {
            header.extend_from_slice(format!("{extra}\r\n").as_bytes());
        }
        header.extend_from_slice(b"\r\n");
        header
    }

    /// Announces and writes a `bytes`-long frame whose body is one JSON string.
    pub fn write_oversized(&mut self, bytes: usize) -> io::Result<()> {
        let bytes = bytes.max(2);
        let mut out = self.out.lock();
        out.write_all(&Self::header(&self.style, bytes))?;
        out.write_all(b"\"")?;
        let chunk = vec![b'x'; 64 * 1024];
        let mut left = bytes - 2;
        while left > 0 {
            let n = left.min(chunk.len());
            out.write_all(&chunk[..n])?;
            left -= n;
        }
        out.write_all(b"\"")?;
        out.flush()
    }

    /// Announces a frame for `body` but writes only its first half.
    pub fn write_partial(&mut self, body: &[u8]) -> io::Result<()> {
        let mut out = self.out.lock();
        out.write_all(&Self::header(&self.style, body.len()))?;
        out.write_all(&body[..body.len() / 2])?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_leniently() {
        let input = b"Listening on stdio\r\ncontent-length: 9\r\n\r\nnot json!\
            [info] hi\nContent-Length: 7\r\nContent-Type: x\r\n\r\n{\"a\":1}";
        let mut reader = &input[..];
        assert_eq!(
            read_message(&mut reader).unwrap(),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(read_message(&mut reader).unwrap(), None);
    }

    #[test]
    fn truncated_frame_is_end_of_input() {
        let mut reader = &b"Content-Length: 70\r\n\r\n{\"a\""[..];
        assert_eq!(read_message(&mut reader).unwrap(), None);
    }
}
