//! The reader against every fault a server's bytes can hold: one `check`
//! per table, each case named after its fault.

use std::io::{self, BufReader, Cursor, ErrorKind, Read};

use crate::reply::{read_reply, Reply, MAX_ARRAY, MAX_BULK, MAX_DEPTH, MAX_LINE};
use crate::slots::slots_of;

/// Reads one reply from `wire`: the reply, or the error's kind and text.
fn read(wire: &[u8]) -> Result<Reply, (ErrorKind, String)> {
    read_reply(&mut Cursor::new(wire)).map_err(|e| (e.kind(), e.to_string()))
}

/// Each case: its name, the bytes, and the error kind and a piece of its text.
fn check_errors(cases: &[(&str, Vec<u8>, ErrorKind, &str)]) {
    for (name, wire, kind, text) in cases {
        match read(wire) {
            Err((k, msg)) => {
                assert_eq!(k, *kind, "{name}: {msg}");
                assert!(msg.contains(text), "{name}: {msg:?} does not say {text:?}");
                assert!(msg.starts_with("RESP: "), "{name}: {msg:?}");
            }
            Ok(reply) => panic!("{name}: accepted as {reply:?}"),
        }
    }
    eprintln!("emq-resp: {} faulty replies refused", cases.len());
}

fn check_replies(cases: &[(&str, Vec<u8>, Reply)]) {
    for (name, wire, want) in cases {
        assert_eq!(read(wire).as_ref(), Ok(want), "{name}");
    }
}

const BAD: ErrorKind = ErrorKind::InvalidData;
const EOF: ErrorKind = ErrorKind::UnexpectedEof;

fn nested(depth: usize) -> Vec<u8> {
    let mut wire = b"*1\r\n".repeat(depth);
    wire.extend_from_slice(b":1\r\n");
    wire
}

#[test]
fn parses_every_reply_type() {
    let wire =
        b"+OK\r\n-MOVED 1 127.0.0.1:7001\r\n:42\r\n$3\r\na\0b\r\n$-1\r\n*2\r\n:1\r\n$0\r\n\r\n*-1\r\n*0\r\n:-7\r\n";
    let mut r = Cursor::new(&wire[..]);
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Status("OK".into()));
    assert_eq!(read_reply(&mut r).unwrap().error(), Some("MOVED 1 127.0.0.1:7001"));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Int(42));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Bulk(Some(b"a\0b".to_vec())));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Bulk(None));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Array(Some(vec![Reply::Int(1), Reply::Bulk(Some(vec![]))])));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Array(None));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Array(Some(vec![])));
    assert_eq!(read_reply(&mut r).unwrap(), Reply::Int(-7));
    assert_eq!(r.position() as usize, wire.len());
}

#[test]
fn truncated_replies_are_unexpected_eof() {
    check_errors(&[
        ("nothing at all", b"".to_vec(), EOF, "closed the connection without a reply"),
        ("status without CRLF", b"+OK".to_vec(), EOF, "inside a header line"),
        ("length without CRLF", b"$5".to_vec(), EOF, "inside a header line"),
        ("bulk cut short", b"$5\r\nab".to_vec(), EOF, "after 2 of a bulk string's 5 bytes"),
        ("bulk without its CRLF", b"$2\r\nab".to_vec(), EOF, "before the CRLF after a bulk string of 2 bytes"),
        ("bulk with half its CRLF", b"$2\r\nab\r".to_vec(), EOF, "before the CRLF"),
        ("array cut short", b"*3\r\n:1\r\n:2\r\n".to_vec(), EOF, "inside an array"),
        ("nested array cut short", b"*1\r\n*2\r\n$1\r\nx\r\n".to_vec(), EOF, "inside an array"),
        ("bulk at the cap, bytes missing", format!("${MAX_BULK}\r\nabc").into_bytes(), EOF, "after 3 of"),
        ("array at the cap, elements missing", format!("*{MAX_ARRAY}\r\n:1\r\n").into_bytes(), EOF, "inside an array"),
    ]);
}

#[test]
fn garbage_type_bytes_are_refused_at_once() {
    check_errors(&[
        ("an HTTP server", b"HTTP/1.1 400 Bad Request\r\n\r\n".to_vec(), BAD, "an HTTP server, not Valkey?"),
        ("an HTTP server, quoted", b"HTTP/1.1 400 Bad Request\r\n".to_vec(), BAD, "\"HTTP/1.1 400 Bad Request\""),
        ("a NUL", b"\0\0\0".to_vec(), BAD, "starts with \"\\x00\""),
        ("a high byte", b"\xff\xfe".to_vec(), BAD, "\"\\xff\", not a RESP2 type byte"),
        ("a multi-byte character", "é\r\n".as_bytes().to_vec(), BAD, "\"\\xc3\""),
        ("an empty line", b"\r\n".to_vec(), BAD, "\"\\r\""),
        ("a RESP3 map", b"%1\r\n+a\r\n+b\r\n".to_vec(), BAD, "\"%\""),
        ("a RESP3 null", b"_\r\n".to_vec(), BAD, "\"_\""),
        ("garbage inside an array", b"*2\r\n:1\r\n?\r\n".to_vec(), BAD, "\"?\""),
        ("garbage after a bulk string", b"$2\r\nabXY".to_vec(), BAD, "followed by \"XY\", not CRLF"),
        ("a header ending in LF alone", b"+OK\n".to_vec(), BAD, "LF without CR"),
        ("a length ending in LF alone", b"$1\nx\r\n".to_vec(), BAD, "LF without CR"),
    ]);
}

