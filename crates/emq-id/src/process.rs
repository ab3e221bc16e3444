//! The process-wide minter: one mint state per process, on a node that the
//! process holds exclusively on its host (SPEC.md §5, "one node, one mint state").
//!
//! The node comes from [`set_process_node`], else `EMQ_NODE`, else a drawn
//! node that no live process of the host holds. Taking it takes the node's
//! [`NodeClaim`]; a node another live process holds is refused with
//! [`Gate::Node`](crate::Gate::Node), naming the holder's pid.
//!
//! The hot path is one atomic load (is the node still ours?) and the
//! compare-and-swap of [`step_shared`]; everything else happens once.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
use std::time::{SystemTime, UNIX_EPOCH};

use crate::claim::{attempt, claim_dir, NodeClaim, Refusal};
use crate::clock::now_ms;
use crate::error::{Error, Result};
use crate::id::Id;
use crate::mint::{parse_node, step_shared};
use crate::snowflake::{ts_since_epoch, EPOCH_MS, MAX_NODE, SEQ_BITS, TS_SHIFT};

/// The environment variable naming this process's node (`0`–`1023`).
///
/// ```
/// assert_eq!(emq_id::NODE_ENV, "EMQ_NODE");
/// ```
pub const NODE_ENV: &str = "EMQ_NODE";

/// Where the process-wide minter's node came from.
///
/// ```
/// use emq_id::{NodeSource, NODE_ENV};
/// let expected = if std::env::var_os(NODE_ENV).is_some() { NodeSource::Env } else { NodeSource::Fallback };
/// assert_eq!(emq_id::process_minter().unwrap().source(), expected);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeSource {
    /// From `EMQ_NODE`: unique on this host by its claim, and across hosts as
    /// long as your configuration gives each host's processes their own nodes.
    Env,
    /// `EMQ_NODE` was unset, so a node no live process of this host holds was
    /// drawn. Another host can draw the same node, and then ids can collide:
    /// set `EMQ_NODE` (or use a lease) in production.
    Fallback,
    /// Given by the program with [`set_process_node`].
    Explicit,
}

/// The process's one mint state. Obtained from [`process_minter`] or
/// [`set_process_node`]; every mint checks that the node is still this
/// process's (it stops being so in a forked child, see [`process_forked`]).
///
/// ```
/// let minter = emq_id::process_minter().unwrap();
/// let s = minter.next().unwrap();
/// assert_eq!(emq_id::node(s), minter.node());
/// ```
#[derive(Debug)]
pub struct ProcessMinter {
    _one: (),
}

static PROCESS: ProcessMinter = ProcessMinter { _one: () };

/// `HELD | source << SOURCE_SHIFT | node` while this process holds its node; without
/// `HELD` (the node and source kept for reports) before the first claim and in
/// a forked child.
static CURRENT: AtomicU32 = AtomicU32::new(0);
const HELD: u32 = 1 << 31;
/// Where the source sits in [`CURRENT`], above the node's 16 bits.
const SOURCE_SHIFT: u32 = 16;

impl NodeSource {
    /// The source's two bits in [`CURRENT`].
    const fn code(self) -> u32 {
        match self {
            NodeSource::Env => 0,
            NodeSource::Fallback => 1,
            NodeSource::Explicit => 2,
        }
    }

    /// The source [`CURRENT`] holds.
    const fn of(current: u32) -> NodeSource {
        match (current >> SOURCE_SHIFT) & 3 {
            0 => NodeSource::Env,
            1 => NodeSource::Fallback,
            _ => NodeSource::Explicit,
        }
    }
}

/// The mint state `ts << 12 | seq`. It holds no node bits, so it stays valid
/// when a forked child moves to a node of its own: it only ever grows.
static STATE: AtomicU64 = AtomicU64::new(0);

/// The claim behind `CURRENT`, and the pid that took it (a child inherits
/// both, and must not mint with them).
struct Holder {
    claim: Option<NodeClaim>,
    pid: u32,
}

