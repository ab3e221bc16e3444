//! Node leases on Valkey (`emq-lease/3`, SPEC.md §5.2): the scripts, their
//! key and arguments, the parsing of their replies, and the arithmetic of a
//! hand-over and of the fence. Data and pure functions only: nothing here
//! opens a socket, so every runtime runs the same script bytes through the
//! Valkey client its users already have.
//!
//! The reserve's whole state is one hash, [`LEASE_KEY`] (`{emq}:leases`),
//! the only key any script touches, and every script declares it. Per node
//! `<n>` it holds `<n>:token` (the owner's token), `<n>:until` (when the lease
//! ends, unix ms on the server's clock, read with `TIME`) and `<n>:mark` (a
//! unix ms no id of any owner of the node has reached). Each owner keeps the
//! mark ahead of every id it may mint before its fence closes, so the next
//! owner — whatever its clock says — starts after the mark and its first id
//! sorts after every id of every owner before it. One key moves between
//! primaries whole: while its slot migrates, a script finds it on one side or
//! is redirected (`ASK`) to the side that has it, never to half of it.

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{Error, Gate, Result};
use crate::mint::step;
use crate::snowflake::{ts_since_epoch, EPOCH_MS, MAX_NODE, MAX_TS, SEQ_BITS};

/// The version of the lease protocol these scripts implement.
///
/// ```
/// assert_eq!(emq_id::LEASE_PROTOCOL, "emq-lease/3");
/// ```
pub const LEASE_PROTOCOL: &str = "emq-lease/3";

/// The reserve's one lease key, `KEYS[1]` of every script: a hash of each
/// node's token, end and mark, in the reserve's `{emq}` slot.
///
/// ```
/// assert_eq!(emq_id::LEASE_KEY, "{emq}:leases");
/// assert_eq!(emq_id::slot(emq_id::LEASE_KEY.as_bytes()), emq_id::slot(emq_id::VERSION_KEY.as_bytes()));
/// ```
pub const LEASE_KEY: &str = "{emq}:leases";

/// How many replicas must acknowledge a lease write (`WAIT`) before it
/// counts, unless the deployment says otherwise: one, so that the write
/// survives the failover that promotes that replica. A reserve whose primary
/// has no replica says `0` and accepts the exposure SPEC.md §5.2 names.
///
/// ```
/// // With the default, a write no replica acknowledged does not count.
/// assert!(emq_id::parse_wait(0, emq_id::LEASE_REPLICAS).is_err());
/// ```
pub const LEASE_REPLICAS: u32 = 1;

/// The longest `WAIT` a lease write is given ([`LeaseTerms::wait_ms`]): a
/// replica on the same network acknowledges in milliseconds, so 2.5 s
/// without it means the replica is not there, whatever the TTL.
///
/// ```
/// assert_eq!(emq_id::LeaseTerms::new(86_400_000, 60_000).unwrap().wait_ms(), emq_id::MAX_WAIT_MS);
/// ```
pub const MAX_WAIT_MS: u64 = 2_500;

/// The last unix ms of the contract's time: no mark passes it.
const LAST_MS: u64 = EPOCH_MS + MAX_TS;

/// How many nodes a lease can be taken on: `0..=MAX_NODE`.
///
/// ```
/// assert_eq!(emq_id::LEASE_NODES, 1024);
/// ```
pub const LEASE_NODES: u16 = MAX_NODE + 1;

/// One of the protocol's scripts, run with `EVAL`/`EVALSHA` (`SCRIPT LOAD`).
///
/// ```
/// let script = emq_id::RENEW;
/// assert_eq!((script.name, script.keys.len(), script.args.len()), ("renew", 1, 4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Script {
    /// `acquire`, `renew` or `release`.
    pub name: &'static str,
    /// The Lua source, byte for byte what every runtime sends.
    pub text: &'static str,
    /// What `KEYS` holds, in order.
    pub keys: &'static [&'static str],
    /// What `ARGV` holds, in order.
    pub args: &'static [&'static str],
}

/// What `KEYS` holds for every script: the one lease key.
const KEYS: &[&str] = &["the lease key {emq}:leases"];

