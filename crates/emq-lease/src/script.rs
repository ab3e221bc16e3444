//! One lease write on the wire: the core's script by `EVAL`, followed in the
//! same round trip by `WAIT replicas timeout` when replicas are wanted, and
//! the two replies read by the core's parsers (SPEC.md §5.2).

use std::io;

use emq_id::{Acquired, LeaseTerms, Script};
use emq_resp::{Connection, Reply};

use crate::route::{redirect, Route};

/// What became of one write.
pub enum Written<T> {
    /// The script's answer, and whether enough replicas acknowledged it
    /// (`Err`: the core's `node` refusal naming the counts).
    Answered(T, Result<(), emq_id::Error>),
    /// The script refused or did not run: every node leased (an acquire), or
    /// `NOREPLICAS` (`min-replicas-to-write`: no write happened), as `node`.
    Refused(emq_id::Error),
}

pub fn protocol(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("lease script: {what}"))
}

fn int(reply: &Reply, what: &str) -> io::Result<i64> {
    reply.as_int().ok_or_else(|| protocol(&format!("{what}: {reply:?}")))
}

/// Runs `script`, then `WAIT` when `replicas` > 0, in one round trip. An
/// `ASK` reply (the slot migrating, its key moved) is followed: `ASKING`, the
/// script and its `WAIT` on the node named. A `MOVED` reply is remembered by
/// `route` and is an error (the caller reconnects).
fn run(
    conn: &mut Connection,
    route: &mut Route,
    script: &Script,
    keys: &[&[u8]],
    args: &[&[u8]],
    replicas: u32,
    terms: LeaseTerms,
) -> io::Result<(Reply, Result<(), emq_id::Error>)> {
    let count = keys.len().to_string();
    let mut eval: Vec<&[u8]> = vec![b"EVAL", script.text.as_bytes(), count.as_bytes()];
    eval.extend_from_slice(keys);
    eval.extend_from_slice(args);
    let (wanted, timeout) = (replicas.to_string(), terms.wait_ms().to_string());
    let wait: [&[u8]; 3] = [b"WAIT", wanted.as_bytes(), timeout.as_bytes()];
    let asking: [&[u8]; 1] = [b"ASKING"];
    let mut write: Vec<&[&[u8]]> = vec![&eval, &wait];
    write.truncate(if replicas == 0 { 1 } else { 2 });
    let mut replies = conn.pipeline(&write)?;
    let mut there = None;
    if let Some(target) = replies.first().and_then(Reply::error).and_then(|e| redirect("ASK ", e, conn.host())) {
        // The reserve's slot is migrating and its one key has left: the
        // script runs where the key is, and its `WAIT` on that connection,
        // so it counts the replicas of the node that ran the write.
        let target = there.insert(Connection::open_with(&target, conn.timeouts())?);
        write.insert(0, &asking);
        replies = target.pipeline(&write)?;
        if let Some(e) = replies.remove(0).error() {
            return Err(io::Error::other(format!("ASKING: {e}")));
        }
    }
    let conn = there.as_ref().unwrap_or(conn);
    let waited = if replicas == 0 { None } else { replies.pop() };
    let reply = replies.pop().ok_or_else(|| protocol("no reply"))?;
    // The script's reply first: a `MOVED` (this node no longer serves the
    // reserve) is remembered, whatever `WAIT` said on a node that may be a replica now.
    if reply.error().is_some_and(|e| e.starts_with("NOREPLICAS")) {
        // `min-replicas-to-write` refused the script before it ran: no write
        // happened, which is what an unacknowledged one may turn out to be.
        return Ok((reply, emq_id::parse_wait(0, replicas.max(1))));
    }
    if let Some(e) = reply.error() {
        if e.starts_with("MOVED ") {
            route.moved(e, conn);
        }
        if emq_id::parse_acquire_error(e).is_none() {
            return Err(io::Error::other(format!("{}: {e}", script.name)));
        }
    }
    let acknowledged = match waited {
        None => Ok(()),
        Some(Reply::Error(e)) => return Err(protocol(&format!("WAIT: {e}"))),
        Some(r) => emq_id::parse_wait(int(&r, "WAIT")?, replicas),
    };
    Ok((reply, acknowledged))
}

/// Everything one lease write needs besides its arguments.
pub struct Wire<'a> {
    pub conn: &'a mut Connection,
    pub route: &'a mut Route,
    pub replicas: u32,
    pub terms: LeaseTerms,
}

impl Wire<'_> {
    /// `acquire` from node `start` at unix ms `now`: the node taken, or the refusal.
    pub fn acquire(&mut self, token: &str, start: u64, now: i64) -> io::Result<Written<Acquired>> {
        let (ttl, nodes) = (self.terms.ttl_ms.to_string(), emq_id::LEASE_NODES.to_string());
        let (start, now) = (start.to_string(), now.to_string());
        let args: [&[u8]; 5] = [token.as_bytes(), ttl.as_bytes(), start.as_bytes(), nodes.as_bytes(), now.as_bytes()];
        let keys: [&[u8]; 1] = [emq_id::LEASE_KEY.as_bytes()];
        let (reply, acknowledged) =
            run(self.conn, self.route, &emq_id::ACQUIRE, &keys, &args, self.replicas, self.terms)?;
        if let Some(refusal) = reply.error().and_then(emq_id::parse_acquire_error) {
            return Ok(Written::Refused(refusal));
        }
        if let (Some(_), Err(unacknowledged)) = (reply.error(), acknowledged) {
            return Ok(Written::Refused(unacknowledged)); // NOREPLICAS: nothing was taken
        }
        let pair = reply.as_array().filter(|p| p.len() == 2).ok_or_else(|| protocol("acquire answers {node, mark}"))?;
        let acquired = emq_id::parse_acquire(int(&pair[0], "node")?, int(&pair[1], "mark")?).map_err(|e| {
            protocol(&format!("acquire's reply: {}", e.message())) // a reply the protocol does not give
        })?;
        Ok(Written::Answered(acquired, acknowledged))
    }

    /// `renew` (or `release` when `release` is set) of `node` carrying `mark`:
    /// `Ok(())` the lease was the token's, `Err` it was gone or another's.
    pub fn renew(&mut self, node: u16, token: &str, mark: u64, release: bool) -> io::Result<Written<Result<(), ()>>> {
        let (ttl, mark, node) = (self.terms.ttl_ms.to_string(), mark.to_string(), node.to_string());
        let (script, args): (&Script, Vec<&[u8]>) = if release {
            (&emq_id::RELEASE, vec![token.as_bytes(), mark.as_bytes(), node.as_bytes()])
        } else {
            (&emq_id::RENEW, vec![token.as_bytes(), ttl.as_bytes(), mark.as_bytes(), node.as_bytes()])
        };
        let keys: [&[u8]; 1] = [emq_id::LEASE_KEY.as_bytes()];
        let (reply, acknowledged) = run(self.conn, self.route, script, &keys, &args, self.replicas, self.terms)?;
        if let (Some(_), Err(unacknowledged)) = (reply.error(), acknowledged) {
            return Ok(Written::Refused(unacknowledged)); // NOREPLICAS: the script did not run
        }
        let held = match emq_id::parse_renewal(int(&reply, script.name)?) {
            Ok(()) => Ok(()),
            Err(e) if e.gate() == emq_id::Gate::Node => Err(()),
            Err(e) => return Err(protocol(&format!("{}: {}", script.name, e.message()))),
        };
        Ok(Written::Answered(held, acknowledged))
    }
}
