//! The cluster's slot map, read from `CLUSTER SLOTS`.

use std::io;

use crate::connection::Connection;
use crate::reply::Reply;

/// The last hash slot of a cluster (16,384 slots).
const LAST_SLOT: i64 = 16383;

/// The cluster's slot map, read once with `CLUSTER SLOTS`: `(first, last,
/// "host:port")` per range, sorted. Every field is checked: a reply of the
/// wrong shape, a slot outside `0..=16383`, a range that ends before it
/// starts or a port outside `1..=65535` is an `InvalidData` error naming the
/// range, never a panic or a wrapped number.
///
/// A node that does not know its own address (a one-node cluster that has
/// met no other node answers an empty host; Valkey says `?` for an endpoint
/// it cannot name) is reached at the host this connection was opened to, as
/// cluster clients do: the map never holds an address without a host.
pub fn slot_map(conn: &mut Connection) -> io::Result<Vec<(u16, u16, String)>> {
    let reply = conn.cmd(&["CLUSTER", "SLOTS"])?;
    slots_of(&reply, conn.host())
}

/// The node that owns `slot` in a map from [`slot_map`].
pub fn owner(map: &[(u16, u16, String)], slot: u16) -> Option<&str> {
    map.iter().find(|(a, b, _)| (*a..=*b).contains(&slot)).map(|(_, _, n)| n.as_str())
}

/// The map in a `CLUSTER SLOTS` reply.
/// `connected` stands in for a host the server leaves empty, null or `?`.
pub(crate) fn slots_of(reply: &Reply, connected: &str) -> io::Result<Vec<(u16, u16, String)>> {
    if let Some(e) = reply.error() {
        return Err(bad(format!("CLUSTER SLOTS: {e}")));
    }
    let ranges =
        reply.as_array().ok_or_else(|| bad(format!("CLUSTER SLOTS answered {}, not an array", shape(reply))))?;
    let mut map = Vec::with_capacity(ranges.len());
    for (i, range) in ranges.iter().enumerate() {
        let fields = range.as_array().ok_or_else(|| bad(format!("CLUSTER SLOTS range {i} is {}", shape(range))))?;
        let [first, last, primary, ..] = fields else {
            return Err(bad(format!("CLUSTER SLOTS range {i} has {} fields, not 3 or more", fields.len())));
        };
        let slot = |r: &Reply, what: &str| {
            r.as_int()
                .filter(|n| (0..=LAST_SLOT).contains(n))
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| bad(format!("CLUSTER SLOTS range {i}: the {what} slot is {r:?}, not 0..=16383")))
        };
        let (first, last) = (slot(first, "first")?, slot(last, "last")?);
        if first > last {
            return Err(bad(format!("CLUSTER SLOTS range {i} ends ({last}) before it starts ({first})")));
        }
        let node = primary.as_array().ok_or_else(|| bad(format!("CLUSTER SLOTS range {i}: no primary")))?;
        let [host, port, ..] = node else {
            return Err(bad(format!("CLUSTER SLOTS range {i}: the primary has {} fields, not 2 or more", node.len())));
        };
        // A null, empty or `?` host is an endpoint the server does not know: the connected host.
        let host = match host {
            Reply::Bulk(None) => String::new(),
            other => other
                .as_text()
                .ok_or_else(|| bad(format!("CLUSTER SLOTS range {i}: the primary's host is {}", shape(other))))?,
        };
        let host = match host.as_str() {
            "" | "?" => connected.to_string(),
            // An IPv6 address is bracketed, so the port stays readable.
            h if h.contains(':') && !h.starts_with('[') => format!("[{h}]"),
            _ => host,
        };
        if host.is_empty() {
            return Err(bad(format!("CLUSTER SLOTS range {i}: the primary has no host, nor does the connection")));
        }
        let port = port
            .as_int()
            .filter(|p| (1..=65535).contains(p))
            .ok_or_else(|| bad(format!("CLUSTER SLOTS range {i}: the primary's port is {port:?}, not 1..=65535")))?;
        map.push((first, last, format!("{host}:{port}")));
    }
    map.sort();
    Ok(map)
}

/// What kind of reply `r` is, for an error message.
fn shape(r: &Reply) -> &'static str {
    match r {
        Reply::Status(_) => "a status",
        Reply::Error(_) => "an error",
        Reply::Int(_) => "an integer",
        Reply::Bulk(None) => "a null bulk string",
        Reply::Bulk(Some(_)) => "a bulk string",
        Reply::Array(None) => "a null array",
        Reply::Array(Some(_)) => "an array",
    }
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("RESP: {what}"))
}
