//! A minimal, blocking RESP2 client: commands are arrays of byte strings, so
//! keys travel as the exact bytes given (NUL, invalid UTF-8, any length).
//!
//! Why not a client crate: the CLI's `route` and xtask's cluster checks send a
//! handful of commands and must see `MOVED`/`ASK`/`CROSSSLOT` replies raw,
//! where a cluster-aware client would follow or hide them. This is ~150 lines
//! with no dependency.

use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A reply, as RESP2 spells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Status(String),
    /// An error reply, e.g. `MOVED 3999 127.0.0.1:7001` or `CROSSSLOT …`.
    Error(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

impl Reply {
    pub fn as_int(&self) -> Option<i64> {
        if let Reply::Int(n) = self {
            Some(*n)
        } else {
            None
        }
    }

    pub fn as_text(&self) -> Option<String> {
        match self {
            Reply::Status(s) => Some(s.clone()),
            Reply::Bulk(Some(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }

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

/// One connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Connection {
    /// Connects to `addr` (`host:port`) with a timeout on every read and write.
    pub fn open(addr: &str) -> io::Result<Connection> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        stream.set_write_timeout(Some(Duration::from_secs(10)))?;
        stream.set_nodelay(true)?;
        Ok(Connection { reader: BufReader::new(stream.try_clone()?), writer: stream })
    }

    /// Sends one command and reads its reply (an error reply is `Ok(Reply::Error)`).
    pub fn call(&mut self, args: &[&[u8]]) -> io::Result<Reply> {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
        for a in args {
            out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        self.writer.write_all(&out)?;
        read_reply(&mut self.reader)
    }

    /// [`call`](Self::call) over text arguments.
    pub fn cmd(&mut self, args: &[&str]) -> io::Result<Reply> {
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.call(&bytes)
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("RESP: {what}"))
}

fn line(r: &mut impl BufRead) -> io::Result<String> {
    let mut buf = Vec::new();
    r.read_until(b'\n', &mut buf)?;
    if !buf.ends_with(b"\r\n") {
        return Err(bad("connection closed mid-reply"));
    }
    buf.truncate(buf.len() - 2);
    String::from_utf8(buf).map_err(|_| bad("non-UTF-8 header line"))
}

fn read_reply(r: &mut impl BufRead) -> io::Result<Reply> {
    let head = line(r)?;
    let (kind, rest) = head.split_at(1);
    let number = || rest.parse::<i64>().map_err(|_| bad("bad length"));
    Ok(match kind {
        "+" => Reply::Status(rest.into()),
        "-" => Reply::Error(rest.into()),
        ":" => Reply::Int(number()?),
        "$" => {
            let n = number()?;
            if n < 0 {
                Reply::Bulk(None)
            } else {
                let mut data = vec![0u8; n as usize + 2];
                io::Read::read_exact(r, &mut data)?;
                data.truncate(n as usize);
                Reply::Bulk(Some(data))
            }
        }
        "*" => {
            let n = number()?;
            if n < 0 {
                Reply::Array(None)
            } else {
                Reply::Array(Some((0..n).map(|_| read_reply(r)).collect::<io::Result<_>>()?))
            }
        }
        _ => return Err(bad("unknown reply type")),
    })
}

/// The cluster's slot map, read once with `CLUSTER SLOTS`: `(first, last, "host:port")`.
pub fn slot_map(conn: &mut Connection) -> io::Result<Vec<(u16, u16, String)>> {
    let reply = conn.cmd(&["CLUSTER", "SLOTS"])?;
    if let Some(e) = reply.error() {
        return Err(bad(&format!("CLUSTER SLOTS: {e}")));
    }
    let mut map = vec![];
    for range in reply.as_array().ok_or_else(|| bad("CLUSTER SLOTS is not an array"))? {
        let r = range.as_array().ok_or_else(|| bad("slot range is not an array"))?;
        let (first, last) = (r[0].as_int().unwrap_or(-1), r[1].as_int().unwrap_or(-1));
        let primary = r[2].as_array().ok_or_else(|| bad("no primary"))?;
        let host = primary[0].as_text().unwrap_or_default();
        let port = primary[1].as_int().unwrap_or(0);
        map.push((first as u16, last as u16, format!("{host}:{port}")));
    }
    map.sort();
    Ok(map)
}

/// The node that owns `slot` in a map from [`slot_map`].
pub fn owner(map: &[(u16, u16, String)], slot: u16) -> Option<&str> {
    map.iter().find(|(a, b, _)| (*a..=*b).contains(&slot)).map(|(_, _, n)| n.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_reply_type() {
        let wire = b"+OK\r\n-MOVED 1 127.0.0.1:7001\r\n:42\r\n$3\r\na\0b\r\n$-1\r\n*2\r\n:1\r\n$0\r\n\r\n";
        let mut r = io::Cursor::new(&wire[..]);
        assert_eq!(read_reply(&mut r).unwrap(), Reply::Status("OK".into()));
        assert_eq!(read_reply(&mut r).unwrap().error(), Some("MOVED 1 127.0.0.1:7001"));
        assert_eq!(read_reply(&mut r).unwrap(), Reply::Int(42));
        assert_eq!(read_reply(&mut r).unwrap(), Reply::Bulk(Some(b"a\0b".to_vec())));
        assert_eq!(read_reply(&mut r).unwrap(), Reply::Bulk(None));
        assert_eq!(read_reply(&mut r).unwrap(), Reply::Array(Some(vec![Reply::Int(1), Reply::Bulk(Some(vec![]))])));
        assert!(read_reply(&mut io::Cursor::new(&b"+OK"[..])).is_err());
    }
}