/// Takes the first free node from `start` on (one without a lease, or whose
/// lease ended by the server's clock) for a TTL, and raises the node's mark
/// to `max(now, mark + 1) + ttl`. Answers `{node, previous mark}` (`-1` when
/// the node never had one), or the error `EMQLEASE every node is leased`. A
/// node whose mark or end is not a number (written by hand) is passed over,
/// never taken: its hand-over could not be kept.
///
/// ```
/// assert_eq!(emq_id::ACQUIRE.args, ["token", "ttl ms", "first node to try", "nodes (1024)", "now, unix ms"]);
/// ```
pub const ACQUIRE: Script = Script {
    name: "acquire",
    text: "\
local leases, token, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2])
local start, nodes, now = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local time = redis.call('TIME')
local server = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 0, nodes - 1 do
  local n = (start + i) % nodes
  local held = redis.call('HMGET', leases, n .. ':until', n .. ':mark')
  local ends, previous = tonumber(held[1] or '-1'), tonumber(held[2] or '-1')
  if previous and ends and ends < server then
    local floor = math.max(now, previous + 1)
    redis.call('HSET', leases, n .. ':token', token, n .. ':until', string.format('%d', server + ttl),
      n .. ':mark', string.format('%d', floor + ttl))
    return {n, previous}
  end
end
return redis.error_reply('EMQLEASE every node is leased')
",
    keys: KEYS,
    args: &["token", "ttl ms", "first node to try", "nodes (1024)", "now, unix ms"],
};

/// Extends node `<n>`'s lease to the TTL from now (server time) and raises
/// its mark to `mark`, only while the lease is live and holds `token`.
/// Answers `1`, or `0` when the lease is gone, ended or another's.
///
/// ```
/// assert_eq!(emq_id::RENEW.args, ["token", "ttl ms", "mark, unix ms", "node"]);
/// ```
pub const RENEW: Script = Script {
    name: "renew",
    text: "\
local leases, n, mark = KEYS[1], ARGV[4], tonumber(ARGV[3])
if not mark then return redis.error_reply('EMQLEASE a mark is a number') end
local time = redis.call('TIME')
local server = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local held = redis.call('HMGET', leases, n .. ':token', n .. ':until', n .. ':mark')
if held[1] ~= ARGV[1] or (tonumber(held[2] or '-1') or -1) < server then return 0 end
redis.call('HSET', leases, n .. ':until', string.format('%d', server + tonumber(ARGV[2])))
if mark > (tonumber(held[3] or '-1') or -1) then
  redis.call('HSET', leases, n .. ':mark', string.format('%d', mark))
end
return 1
",
    keys: KEYS,
    args: &["token", "ttl ms", "mark, unix ms", "node"],
};

/// Ends node `<n>`'s lease, only while it is live and holds `token`, and
/// sets the mark to the owner's last minted millisecond (lower than the mark
/// it kept ahead: the owner stopped minting first). Answers `1`, or `0` when
/// it was not the owner's.
///
/// ```
/// assert!(emq_id::RELEASE.text.contains("'HDEL'"));
/// ```
pub const RELEASE: Script = Script {
    name: "release",
    text: "\
local leases, n, high_water = KEYS[1], ARGV[3], tonumber(ARGV[2])
if not high_water then return redis.error_reply('EMQLEASE a high water is a number') end
local time = redis.call('TIME')
local server = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local held = redis.call('HMGET', leases, n .. ':token', n .. ':until')
if held[1] ~= ARGV[1] or (tonumber(held[2] or '-1') or -1) < server then return 0 end
redis.call('HSET', leases, n .. ':mark', string.format('%d', high_water))
redis.call('HDEL', leases, n .. ':token', n .. ':until')
return 1
",
    keys: KEYS,
    args: &["token", "the owner's high water, unix ms", "node"],
};

/// The three scripts, in the order above.
///
/// ```
/// assert_eq!(emq_id::SCRIPTS.map(|s| s.name), ["acquire", "renew", "release"]);
/// ```
pub const SCRIPTS: [Script; 3] = [ACQUIRE, RENEW, RELEASE];

/// The error reply of [`ACQUIRE`] when every node is leased (after Valkey's `ERR ` prefix, if any).
///
/// ```
/// assert!(emq_id::ACQUIRE.text.contains(emq_id::EVERY_NODE_LEASED));
/// ```
pub const EVERY_NODE_LEASED: &str = "EMQLEASE every node is leased";

