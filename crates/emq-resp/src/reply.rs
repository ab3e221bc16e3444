//! One RESP2 reply, read from bytes the server controls.
//!
//! Nothing here trusts the server: every length it announces is checked
//! against a cap before it is used, memory grows only as bytes arrive, the
//! nesting of arrays is bounded, and every fault is an `io::Error` that says
//! what was wrong. The crate's lints deny `unwrap`, `expect`, `panic!` and
//! indexing outside the tests.

use std::io::{self, BufRead};

/// The longest bulk string accepted: 512 MiB. It is Valkey's own default
/// `proto-max-bulk-len`, so no reply a stock server sends is refused, while an
/// announced `$99999999999` is refused before a byte of it is read.
pub const MAX_BULK: usize = 512 * 1024 * 1024;

/// The most elements one array may announce: 1,048,576 (2^20). The largest
/// replies this client asks for are far below it (`CLUSTER SLOTS` has at most
/// 16,384 ranges; the stream checks read thousands of entries), so a larger
/// count is a broken or hostile server, not data.
pub const MAX_ARRAY: usize = 1 << 20;

/// The deepest nesting of arrays accepted: 32. `CLUSTER SLOTS` and `XRANGE`
/// nest 3 deep and `COMMAND DOCS` about 7; the cap bounds the reader's
/// recursion, so no input can exhaust the stack.
pub const MAX_DEPTH: usize = 32;

/// The longest header line (type byte, text or length, without the CRLF):
/// 64 KiB. Status and error texts are short (`OK`, `MOVED …`, a script's
/// error); a line that runs on past this is garbage, refused before it can
/// fill memory.
pub const MAX_LINE: usize = 64 * 1024;

/// Bulk strings are read, and their buffer grown, at most this much ahead of
/// the bytes that arrived.
const CHUNK: usize = 64 * 1024;

/// An array reserves at most this many elements before they arrive.
const ARRAY_AHEAD: usize = 128;

/// How much of a bad line an error quotes.
const QUOTE: usize = 48;

/// A reply, as RESP2 spells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A simple string (`+OK`); bytes that are not UTF-8 are replaced by U+FFFD.
    Status(String),
    /// An error reply, e.g. `MOVED 3999 127.0.0.1:7001` or `CROSSSLOT …`
    /// (bytes that are not UTF-8 replaced by U+FFFD).
    Error(String),
    /// An integer reply.
    Int(i64),
    /// A bulk string; `None` is the null bulk string (`$-1`).
    Bulk(Option<Vec<u8>>),
    /// An array; `None` is the null array (`*-1`).
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// The value of an integer reply.
    pub fn as_int(&self) -> Option<i64> {
        if let Reply::Int(n) = self {
            Some(*n)
        } else {
            None
        }
    }

    /// The text of a status or (lossily) of a bulk string.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Reply::Status(s) => Some(s.clone()),
            Reply::Bulk(Some(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }

    /// The elements of a (non-null) array.
    pub fn as_array(&self) -> Option<&[Reply]> {
        if let Reply::Array(Some(items)) = self {
            Some(items)
        } else {
            None
        }
    }

    /// The error text when this is an error reply.
    pub fn error(&self) -> Option<&str> {
        if let Reply::Error(e) = self {
            Some(e)
        } else {
            None
        }
    }
}

