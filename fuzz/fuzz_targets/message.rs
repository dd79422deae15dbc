//! `Message::parse` over arbitrary bytes: it never panics, and a message it
//! accepts survives `to_bytes` and a second parse with the same kind, id and
//! method.
#![no_main]

use libfuzzer_sys::fuzz_target;
use squiggle::jsonrpc::message::Message;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = Message::parse(data) else {
        return;
    };
    let bytes = message.to_bytes();
    let again = Message::parse(&bytes).expect("our own bytes parse");
    match (&message, &again) {
        (
            Message::Request {
                id: a, method: m, ..
            },
            Message::Request {
                id: b, method: n, ..
            },
        ) => assert_eq!((a, m), (b, n)),
        (Message::Notification { method: m, .. }, Message::Notification { method: n, .. }) => {
            assert_eq!(m, n)
        }
        (Message::Response { id: a, result: r }, Message::Response { id: b, result: s }) => {
            assert_eq!(a, b);
            assert_eq!(r.is_ok(), s.is_ok());
        }
        _ => panic!("{message:?} came back as {again:?}"),
    }
});