/// The reply of [`ACQUIRE`], read: the node taken, and the mark the node's
/// previous owners left (`None` for a node never leased before).
///
/// ```
/// use emq_id::{parse_acquire, Acquired};
/// assert_eq!(parse_acquire(7, 1769526697641).unwrap(), Acquired { node: 7, previous_mark: Some(1769526697641) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The node now leased.
    pub node: u16,
    /// The node's mark before this acquire, unix ms.
    pub previous_mark: Option<u64>,
}

/// Reads [`ACQUIRE`]'s reply `{node, previous}` (two integers, as every
/// client gives them). Anything the script cannot answer is `range`.
///
/// ```
/// let a = emq_id::parse_acquire(7, -1).unwrap();
/// assert_eq!((a.node, a.previous_mark), (7, None));
/// assert_eq!(emq_id::parse_acquire(1024, -1).unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub fn parse_acquire(node: i64, previous: i64) -> Result<Acquired> {
    if !(0..=MAX_NODE as i64).contains(&node) {
        return Err(Error::new(Gate::Range, "a lease reply's node is outside 0..=1023"));
    }
    let previous_mark = match previous {
        -1 => None,
        p if p >= 0 && ts_since_epoch(p) <= MAX_TS => Some(p as u64),
        _ => return Err(Error::new(Gate::Range, "a lease reply's mark is not a time of the contract")),
    };
    Ok(Acquired { node: node as u16, previous_mark })
}

/// Reads an error reply of [`ACQUIRE`]: every node leased is `node` (the
/// remedy is capacity, or fewer minters); any other error is not the
/// script's and is `None` (a connection or server problem for the caller).
///
/// ```
/// use emq_id::{parse_acquire_error, Gate};
/// assert_eq!(parse_acquire_error("ERR EMQLEASE every node is leased").unwrap().gate(), Gate::Node);
/// assert!(parse_acquire_error("NOSCRIPT No matching script").is_none());
/// ```
pub fn parse_acquire_error(text: &str) -> Option<Error> {
    let text = text.strip_prefix("ERR ").unwrap_or(text);
    (text == EVERY_NODE_LEASED).then(|| {
        Error::from_gate(Gate::Node, "every node 0..=1023 is leased: no node for another minter until one is released")
    })
}

/// Reads the reply of [`RENEW`] or [`RELEASE`]: `1` is done; `0` is the
/// `node` gate (the lease is gone or another's: stop minting on it).
///
/// ```
/// use emq_id::{parse_renewal, Gate};
/// assert_eq!(parse_renewal(1), Ok(()));
/// assert_eq!(parse_renewal(0).unwrap_err().gate(), Gate::Node);
/// ```
pub fn parse_renewal(reply: i64) -> Result<()> {
    match reply {
        1 => Ok(()),
        0 => Err(Error::from_gate(Gate::Node, "the lease is gone or held by another owner: minting on it stopped")),
        _ => Err(Error::new(Gate::Range, "a lease reply is 0 or 1")),
    }
}

/// How long a lease lives and how early its owner stops minting.
///
/// ```
/// let terms = emq_id::LeaseTerms::new(30_000, 5_000).unwrap();
/// assert_eq!((terms.ttl_ms, terms.margin_ms), (30_000, 5_000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseTerms {
    /// The lease's TTL, ms; renew well within it (every third is the default runner's).
    pub ttl_ms: u64,
    /// The fence: minting stops this long before the TTL would run out since
    /// the last renewal was sent. It must exceed the worst difference between
    /// the owner's and the server's clock rates over one TTL, plus the time a
    /// renewal takes to reach the server.
    pub margin_ms: u64,
}

impl LeaseTerms {
    /// 30 s leases, fenced 5 s early: renewals every 10 s leave two tries.
    ///
    /// ```
    /// assert_eq!(emq_id::LeaseTerms::DEFAULT, emq_id::LeaseTerms::new(30_000, 5_000).unwrap());
    /// ```
    pub const DEFAULT: LeaseTerms = LeaseTerms { ttl_ms: 30_000, margin_ms: 5_000 };

