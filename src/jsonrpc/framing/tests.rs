use super::*;
use tokio::io::{AsyncWriteExt, BufReader};

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{}", body.len(), body).into_bytes()
}

async fn read_all(input: Vec<u8>, limit: usize) -> Vec<Result<Option<Vec<u8>>, String>> {
    let mut reader = FrameReader::with_limit(BufReader::new(&input[..]), limit);
    let mut out = Vec::new();
    loop {
        match reader.read_frame().await {
            Ok(None) => {
                out.push(Ok(None));
                return out;
            }
            Ok(Some(body)) => out.push(Ok(Some(body))),
            Err(e) => {
                let stop = !e.is_recoverable();
                out.push(Err(e.to_string()));
                if stop {
                    return out;
                }
            }
        }
    }
}

fn body(s: &str) -> Result<Option<Vec<u8>>, String> {
    Ok(Some(s.as_bytes().to_vec()))
}

/// `input` reads as exactly one body, `{}`, then a clean end.
async fn reads_one_empty_object(input: &[u8]) {
    assert_eq!(
        read_all(input.to_vec(), 1024).await,
        vec![body("{}"), Ok(None)]
    );
}

#[tokio::test]
async fn many_frames_in_one_read_then_clean_end() {
    let mut input = frame(r#"{"a":1}"#);
    input.extend(frame(r#"{"b":2}"#));
    assert_eq!(
        read_all(input, 1024).await,
        vec![body(r#"{"a":1}"#), body(r#"{"b":2}"#), Ok(None)]
    );
}

#[tokio::test]
async fn content_length_counts_bytes_not_characters() {
    let text = r#"{"message":"héllo 😀 中文"}"#;
    assert_ne!(text.len(), text.chars().count());
    assert_eq!(
        read_all(frame(text), 1024).await,
        vec![body(text), Ok(None)]
    );
}

#[tokio::test]
async fn header_names_are_case_insensitive_and_content_type_is_tolerated() {
    reads_one_empty_object(
        b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
    )
    .await;
}

#[tokio::test]
async fn junk_lines_among_headers_are_skipped() {
    reads_one_empty_object(
        b"Listening on stdio\n\r\n[info] ready\r\nContent-Length: 2\r\nX-Whatever: 1\r\n\r\n{}",
    )
    .await;
}

#[tokio::test]
async fn bare_lf_line_endings_are_accepted() {
    reads_one_empty_object(b"Content-Length: 2\n\n{}").await;
}

#[tokio::test]
async fn oversized_frame_is_an_error_for_that_message_only() {
    let big = format!(r#""{}""#, "x".repeat(100));
    let mut input = frame(&big);
    input.extend(frame("{}"));
    let out = read_all(input, 50).await;
    assert_eq!(out.len(), 3);
    assert!(
        out[0]
            .as_ref()
            .is_err_and(|e| e.contains("102-byte message")),
        "{out:?}"
    );
    assert_eq!(out[1], body("{}"));
    assert_eq!(out[2], Ok(None));
}

#[tokio::test]
async fn unparsable_length_is_an_error_and_the_stream_goes_on() {
    let mut input = b"Content-Length: twelve\r\n\r\n".to_vec();
    input.extend(frame("{}"));
    let out = read_all(input, 1024).await;
    assert!(
        out[0].as_ref().is_err_and(|e| e.contains("twelve")),
        "{out:?}"
    );
    assert_eq!(out[1], body("{}"));
}

#[tokio::test]
async fn eof_inside_a_body_is_truncated() {
    let input = b"Content-Length: 10\r\n\r\n{\"a\"".to_vec();
    let out = read_all(input, 1024).await;
    assert_eq!(out, vec![Err(FrameError::Truncated.to_string())]);
}

#[tokio::test]
async fn eof_inside_headers_is_truncated() {
    let out = read_all(b"Content-Length: 10\r\n".to_vec(), 1024).await;
    assert_eq!(out, vec![Err(FrameError::Truncated.to_string())]);
}

#[tokio::test]
async fn empty_input_is_a_clean_end() {
    assert_eq!(read_all(Vec::new(), 1024).await, vec![Ok(None)]);
}

#[tokio::test]
async fn one_frame_across_many_reads() {
    let (mut tx, rx) = tokio::io::duplex(8);
    let writer = tokio::spawn(async move {
        let bytes = frame(r#"{"jsonrpc":"2.0","method":"x","params":{"k":"ünïcödé"}}"#);
        for chunk in bytes.chunks(3) {
            tx.write_all(chunk).await.ok();
            tokio::task::yield_now().await;
        }
    });
    let mut reader = FrameReader::new(BufReader::new(rx));
    let got = reader.read_frame().await.ok().flatten().unwrap_or_default();
    assert_eq!(
        got,
        r#"{"jsonrpc":"2.0","method":"x","params":{"k":"ünïcödé"}}"#.as_bytes()
    );
    writer.await.ok();
    assert!(matches!(reader.read_frame().await, Ok(None)));
}

#[tokio::test]
async fn write_then_read_round_trips() {
    let mut buf = Vec::new();
    write_frame(&mut buf, "{\"x\":\"😀\"}".as_bytes())
        .await
        .ok();
    assert!(buf.starts_with(b"Content-Length: 12\r\n\r\n"));
    assert_eq!(
        read_all(buf, 1024).await,
        vec![body("{\"x\":\"😀\"}"), Ok(None)]
    );
}

/// `Content-Length: 100000000000000` and then the end
/// of input never got its parse error: the reader tried to skip 100 TB
/// first. The error comes from the header alone, before any body byte is
/// read; the end of input inside the announced body ends the stream after.
#[tokio::test]
async fn an_impossible_length_is_an_error_before_its_body_is_read() {
    let (mut client, server) = tokio::io::duplex(64);
    client
        .write_all(b"Content-Length: 100000000000000\r\n\r\n{\"jsonrpc\"")
        .await
        .unwrap();
    let mut reader = FrameReader::with_limit(BufReader::new(server), 1024);
    // The writer is still open: a reader that waited for the body would
    // block here for good.
    let first = reader.read_frame().await.unwrap_err();
    assert!(first.is_recoverable(), "{first}");
    assert_eq!(
        first.to_string(),
        "received a 100000000000000-byte message, over the 1024-byte limit; it is skipped unread"
    );
    drop(client);
    let second = reader.read_frame().await.unwrap_err();
    assert!(matches!(second, FrameError::Truncated), "{second}");
}
