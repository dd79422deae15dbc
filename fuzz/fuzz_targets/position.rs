//! `LineIndex` over arbitrary text and positions: never a panic, every
//! offset it returns is a char boundary within the text, and for every char
//! boundary (other than inside a CRLF) offset → position → offset is the
//! identity in each encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lsp_types::Position;
use squiggle::lsp::position::{LineIndex, PositionEncoding};

const ENCODINGS: [PositionEncoding; 3] = [
    PositionEncoding::Utf8,
    PositionEncoding::Utf16,
    PositionEncoding::Utf32,
];

fuzz_target!(|data: &[u8]| {
    // The first 8 bytes pick a position; the rest is the text.
    let (head, rest) = data.split_at(data.len().min(8));
    let text = String::from_utf8_lossy(rest);
    let index = LineIndex::new(&text);
    let mut word = [0u8; 8];
    word[..head.len()].copy_from_slice(head);
    let pos = Position::new(
        u32::from_le_bytes([word[0], word[1], word[2], word[3]]) % (index.line_count() + 2),
        u32::from_le_bytes([word[4], word[5], word[6], word[7]]) % 512,
    );
    for enc in ENCODINGS {
        let offset = index.offset(&text, pos, enc);
        assert!(offset <= text.len() && text.is_char_boundary(offset));
        let _ = index.to_one_based(&text, pos, enc);
        for (i, _) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if i > 0 && text.as_bytes()[i - 1] == b'\r' && text.as_bytes().get(i) == Some(&b'\n') {
                continue;
            }
            let p = index.position(&text, i, enc);
            assert_eq!(index.offset(&text, p, enc), i, "{enc:?} {p:?} in {text:?}");
        }
        let _ = index.position(&text, usize::from(word[0]) * 7, enc);
    }
});