#[test]
fn non_utf8_header_lines() {
    check_errors(&[
        ("a bulk length", b"$\xff\r\n".to_vec(), BAD, "the length of a bulk string is not a decimal i64: \"\\xff\""),
        ("an array length", b"*1\xc3\r\n".to_vec(), BAD, "the length of an array is not a decimal i64"),
        ("an integer", b":4\xe2\x82\r\n".to_vec(), BAD, "an integer reply is not a decimal i64"),
    ]);
    // Status and error texts are the server's words: kept, the bad bytes replaced.
    check_replies(&[
        ("a status", b"+O\xffK\r\n".to_vec(), Reply::Status("O\u{fffd}K".into())),
        ("an error", b"-ERR key \xfe\r\n".to_vec(), Reply::Error("ERR key \u{fffd}".into())),
    ]);
}

#[test]
fn numbers_are_strict_decimals() {
    check_errors(&[
        ("an empty length", b"$\r\n".to_vec(), BAD, "not a decimal i64: \"\""),
        ("a lone minus", b":-\r\n".to_vec(), BAD, "not a decimal i64"),
        ("a plus sign", b"$+1\r\nx\r\n".to_vec(), BAD, "not a decimal i64: \"+1\""),
        ("spaces", b": 1\r\n".to_vec(), BAD, "not a decimal i64"),
        ("past i64", b":9223372036854775808\r\n".to_vec(), BAD, "not a decimal i64"),
        ("past u64", b"$18446744073709551616\r\n".to_vec(), BAD, "not a decimal i64"),
        ("a negative bulk length", b"$-2\r\n".to_vec(), BAD, "a bulk string of length -2"),
        ("a negative array length", b"*-9223372036854775808\r\n".to_vec(), BAD, "an array of length"),
    ]);
    check_replies(&[
        ("i64::MIN", b":-9223372036854775808\r\n".to_vec(), Reply::Int(i64::MIN)),
        ("i64::MAX", b":9223372036854775807\r\n".to_vec(), Reply::Int(i64::MAX)),
        ("leading zeros", b"$03\r\nabc\r\n".to_vec(), Reply::Bulk(Some(b"abc".to_vec()))),
    ]);
}

#[test]
fn huge_announced_lengths_are_refused_before_reading() {
    check_errors(&[
        (
            "a bulk one past the cap",
            format!("${}\r\n", MAX_BULK + 1).into_bytes(),
            BAD,
            "above the cap of 536870912 (MAX_BULK)",
        ),
        ("a bulk of i64::MAX", b"$9223372036854775807\r\n".to_vec(), BAD, "(MAX_BULK)"),
        (
            "an array one past the cap",
            format!("*{}\r\n", MAX_ARRAY + 1).into_bytes(),
            BAD,
            "above the cap of 1048576 (MAX_ARRAY)",
        ),
        ("an array of i64::MAX", b"*9223372036854775807\r\n".to_vec(), BAD, "(MAX_ARRAY)"),
        ("a huge bulk inside an array", b"*2\r\n:1\r\n$99999999999\r\n".to_vec(), BAD, "(MAX_BULK)"),
    ]);
}

#[test]
fn header_lines_are_capped() {
    let at_cap = [b"+".as_slice(), &vec![b'x'; MAX_LINE - 1], b"\r\n"].concat();
    check_replies(&[("a status at the cap", at_cap, Reply::Status("x".repeat(MAX_LINE - 1)))]);
    let past = [b"+".as_slice(), &vec![b'x'; MAX_LINE], b"\r\n"].concat();
    check_errors(&[
        ("a status one past the cap", past, BAD, "a header line longer than 65536 bytes (MAX_LINE)"),
        ("a length of endless zeros", [b"$".as_slice(), &vec![b'0'; 1 << 20]].concat(), BAD, "(MAX_LINE)"),
    ]);
    // An endless line from an endless source ends in the cap, not in memory.
    for first in [b'+', b'-', b':', b'$', b'*'] {
        let mut endless = BufReader::new(io::repeat(first));
        let e = read_reply(&mut endless).unwrap_err();
        assert!(e.to_string().contains("(MAX_LINE)"), "{e}");
    }
}

