//! One lease write on the wire: the core's script by `EVAL`, followed in the
//! same round trip by `WAIT replicas timeout` when replicas are wanted, with
//! `ASKING` in front when the write follows an `ASK` (SPEC.md §5.2). What the
//! replies mean is the core's to say.

use std::io;

use emq_id::Script;
use emq_resp::{Connection, Reply};

/// A write: a script and its arguments, its one key being the lease key.
pub struct Write {
    pub script: &'static Script,
    pub args: Vec<String>,
}

impl Write {
    pub fn acquire(token: &str, ttl_ms: u64, start: u64, now: i64) -> Write {
        let args = [token.to_string(), ttl_ms.to_string(), start.to_string(), emq_id::LEASE_NODES.to_string()];
        Write { script: &emq_id::ACQUIRE, args: args.into_iter().chain([now.to_string()]).collect() }
    }

    pub fn renew(token: &str, ttl_ms: u64, mark: u64, node: u16) -> Write {
        let args = [token.to_string(), ttl_ms.to_string(), mark.to_string(), node.to_string()];
        Write { script: &emq_id::RENEW, args: args.into() }
    }

    pub fn release(token: &str, high_water: u64, node: u16) -> Write {
        Write { script: &emq_id::RELEASE, args: [token.to_string(), high_water.to_string(), node.to_string()].into() }
    }
}

/// The replies to one write: the script's, and `WAIT`'s when it was sent.
pub struct Replies {
    pub script: Reply,
    pub wait: Option<Reply>,
}

pub fn protocol(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("lease script: {what}"))
}

/// Sends `write` on `conn`, then `WAIT` when `replicas` > 0, in one round
/// trip; `asking` puts `ASKING` in front (a write following an `ASK`).
pub fn send(conn: &mut Connection, write: &Write, replicas: u32, wait_ms: u64, asking: bool) -> io::Result<Replies> {
    let count = [b'1'];
    let mut eval: Vec<&[u8]> = vec![b"EVAL", write.script.text.as_bytes(), &count, emq_id::LEASE_KEY.as_bytes()];
    eval.extend(write.args.iter().map(|a| a.as_bytes()));
    let (wanted, timeout) = (replicas.to_string(), wait_ms.to_string());
    let wait: [&[u8]; 3] = [b"WAIT", wanted.as_bytes(), timeout.as_bytes()];
    let asked: [&[u8]; 1] = [b"ASKING"];
    let mut commands: Vec<&[&[u8]]> = vec![];
    if asking {
        commands.push(&asked);
    }
    commands.push(&eval);
    if replicas > 0 {
        commands.push(&wait);
    }
    let mut replies = conn.pipeline(&commands)?.into_iter();
    let refused = if asking { replies.next().filter(|r| r.error().is_some()) } else { None };
    let script = replies.next().ok_or_else(|| protocol("no reply"))?;
    match refused {
        // A refused `ASKING` (the target loading, say) is what the write came
        // to, unless the script ran anyway: read as the core reads any refusal.
        Some(asking) if script.error().is_some() => Ok(Replies { script: asking, wait: None }),
        _ => Ok(Replies { script, wait: replies.next() }),
    }
}