    /// Terms for a TTL of `ttl_ms` with the default margin, kept to a sixth
    /// of the TTL for short leases (tests, short-lived jobs).
    ///
    /// ```
    /// assert_eq!(emq_id::LeaseTerms::for_ttl(3_000).unwrap().margin_ms, 500);
    /// assert_eq!(emq_id::LeaseTerms::for_ttl(60_000).unwrap().margin_ms, 5_000);
    /// ```
    pub const fn for_ttl(ttl_ms: u64) -> Result<LeaseTerms> {
        let sixth = ttl_ms / 6;
        let margin = if sixth < LeaseTerms::DEFAULT.margin_ms { sixth } else { LeaseTerms::DEFAULT.margin_ms };
        LeaseTerms::new(ttl_ms, if margin == 0 { 1 } else { margin })
    }

    /// Terms of a TTL from 3 ms to a day and a margin of at least 1 ms that
    /// leaves the fence after the first renewal (a third of the TTL in):
    /// `1 ≤ margin ≤ ttl − ⌈ttl / 3⌉`.
    ///
    /// ```
    /// use emq_id::{Gate, LeaseTerms};
    /// assert!(LeaseTerms::new(30_000, 20_000).is_ok());
    /// assert_eq!(LeaseTerms::new(30_000, 20_001).unwrap_err().gate(), Gate::Range); // fenced before the first renewal
    /// assert_eq!(LeaseTerms::new(30_000, 0).unwrap_err().gate(), Gate::Range);
    /// ```
    pub const fn new(ttl_ms: u64, margin_ms: u64) -> Result<LeaseTerms> {
        if ttl_ms < 3 || ttl_ms > 86_400_000 || margin_ms == 0 || margin_ms > ttl_ms - ttl_ms.div_ceil(3) {
            return Err(Error::new(
                Gate::Range,
                "a lease's TTL is 3 ms to a day, and its margin at least 1 ms and at most two thirds of the TTL",
            ));
        }
        Ok(LeaseTerms { ttl_ms, margin_ms })
    }

    /// How long a holder's `WAIT replicas timeout` waits for a lease write's
    /// acknowledgement: half the margin, at most a tenth of the TTL and at
    /// most [`MAX_WAIT_MS`], at least 1 ms. Short against the renewal's third
    /// of the TTL, so an unacknowledged renewal leaves time for the next try
    /// before the fence; and bounded, so a client's read timeout above
    /// `MAX_WAIT_MS` covers every terms' `WAIT`.
    ///
    /// ```
    /// assert_eq!(emq_id::LeaseTerms::DEFAULT.wait_ms(), 2_500);
    /// assert_eq!(emq_id::LeaseTerms::new(3_000, 500).unwrap().wait_ms(), 250);
    /// assert_eq!(emq_id::LeaseTerms::new(300_000, 60_000).unwrap().wait_ms(), emq_id::MAX_WAIT_MS);
    /// assert_eq!(emq_id::LeaseTerms::new(3, 1).unwrap().wait_ms(), 1);
    /// ```
    pub const fn wait_ms(&self) -> u64 {
        let mut wait = self.margin_ms / 2;
        if self.ttl_ms / 10 < wait {
            wait = self.ttl_ms / 10;
        }
        if MAX_WAIT_MS < wait {
            wait = MAX_WAIT_MS;
        }
        if wait == 0 {
            1
        } else {
            wait
        }
    }
}