#[test]
fn nesting_is_capped() {
    let mut deepest = Reply::Int(1);
    for _ in 0..MAX_DEPTH {
        deepest = Reply::Array(Some(vec![deepest]));
    }
    check_replies(&[("arrays nested to the cap", nested(MAX_DEPTH), deepest)]);
    check_errors(&[
        ("arrays nested one past the cap", nested(MAX_DEPTH + 1), BAD, "arrays nested deeper than 32 (MAX_DEPTH)"),
        ("arrays nested a million deep", nested(1_000_000), BAD, "(MAX_DEPTH)"),
    ]);
    // Empty and null arrays past the cap hold nothing, but are refused all the same.
    let mut empty = b"*1\r\n".repeat(MAX_DEPTH);
    empty.extend_from_slice(b"*0\r\n");
    check_errors(&[("an empty array one past the cap", empty, BAD, "(MAX_DEPTH)")]);
}

/// A reader that hands out one byte per read, and sometimes an interruption:
/// the reader must not depend on how the bytes are split.
struct Trickle<'a>(&'a [u8], bool);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.1 = !self.1;
        if self.1 {
            return Err(io::Error::new(ErrorKind::Interrupted, "a signal"));
        }
        match (self.0.split_first(), buf.first_mut()) {
            (Some((b, rest)), Some(slot)) => {
                *slot = *b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

#[test]
fn byte_by_byte_and_interrupted_reads_give_the_same_reply() {
    let wire = b"*3\r\n$5\r\nhello\r\n*2\r\n:1\r\n-ERR x\r\n$-1\r\n";
    let whole = read(wire).unwrap();
    let mut trickle = BufReader::with_capacity(1, Trickle(wire, false));
    assert_eq!(read_reply(&mut trickle).unwrap(), whole);
}

/// `CLUSTER SLOTS` replies, as the wire carries them, into a map or an error.
fn slots(wire: &[u8]) -> Result<Vec<(u16, u16, String)>, String> {
    slots_of(&read(wire).unwrap(), "10.0.0.9").map_err(|e| e.to_string())
}

#[test]
fn slot_maps_are_checked_field_by_field() {
    let good = b"*2\r\n*3\r\n:5461\r\n:16383\r\n*3\r\n$9\r\n127.0.0.1\r\n:7001\r\n$3\r\nabc\r\n\
                 *3\r\n:0\r\n:5460\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n";
    assert_eq!(slots(good), Ok(vec![(0, 5460, "127.0.0.1:7000".into()), (5461, 16383, "127.0.0.1:7001".into())]));
    // A host the server does not know (null, empty or `?`) is the connected one.
    for host in [&b"$-1"[..], b"$0\r\n", b"$1\r\n?"] {
        let wire = [&b"*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n"[..], host, b"\r\n:7000\r\n"].concat();
        assert_eq!(slots(&wire), Ok(vec![(0, 16383, "10.0.0.9:7000".into())]), "{:?}", String::from_utf8_lossy(host));
    }
    let v6 = b"*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$3\r\n::1\r\n:7000\r\n";
    assert_eq!(slots(v6), Ok(vec![(0, 1, "[::1]:7000".into())]));
    assert_eq!(slots_of(&read(b"*1\r\n*3\r\n:0\r\n:0\r\n*2\r\n$0\r\n\r\n:7000\r\n").unwrap(), "").ok(), None);
    for (name, wire, text) in [
        ("an error", &b"-ERR This instance has cluster support disabled\r\n"[..], "CLUSTER SLOTS: ERR This instance"),
        ("not an array", b"+OK\r\n", "answered a status, not an array"),
        ("a range not an array", b"*1\r\n:1\r\n", "range 0 is an integer"),
        ("an empty range", b"*1\r\n*0\r\n", "range 0 has 0 fields"),
        ("a range of two fields", b"*1\r\n*2\r\n:0\r\n:1\r\n", "range 0 has 2 fields"),
        ("a negative slot", b"*1\r\n*3\r\n:-1\r\n:1\r\n*2\r\n$1\r\nh\r\n:1\r\n", "the first slot is Int(-1)"),
        ("a slot past 16383", b"*1\r\n*3\r\n:0\r\n:16384\r\n*2\r\n$1\r\nh\r\n:1\r\n", "the last slot is Int(16384)"),
        ("a slot as text", b"*1\r\n*3\r\n$1\r\n0\r\n:1\r\n*2\r\n$1\r\nh\r\n:1\r\n", "the first slot is Bulk"),
        ("a range backwards", b"*1\r\n*3\r\n:9\r\n:1\r\n*2\r\n$1\r\nh\r\n:1\r\n", "ends (1) before it starts (9)"),
        ("no primary", b"*1\r\n*3\r\n:0\r\n:1\r\n:7\r\n", "range 0: no primary"),
        ("a primary of one field", b"*1\r\n*3\r\n:0\r\n:1\r\n*1\r\n$1\r\nh\r\n", "the primary has 1 fields"),
        ("a host as a number", b"*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n:1\r\n:1\r\n", "the primary's host is an integer"),
        ("port 0", b"*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nh\r\n:0\r\n", "the primary's port is Int(0)"),
        ("port 65536", b"*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nh\r\n:65536\r\n", "not 1..=65535"),
        ("a port as text", b"*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nh\r\n$4\r\n7000\r\n", "the primary's port is Bulk"),
    ] {
        let e = slots(wire).unwrap_err();
        assert!(e.contains(text), "{name}: {e:?} does not say {text:?}");
    }
}