/// Reads one reply from `r`.
///
/// An error reply from the server is `Ok(Reply::Error)`; `Err` means the bytes
/// are not a RESP2 reply, break a cap, or stop before the reply is complete:
///
/// - [`io::ErrorKind::InvalidData`]: an unknown type byte (e.g. an HTTP server's
///   `H`), a length or integer that is not a decimal, a line without CRLF, a
///   bulk string not followed by CRLF, a length above [`MAX_BULK`] or
///   [`MAX_ARRAY`], arrays nested deeper than [`MAX_DEPTH`], a header line
///   longer than [`MAX_LINE`];
/// - [`io::ErrorKind::UnexpectedEof`]: the input ended inside the reply;
/// - any error of `r` itself (a socket's timeout, a reset), passed on as is.
///
/// It never panics, whatever the bytes, and ends after reading at most one
/// reply's worth of them (each step consumes input, so a finite input always
/// ends it). It allocates as bytes arrive, never for a length announced ahead
/// of them: a bulk string's buffer grows at most 64 KiB (or its size so far)
/// ahead of the bytes read and never past the announced length; an array
/// reserves at most 128 elements ahead; a header line holds only bytes read.
/// So what is allocated before the bytes that justify it arrive stays under
/// about 256 KiB (a bulk's 64 KiB, 32 levels × 128 elements × 32 bytes, one
/// buffered line), and the rest within a small factor of the input read (a
/// 32-byte [`Reply`] per element of at least 3 bytes).
///
/// ```
/// use std::io::Cursor;
/// use emq_resp::{read_reply, Reply};
///
/// let mut wire = Cursor::new(&b"*2\r\n:1\r\n$3\r\na\0b\r\n"[..]);
/// let reply = read_reply(&mut wire).unwrap();
/// assert_eq!(reply, Reply::Array(Some(vec![Reply::Int(1), Reply::Bulk(Some(b"a\0b".to_vec()))])));
///
/// let http = read_reply(&mut Cursor::new(&b"HTTP/1.1 400 Bad Request\r\n"[..])).unwrap_err();
/// assert!(http.to_string().contains("not a RESP2 type byte"));
/// ```
pub fn read_reply<R: BufRead>(r: &mut R) -> io::Result<Reply> {
    value(r, 0)
}

/// One value, inside `depth` arrays.
fn value<R: BufRead>(r: &mut R, depth: usize) -> io::Result<Reply> {
    check_type_byte(r, depth)?;
    let line = header(r)?;
    let Some((&kind, rest)) = line.split_first() else {
        return Err(bad("an empty header line"));
    };
    Ok(match kind {
        b'+' => Reply::Status(String::from_utf8_lossy(rest).into_owned()),
        b'-' => Reply::Error(String::from_utf8_lossy(rest).into_owned()),
        b':' => Reply::Int(number(rest, "an integer reply")?),
        b'$' => match length(rest, "a bulk string", "bytes", MAX_BULK, "MAX_BULK")? {
            None => Reply::Bulk(None),
            Some(n) => Reply::Bulk(Some(bulk(r, n)?)),
        },
        b'*' => match length(rest, "an array", "elements", MAX_ARRAY, "MAX_ARRAY")? {
            None => Reply::Array(None),
            Some(n) => {
                if depth >= MAX_DEPTH {
                    return Err(bad(&format!("arrays nested deeper than {MAX_DEPTH} (MAX_DEPTH)")));
                }
                let mut items = Vec::with_capacity(n.min(ARRAY_AHEAD));
                for _ in 0..n {
                    items.push(value(r, depth.saturating_add(1))?);
                }
                Reply::Array(Some(items))
            }
        },
        // check_type_byte has seen the same byte; kept so no path can panic.
        other => return Err(bad(&format!("{} is not a RESP2 type byte", quote(&[other])))),
    })
}

/// Refuses a reply whose first byte names no RESP2 type, from the bytes
/// already buffered: garbage is reported at once, not after waiting for a
/// line end that may never come.
fn check_type_byte<R: BufRead>(r: &mut R, depth: usize) -> io::Result<()> {
    let buf = fill(r)?;
    let Some(&first) = buf.first() else {
        return Err(if depth == 0 {
            eof("the server closed the connection without a reply")
        } else {
            eof("the connection closed inside an array")
        });
    };
    if matches!(first, b'+' | b'-' | b':' | b'$' | b'*') {
        return Ok(());
    }
    let line = buf.split(|&b| b == b'\n').next().unwrap_or(buf);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let hint = if line.starts_with(b"HTTP/") { " (an HTTP server, not Valkey?)" } else { "" };
    Err(bad(&format!(
        "the reply starts with {}, not a RESP2 type byte (+ - : $ *){hint}: {}",
        quote(&[first]),
        quote(line)
    )))
}