/// Reads the reply of `WAIT replicas timeout` sent after a lease write on the
/// same connection: the write counts only when at least `replicas` replicas
/// acknowledged it. Fewer is the `node` gate (the error names both counts):
/// an acquire that is not acknowledged must not mint, and a renewal that is
/// not acknowledged moves neither the fence nor the mark
/// ([`LeasedMinter::renewed`] is for acknowledged renewals only). A reply
/// `WAIT` cannot give (negative) is `range`.
///
/// ```
/// use emq_id::{parse_wait, Gate};
/// assert_eq!(parse_wait(1, 1), Ok(()));
/// assert_eq!(parse_wait(2, 1), Ok(()));
/// let e = parse_wait(0, 1).unwrap_err();
/// assert_eq!(e.gate(), Gate::Node);
/// assert_eq!(e.acknowledged(), Some((0, 1)));
/// assert!(e.to_string().starts_with("node: acknowledged by 0 of 1 replica: "));
/// assert_eq!(parse_wait(-1, 1).unwrap_err().gate(), Gate::Range);
/// ```
pub fn parse_wait(acknowledged: i64, replicas: u32) -> Result<()> {
    if acknowledged < 0 {
        return Err(Error::new(Gate::Range, "a WAIT reply is a count of replicas, never negative"));
    }
    if acknowledged >= i64::from(replicas) {
        return Ok(());
    }
    Err(Error::unacknowledged(
        acknowledged as u32,
        replicas,
        "the lease write is not on enough replicas yet: a failover could lose it, so no id is minted on it",
    ))
}

/// A minter on a leased node: it starts after the node's previous mark (the
/// hand-over rule), never mints an id past its own mark (which it keeps in
/// Valkey ahead of its ids), and refuses once its fence closes — when the
/// lease was not renewed in time — with the `node` gate. Thread-safe: the
/// renewer updates it while minters mint.
///
/// Two clocks: ids carry the wall clock (`now_ms`, unix ms), while the fence
/// is kept on a monotonic clock (`mono_ms`, any origin, never stepped), so a
/// wall clock stepped back cannot keep an owner minting past its lease.
///
/// ```
/// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
/// const T: i64 = 1769526697641;
/// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
/// let s = m.next_at(T, 1_000).unwrap();
/// assert_eq!((emq_id::unix_ms(s), emq_id::node(s)), (T as u64, 3));
/// assert_eq!(m.next_at(T, 25_000).unwrap_err().gate(), emq_id::Gate::Node); // the fence: ttl - margin
/// ```
#[derive(Debug)]
pub struct LeasedMinter {
    node: u16,
    terms: LeaseTerms,
    state: AtomicU64,
    /// The unix ms no id may pass: the mark this owner last stored.
    mark: AtomicU64,
    /// The monotonic ms from which minting is refused.
    fence: AtomicU64,
    /// Set by [`stop`](Self::stop), for good: a renewal that lands after it cannot reopen the fence.
    stopped: AtomicBool,
}

/// A bit above every state (`ts << 12 | seq` holds 53 bits): [`LeasedMinter::stop`]
/// sets it in the state itself, so a mint racing the stop either lands before
/// it (and counts in the high water the release stores) or is refused.
const SEALED: u64 = 1 << 63;

impl LeasedMinter {
    /// The minter of a lease acquired with `now_ms` as the script's `now`,
    /// the acquire sent at monotonic `sent_mono_ms`: it starts at
    /// `max(now, previous mark + 1 ms)` and may mint until `sent + ttl −
    /// margin` (monotonic) unless renewed. Its mark is what [`ACQUIRE`]
    /// stored: `start + ttl`.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// // The previous owner's mark is ahead of our clock: the first id comes after it.
    /// let previous = Acquired { node: 3, previous_mark: Some(T as u64 + 5_000) };
    /// let m = LeasedMinter::start(previous, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(emq_id::unix_ms(m.next_at(T, 0).unwrap()), T as u64 + 5_001);
    /// ```
    pub fn start(acquired: Acquired, now_ms: i64, sent_mono_ms: u64, terms: LeaseTerms) -> Result<LeasedMinter> {
        // The acquire script computed the stored mark from this same `now`: a
        // clock before the epoch would make the two disagree.
        if now_ms < EPOCH_MS as i64 || now_ms as u64 > LAST_MS {
            return Err(Error::new(Gate::Range, "the clock reads outside the contract's time (2024 to 2093)"));
        }
        // The fields are public: hold a hand-built value to the rules its constructors keep.
        let acquired =
            parse_acquire(i64::from(acquired.node), acquired.previous_mark.map_or(-1, |m| m.min(LAST_MS + 1) as i64))?;
        let terms = LeaseTerms::new(terms.ttl_ms, terms.margin_ms)?;
        let now = now_ms as u64;
        let floor = match acquired.previous_mark {
            Some(mark) => now.max(mark + 1),
            None => now,
        };
        if floor + terms.ttl_ms > LAST_MS {
            return Err(Error::new(Gate::Range, "the lease's mark is past the 41-bit time limit"));
        }
        let first_state: u64 = (floor - EPOCH_MS) << SEQ_BITS;
        Ok(LeasedMinter {
            node: acquired.node,
            terms,
            // One below the first state: the first step answers `floor`'s first id
            // (at the epoch's own millisecond, whose state 0 has no "one below", its second).
            state: AtomicU64::new(first_state.saturating_sub(1)),
            mark: AtomicU64::new(floor + terms.ttl_ms),
            fence: AtomicU64::new(sent_mono_ms.saturating_add(terms.ttl_ms - terms.margin_ms)),
            stopped: AtomicBool::new(false),
        })
    }