/// The millisecond (since the epoch) up to which the claim file says this
/// process may have minted. An id past it records a new mark first, so the
/// node's next holder on this host starts after every id this process minted,
/// even if it is killed, and whatever its clock or the caller's did.
static RESERVED: AtomicU64 = AtomicU64::new(0);

/// How far past an id's millisecond one record reaches: a process that mints
/// writes its claim file once per 64 ms of minted time at most.
const RESERVE_AHEAD_MS: u64 = 64;

static HOLDER: Mutex<Holder> = Mutex::new(Holder { claim: None, pid: 0 });

impl ProcessMinter {
    /// The node this process mints with (the last one it held, after a fork).
    ///
    /// ```
    /// let node = emq_id::process_minter().unwrap().node();
    /// assert_eq!(emq_id::mint(b"JOB").unwrap().node(), node);
    /// ```
    pub fn node(&self) -> u16 {
        CURRENT.load(Ordering::Acquire) as u16
    }

    /// Whether the node was configured, given, or drawn.
    ///
    /// ```
    /// let minter = emq_id::set_process_node(emq_id::process_minter().unwrap().node()).unwrap();
    /// assert_ne!(minter.source(), emq_id::NodeSource::Explicit); // the node was taken before, not given
    /// ```
    pub fn source(&self) -> NodeSource {
        NodeSource::of(CURRENT.load(Ordering::Acquire))
    }

    /// Mints with the system clock.
    ///
    /// ```
    /// let minter = emq_id::process_minter().unwrap();
    /// let (a, b) = (minter.next().unwrap(), minter.next().unwrap());
    /// assert!(b > a);
    /// ```
    #[inline]
    pub fn next(&self) -> Result<u64> {
        self.next_at(now_ms())
    }

    /// Mints with an explicit clock reading (Unix ms): the contract's pure
    /// step applied atomically to the process's state. Refused with
    /// [`Gate::Node`](crate::Gate::Node) when this process no longer holds its
    /// node (a forked child that has not taken one of its own).
    ///
    /// ```
    /// let minter = emq_id::process_minter().unwrap();
    /// let a = minter.next_at(emq_id::now_ms()).unwrap();
    /// // The clock goes back an hour: ids go on after the last one.
    /// assert!(minter.next_at(emq_id::now_ms() - 3_600_000).unwrap() > a);
    /// ```
    #[inline]
    pub fn next_at(&self, now_ms: i64) -> Result<u64> {
        let current = CURRENT.load(Ordering::Acquire);
        let node = if current & HELD != 0 { current as u16 } else { take(None)?.node() };
        let snowflake = step_shared(&STATE, node, now_ms)?;
        let ts = snowflake >> TS_SHIFT;
        if ts > RESERVED.load(Ordering::Acquire) {
            reserve(ts)?;
        }
        Ok(snowflake)
    }
}

/// The process-wide minter, holding its node from the first call on: the
/// node of [`set_process_node`], else `EMQ_NODE`, else a drawn node (see
/// [`NodeSource`]).
///
/// Refused with [`Gate::Range`](crate::Gate::Range) when `EMQ_NODE` is set to
/// anything but a decimal in `0..=1023` (a misconfigured node never silently
/// falls back), and with [`Gate::Node`](crate::Gate::Node) when another live
/// process on this host holds the node. A refusal is not remembered: the next
/// call tries again, so a process can wait for a node to be freed.
///
/// ```
/// let minter = emq_id::process_minter().unwrap();
/// assert!(std::ptr::eq(minter, emq_id::process_minter().unwrap())); // one per process
/// ```
pub fn process_minter() -> Result<&'static ProcessMinter> {
    if CURRENT.load(Ordering::Acquire) & HELD != 0 {
        return Ok(&PROCESS);
    }
    take(None)
}

