//! Any bytes as everything a server sends back, read reply after reply with
//! `emq_resp::read_reply` (what `Connection` reads a socket with): each read
//! answers a value or an error, never a panic, never an allocation past the
//! run's `-malloc_limit_mb`, never a hang past its `-timeout`; each value
//! consumes input and holds no more than the bytes that carried it; and the
//! answers do not depend on how the bytes arrive (all at once, or a few at a
//! time through a small buffer, as a slow socket gives them).
#![no_main]

use std::io::{BufReader, Cursor, ErrorKind};

use emq_resp::{read_reply, Reply};
use libfuzzer_sys::fuzz_target;

/// The input bytes a value stands for at least: one per character of its text
/// (a byte that is not UTF-8 becomes one U+FFFD), its data, one per item.
fn weight(reply: &Reply) -> usize {
    match reply {
        Reply::Status(s) | Reply::Error(s) => s.chars().count(),
        Reply::Int(_) | Reply::Bulk(None) | Reply::Array(None) => 0,
        Reply::Bulk(Some(data)) => data.len(),
        Reply::Array(Some(items)) => items.iter().map(|i| 1 + weight(i)).sum(),
    }
}

fuzz_target!(|wire: &[u8]| {
    // All at once: every byte buffered, as a reply already in the socket.
    let mut whole = Cursor::new(wire);
    let mut answers: Vec<Result<Reply, ErrorKind>> = vec![];
    loop {
        let before = whole.position();
        match read_reply(&mut whole) {
            Ok(reply) => {
                let used = (whole.position() - before) as usize;
                assert!(used > 0, "a reply read no bytes: {reply:?}");
                assert!(weight(&reply) <= used, "{reply:?} from {used} bytes");
                answers.push(Ok(reply));
            }
            Err(e) => {
                answers.push(Err(e.kind()));
                break;
            }
        }
    }

    // A few bytes at a time: the same answers.
    let chunk = 1 + wire.len() % 16;
    let mut trickle = BufReader::with_capacity(chunk, Cursor::new(wire));
    for (i, expected) in answers.iter().enumerate() {
        let got = read_reply(&mut trickle).map_err(|e| e.kind());
        assert_eq!(&got, expected, "reply {i} read {chunk} bytes at a time");
    }
});