    /// The leased node.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(m.node(), 3);
    /// ```
    pub fn node(&self) -> u16 {
        self.node
    }

    /// The lease's terms.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(m.terms(), LeaseTerms::DEFAULT);
    /// ```
    pub fn terms(&self) -> LeaseTerms {
        self.terms
    }

    /// The mark to send with [`RENEW`] at `now_ms`: the latest of the clock
    /// and the last minted millisecond, plus the TTL. Never below the mark
    /// already stored.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(m.next_mark(T + 10_000), T as u64 + 40_000);
    /// assert_eq!(m.next_mark(T - 10_000), T as u64 + 30_000); // never below the stored mark
    /// ```
    pub fn next_mark(&self, now_ms: i64) -> u64 {
        let now = (now_ms.max(EPOCH_MS as i64) as u64).min(LAST_MS);
        let mark = (now.max(self.high_water()) + self.terms.ttl_ms).min(LAST_MS);
        mark.max(self.mark.load(Ordering::Acquire))
    }

    /// Records a renewal that Valkey accepted: `sent_mono_ms` is when it was
    /// sent, on the monotonic clock (the server's TTL restarted no earlier),
    /// `mark` what it carried.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// m.renewed(10_000, m.next_mark(T + 10_000));
    /// assert_eq!(m.fence_ms(), 35_000);
    /// ```
    pub fn renewed(&self, sent_mono_ms: u64, mark: u64) {
        // A mark past the contract's time is no time an id can have: held to it.
        self.mark.fetch_max(mark.min(LAST_MS), Ordering::AcqRel);
        self.fence.fetch_max(sent_mono_ms.saturating_add(self.terms.ttl_ms - self.terms.margin_ms), Ordering::AcqRel);
    }