/// One header line without its CRLF, at most [`MAX_LINE`] bytes long.
fn header<R: BufRead>(r: &mut R) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    loop {
        let buf = fill(r)?;
        if buf.is_empty() {
            return Err(eof(&format!("the connection closed inside a header line: {}", quote(&line))));
        }
        let (taken, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (at.saturating_add(1), true),
            None => (buf.len(), false),
        };
        // The cap counts the CRLF too, so check before copying.
        if line.len().saturating_add(taken) > MAX_LINE.saturating_add(2) {
            return Err(bad(&format!("a header line longer than {MAX_LINE} bytes (MAX_LINE): {}", quote(&line))));
        }
        line.extend(buf.iter().take(taken));
        r.consume(taken);
        if ended {
            break;
        }
    }
    match line.strip_suffix(b"\r\n") {
        Some(body) => {
            let len = body.len();
            line.truncate(len);
            Ok(line)
        }
        None => Err(bad(&format!("a header line ends in LF without CR: {}", quote(&line)))),
    }
}

/// A bulk string's `n` bytes and the CRLF after them, read as they arrive.
fn bulk<R: BufRead>(r: &mut R, n: usize) -> io::Result<Vec<u8>> {
    let mut data: Vec<u8> = Vec::new();
    while data.len() < n {
        let buf = fill(r)?;
        if buf.is_empty() {
            return Err(eof(&format!("the connection closed after {} of a bulk string's {n} bytes", data.len())));
        }
        let left = n.saturating_sub(data.len());
        let take = buf.len().min(left);
        // Grow by CHUNK or the size so far (doubling), or by what arrived if more,
        // never past n: the capacity follows the bytes, not the announcement.
        if data.capacity().saturating_sub(data.len()) < take {
            data.reserve_exact(left.min(data.len().max(CHUNK)).max(take));
        }
        data.extend(buf.iter().take(take));
        r.consume(take);
    }
    let mut end = [0u8; 2];
    let mut got = 0;
    while got < end.len() {
        let buf = fill(r)?;
        let Some(&b) = buf.first() else {
            return Err(eof(&format!("the connection closed before the CRLF after a bulk string of {n} bytes")));
        };
        if let Some(slot) = end.get_mut(got) {
            *slot = b;
        }
        r.consume(1);
        got = got.saturating_add(1);
    }
    if &end != b"\r\n" {
        return Err(bad(&format!("a bulk string of {n} bytes is followed by {}, not CRLF", quote(&end))));
    }
    Ok(data)
}

/// An announced length: `None` for `-1` (null), else at most `cap`.
fn length(digits: &[u8], what: &str, unit: &str, cap: usize, cap_name: &str) -> io::Result<Option<usize>> {
    let n = number(digits, &format!("the length of {what}"))?;
    if n == -1 {
        return Ok(None);
    }
    match usize::try_from(n) {
        Err(_) => Err(bad(&format!("{what} of length {n}"))),
        Ok(n) if n > cap => Err(bad(&format!("{what} of {n} {unit} announced, above the cap of {cap} ({cap_name})"))),
        Ok(n) => Ok(Some(n)),
    }
}

/// A decimal `i64`: an optional `-`, then digits only.
fn number(digits: &[u8], what: &str) -> io::Result<i64> {
    let unsigned = digits.strip_prefix(b"-").unwrap_or(digits);
    std::str::from_utf8(digits)
        .ok()
        .filter(|_| !unsigned.is_empty() && unsigned.iter().all(u8::is_ascii_digit))
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| bad(&format!("{what} is not a decimal i64: {}", quote(digits))))
}

/// `fill_buf`, retried when a signal interrupts it. (The buffer is borrowed
/// afresh after the loop: a borrow returned from inside it would not pass
/// today's borrow checker.)
fn fill<R: BufRead>(r: &mut R) -> io::Result<&[u8]> {
    while let Err(e) = r.fill_buf() {
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    r.fill_buf()
}

/// Up to [`QUOTE`] bytes, escaped and quoted, for an error message.
fn quote(bytes: &[u8]) -> String {
    let shown = bytes.get(..QUOTE).unwrap_or(bytes);
    let more = if shown.len() < bytes.len() { "…" } else { "" };
    format!("\"{}\"{more}", shown.escape_ascii())
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("RESP: {what}"))
}

fn eof(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, format!("RESP: {what}"))
}