/// Makes `node` this process's node (taking its host-local claim), in place
/// of `EMQ_NODE`: for programs that get their node from elsewhere, and for a
/// forked child, which must take a node of its own before it mints.
///
/// A process keeps its node for its lifetime: asking again for the node it
/// holds answers the minter; asking for another is refused with
/// [`Gate::Node`](crate::Gate::Node).
///
/// ```
/// let held = emq_id::process_minter().unwrap().node();
/// assert_eq!(emq_id::set_process_node(held).unwrap().node(), held);
/// assert_eq!(emq_id::set_process_node((held + 1) % 1024).unwrap_err().gate(), emq_id::Gate::Node);
/// assert_eq!(emq_id::set_process_node(1024).unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub fn set_process_node(node: u16) -> Result<&'static ProcessMinter> {
    if node > MAX_NODE {
        return Err(Error::from_gate(crate::Gate::Range, "the node is outside 0..=1023"));
    }
    take(Some(node))
}

/// Tells the process-wide minter that this process is a child forked from
/// the one that took the node: the child inherited the parent's node and mint
/// state, and minting on with them would repeat the parent's ids. Until the
/// child takes a node of its own (`EMQ_NODE` names a node the parent still
/// holds, so that is refused; a drawn node is drawn again; or
/// [`set_process_node`]), every mint is refused with
/// [`Gate::Node`](crate::Gate::Node).
///
/// One atomic store, so it is async-signal-safe: call it from a
/// `pthread_atfork` child handler (the C ABI registers one) or first thing
/// in the child of `fork()`.
///
/// ```
/// let minter = emq_id::process_minter().unwrap();
/// emq_id::process_forked();
/// // Called in the process that took the node (not a child), the next mint finds the claim still its own.
/// assert!(minter.next().is_ok());
/// ```
pub fn process_forked() {
    CURRENT.fetch_and(!HELD, Ordering::AcqRel);
}

/// The descriptor of this process's node claim file, or -1 before the node
/// is taken (Unix only). A `pthread_atfork` child handler points it at
/// `/dev/null` (`dup2`), so a child that never mints does not keep its
/// parent's claim alive after the parent dies; the child's later re-claim
/// then closes `/dev/null`, never a descriptor it does not own.
///
/// ```
/// assert_eq!(emq_id::process_claim_fd(), -1); // no node taken yet
/// emq_id::process_minter().unwrap();
/// assert!(emq_id::process_claim_fd() >= 0);
/// ```
#[cfg(unix)]
pub fn process_claim_fd() -> i32 {
    CLAIM_FD.load(Ordering::Acquire)
}

#[cfg(unix)]
static CLAIM_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// Mints an id in `ns` with the process-wide minter and the system clock.
///
/// ```
/// let id = emq_id::mint(b"JOB").unwrap();
/// assert_eq!(id.ns_str(), "JOB");
/// assert_eq!(emq_id::mint(b"job").unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub fn mint(ns: &[u8]) -> Result<Id> {
    // Check the namespace first, so a refused call does not consume a sequence number.
    crate::codec::check_namespace(ns)?;
    Id::new(ns, process_minter()?.next()?)
}

