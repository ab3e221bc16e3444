//! A node lease on Valkey, held (SPEC.md §5.2): [`Lease::acquire`] takes a
//! free node with the core's `acquire` script, a background thread renews it
//! every third of its TTL, [`Lease::mint`] mints on it (refused with the
//! `node` gate once its fence closes), and [`Lease::release`] (or dropping
//! it) hands the node back with its high-water mark. The scripts, keys and
//! arithmetic are the core's (`emq_id::ACQUIRE`, `LeasedMinter`…); this crate
//! only moves them over a socket, so it is the reference for what a binding's
//! user does with their own Valkey client.

use std::io;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use emq_id::{Id, LeaseTerms, LeasedMinter};
use emq_resp::{Connection, Reply};

mod token;

/// Why a lease could not be taken or used.
#[derive(Debug)]
pub enum LeaseError {
    /// The contract refused (`node`: every node leased, the lease lost or
    /// fenced; `range`: a reply the protocol does not give).
    Gate(emq_id::Error),
    /// Valkey could not be reached or answered something else.
    Io(io::Error),
}

impl std::fmt::Display for LeaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeaseError::Gate(e) => write!(f, "{}", e.message()),
            LeaseError::Io(e) => write!(f, "valkey: {e}"),
        }
    }
}

impl std::error::Error for LeaseError {}

impl From<io::Error> for LeaseError {
    fn from(e: io::Error) -> LeaseError {
        LeaseError::Io(e)
    }
}

impl From<emq_id::Error> for LeaseError {
    fn from(e: emq_id::Error) -> LeaseError {
        LeaseError::Gate(e)
    }
}

fn protocol(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("lease script: {what}"))
}

/// Opens a connection to the server that owns the reserve's slot: `addr`
/// itself on a standalone server, else the primary `CLUSTER SLOTS` names.
pub fn connect(addr: &str) -> io::Result<Connection> {
    let mut conn = Connection::open(addr)?;
    let reply = conn.cmd(&["CLUSTER", "SLOTS"])?;
    if reply.error().is_some() {
        return Ok(conn); // not a cluster: this server holds every key
    }
    let map = emq_resp::slot_map(&mut conn)?;
    let slot = emq_id::slot(emq_id::lease_prefix().as_bytes());
    match emq_resp::owner(&map, slot) {
        Some(owner) if owner != addr => Connection::open(owner),
        _ => Ok(conn),
    }
}

/// Runs one of the core's scripts with `EVAL`.
fn eval(conn: &mut Connection, script: &emq_id::Script, keys: &[&[u8]], args: &[&[u8]]) -> io::Result<Reply> {
    let count = keys.len().to_string();
    let mut call: Vec<&[u8]> = vec![b"EVAL", script.text.as_bytes(), count.as_bytes()];
    call.extend_from_slice(keys);
    call.extend_from_slice(args);
    conn.call(&call)
}

fn int(reply: &Reply, what: &str) -> io::Result<i64> {
    reply.as_int().ok_or_else(|| protocol(&format!("{what}: {reply:?}")))
}

/// A held node lease and its minter.
pub struct Lease {
    minter: Arc<LeasedMinter>,
    token: String,
    addr: String,
    stop: Option<mpsc::Sender<()>>,
    renewer: Option<JoinHandle<()>>,
    previous_mark: Option<u64>,
}

impl Lease {
    /// Takes a free node on the server (or cluster) at `addr`, trying nodes
    /// from a random one on, and starts renewing it every third of its TTL.
    pub fn acquire(addr: &str, terms: LeaseTerms) -> Result<Lease, LeaseError> {
        let mut conn = connect(addr)?;
        let token = token::fresh();
        let start = token::below(u64::from(emq_id::LEASE_NODES)).to_string();
        let (now, sent) = (emq_id::now_ms(), emq_id::monotonic_ms());
        let (ttl, nodes, now_text) = (terms.ttl_ms.to_string(), emq_id::LEASE_NODES.to_string(), now.to_string());
        let prefix = emq_id::lease_prefix();
        let reply = eval(
            &mut conn,
            &emq_id::ACQUIRE,
            &[prefix.as_bytes()],
            &[token.as_bytes(), ttl.as_bytes(), start.as_bytes(), nodes.as_bytes(), now_text.as_bytes()],
        )?;
        if let Some(e) = reply.error() {
            return Err(match emq_id::parse_acquire_error(e) {
                Some(refusal) => LeaseError::Gate(refusal),
                None => LeaseError::Io(protocol(e)),
            });
        }
        let pair = reply.as_array().filter(|p| p.len() == 2).ok_or_else(|| protocol("acquire answers {node, mark}"))?;
        let acquired = emq_id::parse_acquire(int(&pair[0], "node")?, int(&pair[1], "mark")?)?;
        let minter = Arc::new(LeasedMinter::start(acquired, now, sent, terms)?);
        let (stop, stopped) = mpsc::channel();
        let renewer = {
            let (minter, token, conn_addr) = (minter.clone(), token.clone(), addr.to_string());
            std::thread::Builder::new()
                .name(format!("emq-lease-{}", acquired.node))
                .spawn(move || renew_until_stopped(conn, &conn_addr, &minter, &token, stopped))
                .map_err(LeaseError::Io)?
        };
        Ok(Lease {
            minter,
            token,
            addr: addr.to_string(),
            stop: Some(stop),
            renewer: Some(renewer),
            previous_mark: acquired.previous_mark,
        })
    }