    /// Closes the fence now and for good: a renewal answered "lost", or the
    /// owner releases. A renewal recorded afterwards does not reopen it.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// m.stop();
    /// assert_eq!(m.next_at(T, 0).unwrap_err().gate(), emq_id::Gate::Node);
    /// m.renewed(10_000, m.next_mark(T + 10_000)); // too late: the fence stays closed
    /// assert_eq!(m.next_at(T + 10_000, 10_000).unwrap_err().gate(), emq_id::Gate::Node);
    /// ```
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        self.fence.store(0, Ordering::Release);
        self.state.fetch_or(SEALED, Ordering::AcqRel);
    }

    /// The monotonic ms from which minting is refused.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 1_000, LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(m.fence_ms(), 1_000 + 30_000 - 5_000);
    /// ```
    pub fn fence_ms(&self) -> u64 {
        self.fence.load(Ordering::Acquire)
    }

    /// The last millisecond this minter minted in (before its first id: one
    /// before its start): what [`RELEASE`] stores as the node's mark.
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(m.high_water(), T as u64 - 1);
    /// m.next_at(T + 7, 0).unwrap();
    /// assert_eq!(m.high_water(), T as u64 + 7);
    /// ```
    pub fn high_water(&self) -> u64 {
        ((self.state.load(Ordering::Acquire) & !SEALED) >> SEQ_BITS) + EPOCH_MS
    }

    /// Mints with a wall-clock reading `now_ms` (unix ms) at monotonic
    /// `mono_ms`: the contract's step on this minter's state, refused with
    /// `node` once the fence has closed, or when the next id would pass the
    /// stored mark (a burst far ahead of the clock: the next renewal raises it).
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// const T: i64 = 1769526697641;
    /// let m = LeasedMinter::start(Acquired { node: 3, previous_mark: None }, T, 0, LeaseTerms::DEFAULT).unwrap();
    /// let (a, b) = (m.next_at(T, 0).unwrap(), m.next_at(T, 0).unwrap());
    /// assert_eq!(b, a + 1);
    /// ```
    pub fn next_at(&self, now_ms: i64, mono_ms: u64) -> Result<u64> {
        if self.stopped.load(Ordering::Acquire) || mono_ms >= self.fence.load(Ordering::Acquire) {
            return Err(Error::from_gate(
                Gate::Node,
                "the node's lease was not renewed in time: minting stopped, since another process may hold the node now",
            ));
        }
        let mark = self.mark.load(Ordering::Acquire);
        let mut current = self.state.load(Ordering::Relaxed);
        loop {
            if current & SEALED != 0 {
                return Err(Error::from_gate(Gate::Node, "the lease was stopped: minting on it ended"));
            }
            let (next, snowflake) = step(current, self.node, now_ms)?;
            if (next >> SEQ_BITS) + EPOCH_MS > mark {
                return Err(Error::from_gate(
                    Gate::Node,
                    "the lease's mark is reached: ids wait for the next renewal to raise it",
                ));
            }
            match self.state.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return Ok(snowflake),
                Err(seen) => current = seen,
            }
        }
    }

    /// Mints with the system clock and the process's monotonic clock
    /// ([`monotonic_ms`](crate::monotonic_ms)).
    ///
    /// ```
    /// use emq_id::{Acquired, LeaseTerms, LeasedMinter};
    /// let acquired = Acquired { node: 3, previous_mark: None };
    /// let m = LeasedMinter::start(acquired, emq_id::now_ms(), emq_id::monotonic_ms(), LeaseTerms::DEFAULT).unwrap();
    /// assert_eq!(emq_id::node(m.next().unwrap()), 3);
    /// ```
    #[cfg(feature = "std")]
    pub fn next(&self) -> Result<u64> {
        self.next_at(crate::clock::now_ms(), crate::clock::monotonic_ms())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_769_526_697_641;

    #[test]
    fn every_script_declares_the_one_key_it_touches() {
        for script in SCRIPTS {
            assert_eq!(script.keys.len(), 1, "{}", script.name);
            // No key is built inside a script: each call names KEYS[1] and fields of it.
            assert!(!script.text.contains("KEYS[2]") && !script.text.contains("{emq}"), "{}", script.name);
            assert_eq!(script.text.matches("KEYS[").count(), 1, "{}", script.name);
        }
        assert_eq!(crate::reserve(b"leases").unwrap().as_str(), LEASE_KEY);
    }

    #[test]
    fn a_new_owner_starts_after_the_previous_mark_whatever_its_clock() {
        let terms = LeaseTerms::new(30_000, 5_000).unwrap();
        // The previous owner's clock was 5 s ahead: its mark is in the future for us.
        let previous = (T + 5_000 + 30_000) as u64;
        let m = LeasedMinter::start(Acquired { node: 3, previous_mark: Some(previous) }, T, 0, terms).unwrap();
        let first = m.next_at(T, 0).unwrap();
        assert_eq!(crate::unix_ms(first), previous + 1);
        assert_eq!(crate::node(first), 3);
        assert_eq!(crate::seq(first), 0);
        // A node never leased starts now.
        let fresh = LeasedMinter::start(Acquired { node: 4, previous_mark: None }, T, 0, terms).unwrap();
        assert_eq!(crate::unix_ms(fresh.next_at(T, 0).unwrap()), T as u64);
        assert_eq!(fresh.high_water(), T as u64);
    }

    #[test]
    fn the_fence_closes_margin_before_the_ttl_and_renewals_move_it() {
        let terms = LeaseTerms::new(30_000, 5_000).unwrap();
        let m = LeasedMinter::start(Acquired { node: 1, previous_mark: None }, T, 0, terms).unwrap();
        // The monotonic clock decides, whatever the wall clock says.
        assert!(m.next_at(T, 24_999).is_ok());
        assert_eq!(m.next_at(T, 25_000).unwrap_err().gate(), Gate::Node);
        assert_eq!(m.next_at(T - 60_000, 25_000).unwrap_err().gate(), Gate::Node);
        m.renewed(20_000, m.next_mark(T + 20_000));
        assert!(m.next_at(T + 20_000, 44_999).is_ok());
        assert_eq!(m.next_at(T + 20_000, 45_000).unwrap_err().gate(), Gate::Node);
        m.stop();
        assert_eq!(m.next_at(T + 21_000, 21_000).unwrap_err().gate(), Gate::Node);
        // A renewal that lands after the stop does not reopen the fence.
        m.renewed(30_000, m.next_mark(T + 30_000));
        assert_eq!(m.next_at(T + 31_000, 31_000).unwrap_err().gate(), Gate::Node);
    }

    #[test]
    fn no_id_passes_the_mark_and_release_stores_the_high_water() {
        let terms = LeaseTerms::new(3, 1).unwrap();
        let m = LeasedMinter::start(Acquired { node: 1, previous_mark: None }, T, 0, terms).unwrap();
        // A burst at one clock reading: 4,096 ids per ms, mark = T + 3.
        let mut n = 0;
        while m.next_at(T, 0).is_ok() {
            n += 1;
        }
        assert_eq!(n, 4 * 4096, "ids of T to T+3, none past the mark");
        assert_eq!(m.high_water(), T as u64 + 3);
        assert_eq!(m.next_mark(T), T as u64 + 6);
    }

    #[test]
    fn a_mint_racing_the_stop_lands_before_the_high_water_or_not_at_all() {
        let terms = LeaseTerms::new(30_000, 5_000).unwrap();
        for _ in 0..200 {
            let m = std::sync::Arc::new(
                LeasedMinter::start(Acquired { node: 1, previous_mark: None }, T, 0, terms).unwrap(),
            );
            let (minter, minting) = (m.clone(), std::sync::Arc::new(AtomicBool::new(false)));
            let racer_minting = minting.clone();
            let racer = std::thread::spawn(move || {
                let mut last = 0;
                // Far apart clock readings, each id moving the high water, and none near
                // the lease's mark (30 s on): only the stop ends this loop.
                for i in 0.. {
                    match minter.next_at(T + i % 1000, 0) {
                        Ok(s) => {
                            last = s;
                            racer_minting.store(true, Ordering::Release);
                        }
                        Err(_) => return last,
                    }
                }
                last
            });
            // The stop lands while the racer mints: it has minted, and mints until refused.
            while !minting.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            m.stop();
            let high_water = m.high_water();
            let last = racer.join().unwrap();
            assert_ne!(last, 0, "the racer minted before the stop");
            assert!(crate::unix_ms(last) <= high_water, "an id past the high water the release stores");
            assert_eq!(m.next_at(T, 0).unwrap_err().gate(), Gate::Node);
        }
        let before = LeasedMinter::start(Acquired { node: 1, previous_mark: None }, 0, 0, terms);
        assert_eq!(before.unwrap_err().gate(), Gate::Range);
    }

    #[test]
    fn replies_are_read_or_refused() {
        assert_eq!(parse_acquire(1023, T).unwrap().previous_mark, Some(T as u64));
        assert_eq!(parse_acquire(-1, -1).unwrap_err().gate(), Gate::Range);
        assert_eq!(parse_acquire(0, -2).unwrap_err().gate(), Gate::Range);
        assert_eq!(parse_renewal(1), Ok(()));
        assert_eq!(parse_renewal(0).unwrap_err().gate(), Gate::Node);
        assert_eq!(parse_renewal(2).unwrap_err().gate(), Gate::Range);
        assert_eq!(parse_acquire_error("EMQLEASE every node is leased").unwrap().gate(), Gate::Node);
        assert_eq!(parse_acquire_error("ERR EMQLEASE every node is leased").unwrap().gate(), Gate::Node);
        assert!(parse_acquire_error("NOSCRIPT No matching script").is_none());
        assert!(LeaseTerms::new(10, 10).is_err());
        assert!(LeaseTerms::new(30_000, 0).is_err());
        assert!(LeaseTerms::new(30_000, 20_001).is_err());
        assert!(LeaseTerms::new(30_000, 20_000).is_ok());
    }
}