/// The slow path: takes this process's node once (or again, in a forked child).
fn take(explicit: Option<u16>) -> Result<&'static ProcessMinter> {
    let mut holder = HOLDER.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = crate::claim_host::process_id();
    if holder.pid != pid {
        // A forked child: drop its copy of the parent's claim (closing the
        // descriptor, never unlocking: the lock is the parent's) and forget the node.
        holder.claim = None;
        #[cfg(unix)]
        CLAIM_FD.store(-1, Ordering::Release);
        holder.pid = pid;
        CURRENT.fetch_and(!HELD, Ordering::AcqRel);
    }
    if holder.claim.is_some() && CURRENT.load(Ordering::Acquire) & HELD == 0 {
        // `process_forked` called in the process that holds the claim: it still does.
        CURRENT.fetch_or(HELD, Ordering::AcqRel);
    }
    let current = CURRENT.load(Ordering::Acquire);
    if current & HELD != 0 {
        return match explicit {
            Some(node) if node != current as u16 => Err(Error::about_node(
                current as u16,
                Some(pid),
                "this process already mints with this node; a process keeps its node for its lifetime",
            )),
            _ => Ok(&PROCESS),
        };
    }
    let (claim, source) = match explicit {
        Some(node) => (NodeClaim::take(node)?, NodeSource::Explicit),
        None => match node_setting() {
            Some(value) => (NodeClaim::take(parse_node(&value)?)?, NodeSource::Env),
            None => (draw()?, NodeSource::Fallback),
        },
    };
    // Hand-over on this host: the node's previous holder may have minted in
    // this very millisecond before it died, and up to its recorded mark, so
    // start after both (the claim checked the mark fits 41 bits).
    let inherited = claim.high_water().map_or(0, ts_since_epoch);
    let start = (ts_since_epoch(now_ms()) + 1).max(inherited + 1);
    STATE.fetch_max((start << SEQ_BITS) - 1, Ordering::AcqRel);
    RESERVED.store(inherited, Ordering::Release);
    CURRENT.store(HELD | source.code() << SOURCE_SHIFT | claim.node() as u32, Ordering::Release);
    #[cfg(unix)]
    CLAIM_FD.store(claim.raw_fd(), Ordering::Release);
    holder.claim = Some(claim);
    Ok(&PROCESS)
}

/// Records in the claim file that this process may mint up to `ts` (and a
/// little further), before the id that reaches `ts` is handed out.
#[cold]
fn reserve(ts: u64) -> Result<()> {
    let holder = HOLDER.lock().unwrap_or_else(PoisonError::into_inner);
    if ts <= RESERVED.load(Ordering::Acquire) {
        return Ok(()); // another thread recorded it meanwhile
    }
    let node = CURRENT.load(Ordering::Acquire) as u16;
    let recorded = holder.claim.as_ref().map(|claim| {
        let upto = ts + RESERVE_AHEAD_MS;
        claim.record_high_water((EPOCH_MS + upto) as i64).map(|()| upto)
    });
    match recorded {
        Some(Ok(upto)) => {
            RESERVED.store(upto, Ordering::Release);
            Ok(())
        }
        _ => Err(Error::about_node(
            node,
            None,
            "the high-water mark of a burst could not be recorded in the node's claim file",
        )),
    }
}

/// `EMQ_NODE` as it is set now (not UTF-8: set, and refused as no node).
fn node_setting() -> Option<String> {
    #[cfg(all(target_arch = "wasm32", feature = "host"))]
    return crate::host::var(NODE_ENV);
    #[cfg(not(all(target_arch = "wasm32", feature = "host")))]
    std::env::var_os(NODE_ENV).map(|value| value.to_str().unwrap_or("").to_string())
}

/// Draws a node no live process of this host holds: a random start, then the
/// next node while the drawn one is held.
fn draw() -> Result<NodeClaim> {
    #[cfg(all(target_arch = "wasm32", feature = "host"))]
    let nanos = crate::host::wall_ns().rem_euclid(1_000_000_000) as u32;
    #[cfg(not(all(target_arch = "wasm32", feature = "host")))]
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let seed = (crate::claim_host::process_id() as u64) << 32 | nanos as u64;
    let nodes = MAX_NODE as u32 + 1;
    let start = crate::hash::hash32(seed) % nodes;
    let dir = claim_dir();
    let mut failed = None;
    for i in 0..nodes {
        let node = ((start + i) % nodes) as u16;
        match attempt(&dir, node) {
            Ok(claim) => return Ok(claim),
            Err(Refusal::Held(_)) => continue,
            Err(Refusal::Failed(detail)) => failed = Some(Error::about_node(node, None, detail)),
        }
    }
    Err(failed
        .unwrap_or(Error::from_gate(crate::Gate::Node, "every node 0..=1023 is held by a live process on this host")))
}