    /// The leased node.
    pub fn node(&self) -> u16 {
        self.minter.node()
    }

    /// The node's mark when this lease took it (`None`: never leased before).
    pub fn previous_mark(&self) -> Option<u64> {
        self.previous_mark
    }

    /// The minter: share it between threads (`LeasedMinter` is lock-free).
    pub fn minter(&self) -> &Arc<LeasedMinter> {
        &self.minter
    }

    /// Mints an id of namespace `ns` on the leased node.
    pub fn mint(&self, ns: &[u8]) -> Result<Id, emq_id::Error> {
        emq_id::check_namespace(ns)?;
        let s = self.minter.next()?;
        Id::new(ns, s)
    }

    /// Stops minting and renewing, and hands the node back with its
    /// high-water mark (`Ok(false)`: the lease was already gone or another's).
    pub fn release(mut self) -> Result<bool, LeaseError> {
        self.release_now()
    }

    fn release_now(&mut self) -> Result<bool, LeaseError> {
        let Some(stop) = self.stop.take() else { return Ok(false) };
        self.minter.stop();
        drop(stop);
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        let node = self.minter.node();
        let (lease, mark) = (emq_id::lease_key(node)?, emq_id::mark_key(node)?);
        let high_water = self.minter.high_water().to_string();
        let mut conn = connect(&self.addr)?;
        let reply = eval(
            &mut conn,
            &emq_id::RELEASE,
            &[lease.as_bytes(), mark.as_bytes()],
            &[self.token.as_bytes(), high_water.as_bytes()],
        )?;
        match emq_id::parse_renewal(int(&reply, "release")?) {
            Ok(()) => Ok(true),
            Err(e) if e.gate() == emq_id::Gate::Node => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let _ = self.release_now();
    }
}

/// The renewer: every third of the TTL, raise the mark and extend the
/// lease. A failed renewal (Valkey unreachable) is retried at the next tick
/// over a new connection; the fence closes by itself if none succeeds in
/// time. A renewal answered "lost" closes the fence at once.
fn renew_until_stopped(
    mut conn: Connection,
    addr: &str,
    minter: &LeasedMinter,
    token: &str,
    stopped: mpsc::Receiver<()>,
) {
    let terms = minter.terms();
    let every = Duration::from_millis((terms.ttl_ms / 3).max(1));
    let node = minter.node();
    let (Ok(lease), Ok(mark_key)) = (emq_id::lease_key(node), emq_id::mark_key(node)) else { return };
    let ttl = terms.ttl_ms.to_string();
    let mut healthy = true;
    loop {
        match stopped.recv_timeout(every) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
        if !healthy {
            match connect(addr) {
                Ok(c) => conn = c,
                Err(_) => continue,
            }
        }
        let sent = emq_id::monotonic_ms();
        let mark = minter.next_mark(emq_id::now_ms());
        let mark_text = mark.to_string();
        let reply = eval(
            &mut conn,
            &emq_id::RENEW,
            &[lease.as_bytes(), mark_key.as_bytes()],
            &[token.as_bytes(), ttl.as_bytes(), mark_text.as_bytes()],
        );
        healthy = match reply.as_ref().map(|r| r.as_int()) {
            Ok(Some(answer)) => {
                match emq_id::parse_renewal(answer) {
                    Ok(()) => minter.renewed(sent, mark),
                    Err(_) => {
                        minter.stop();
                        return;
                    }
                }
                true
            }
            _ => false,
        };
    }
}
