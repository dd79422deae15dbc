//! `FrameReader` over arbitrary bytes: it never panics, never returns a body
//! over its limit, always ends (clean end, or an error that is not
//! recoverable), and reads back exactly what `write_frame` wrote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use squiggle::jsonrpc::framing::{FrameReader, write_frame};

const LIMIT: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mut reader = FrameReader::with_limit(data, LIMIT);
        // Every frame consumes at least one byte, so this many reads suffice.
        for _ in 0..=data.len() {
            match reader.read_frame().await {
                Ok(Some(body)) => assert!(body.len() <= LIMIT),
                Ok(None) => break,
                Err(e) if e.is_recoverable() => {}
                Err(_) => break,
            }
        }

        if data.len() <= LIMIT {
            let mut wire = Vec::new();
            write_frame(&mut wire, data).await.expect("write to a Vec");
            let mut reader = FrameReader::with_limit(&wire[..], LIMIT);
            let body = reader.read_frame().await.expect("read back");
            assert_eq!(body.as_deref(), Some(data));
            assert!(matches!(reader.read_frame().await, Ok(None)));
        }
    });
});
