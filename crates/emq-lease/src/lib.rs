//! A node lease on Valkey, held (SPEC.md §5.2): [`Lease::acquire`] takes a
//! free node with the core's `acquire` script and mints nothing until
//! `replicas` replicas acknowledged it (`WAIT`); a background thread renews
//! it every third of its TTL (a renewal that is not acknowledged moves
//! neither the fence nor the mark), follows a failover to the new primary
//! through any seed or any primary a slot map named, and when the lease is
//! gone (or no write of it was answered for a whole TTL) takes another node on its own — its first id after every
//! id this holder minted before. [`Lease::mint`] mints on whichever lease is
//! held (`node` while none is), and [`Lease::release`] (or dropping it) hands
//! the node back with its high-water mark.
//!
//! The scripts, keys, the acknowledgement rule and the arithmetic are the
//! core's (`emq_id::ACQUIRE`, `parse_wait`, `LeasedMinter`…); this crate only
//! moves them over a socket, so it is the reference for what a binding's
//! holder does with its users' Valkey client.

use std::io;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use emq_id::{Gate, Id, LeaseTerms, LeasedMinter};
pub use emq_resp::{Connection, Timeouts};

mod keeper;
mod route;
mod script;
mod token;

use keeper::Keeper;
use route::Route;

/// Why a lease could not be taken or used.
#[derive(Debug)]
pub enum LeaseError {
    /// The contract refused (`node`: every node leased, a lease write not
    /// acknowledged by enough replicas, the lease lost or fenced; `range`:
    /// terms or a clock the protocol cannot keep).
    Gate(emq_id::Error),
    /// The reserve did not run the first acquire for a whole TTL (`node`):
    /// `reply` is the server's last answer, which names its state
    /// (`CLUSTERDOWN…`, `TRYAGAIN…`, `LOADING…`, `NOREPLICAS…`).
    Refused { refusal: emq_id::Error, reply: String },
    /// Valkey could not be reached or answered something else.
    Io(io::Error),
}

impl std::fmt::Display for LeaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeaseError::Gate(e) => write!(f, "{}", e.message()),
            LeaseError::Refused { refusal, reply } => write!(f, "{}: {reply}", refusal.message()),
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

/// How a holder keeps its lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseOptions {
    /// The lease's TTL and fence margin.
    pub terms: LeaseTerms,
    /// Replicas that must acknowledge each lease write (`WAIT`) before it
    /// counts: [`emq_id::LEASE_REPLICAS`] by default. `0` for a reserve
    /// whose primary has no replica, accepting that a failover may then lose
    /// a lease and let two processes mint on one node (SPEC.md §5.2).
    pub replicas: u32,
    /// Every wait on Valkey: keep the read timeout above `terms.wait_ms()`.
    pub timeouts: Timeouts,
}

impl LeaseOptions {
    /// The core's default terms and replicas, `emq-resp`'s default timeouts.
    pub const DEFAULT: LeaseOptions =
        LeaseOptions { terms: LeaseTerms::DEFAULT, replicas: emq_id::LEASE_REPLICAS, timeouts: Timeouts::DEFAULT };

    /// The defaults with other terms.
    pub const fn new(terms: LeaseTerms) -> LeaseOptions {
        LeaseOptions { terms, ..LeaseOptions::DEFAULT }
    }

    /// These options with `replicas` acknowledging each write.
    pub const fn replicas(self, replicas: u32) -> LeaseOptions {
        LeaseOptions { replicas, ..self }
    }

    /// These options with other timeouts.
    pub const fn timeouts(self, timeouts: Timeouts) -> LeaseOptions {
        LeaseOptions { timeouts, ..self }
    }

    /// How soon a write that did not count is tried again: the core's
    /// [`LeaseTerms::retry_ms`].
    pub fn retry(&self) -> Duration {
        Duration::from_millis(self.terms.retry_ms())
    }
}

impl Default for LeaseOptions {
    fn default() -> LeaseOptions {
        LeaseOptions::DEFAULT
    }
}

/// A lease this holder has held (or holds): what [`Lease::held`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    /// The leased node.
    pub node: u16,
    /// The node's mark when this lease took it (`None`: never leased before).
    pub previous_mark: Option<u64>,
    /// Which of this holder's leases it is: 1 for the first, 2 after one re-acquisition…
    pub ordinal: u32,
}

/// A snowflake and the lease it was minted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Minted {
    /// The snowflake.
    pub snowflake: u64,
    /// [`Held::ordinal`] of the lease that minted it.
    pub lease: u32,
}

/// How the holder has fared: leases taken and lost, and the time without one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HolderStats {
    /// Leases taken and acknowledged (the first one included).
    pub taken: u32,
    /// Leases lost: answered gone, or fenced past their TTL without a renewal.
    pub lost: u32,
    /// How long the holder has been unable to mint, if it is now.
    pub unleased: Option<Duration>,
    /// The longest time it was unable to mint, ended or not.
    pub longest_unleased: Duration,
}

/// What the keeper shares with minting threads.
struct Shared {
    current: RwLock<Option<Arc<keeper::Lease>>>,
    stats: Mutex<Stats>,
}

#[derive(Default)]
struct Stats {
    taken: u32,
    lost: u32,
    unleased_since: Option<Instant>,
    longest: Duration,
}

impl Shared {
    fn stats(&self) -> std::sync::MutexGuard<'_, Stats> {
        self.stats.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn current(&self) -> Option<Arc<keeper::Lease>> {
        self.current.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Mints on the lease held now, under the read lock (no reference count
    /// moved per id): `None` while none is held.
    fn next(&self) -> Option<Result<Minted, emq_id::Error>> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        let lease = current.as_ref()?;
        Some(lease.minter.next().map(|snowflake| Minted { snowflake, lease: lease.held.ordinal }))
    }
}

/// A held node lease: acquired, renewed, re-acquired and released by a
/// background thread, minted on by any thread.
pub struct Lease {
    shared: Arc<Shared>,
    stop: Option<mpsc::Sender<()>>,
    keeper: Option<JoinHandle<Result<bool, LeaseError>>>,
}

impl Lease {
    /// Takes a free node from the server or cluster reached through `seeds`
    /// (`HOST:PORT[,HOST:PORT…]`: any nodes of one cluster), trying nodes
    /// from a random one on, and returns once the acquire is acknowledged by
    /// `options.replicas` replicas. Refused with `node` when every node is
    /// leased or the acquire was not acknowledged in `terms.wait_ms()` (the
    /// error names the counts; the unacknowledged lease is released).
    pub fn acquire(seeds: &str, options: LeaseOptions) -> Result<Lease, LeaseError> {
        if options.timeouts.read <= Duration::from_millis(options.terms.wait_ms()) {
            // WAIT's reply would time out as a fault, leaving a node taken and unaccounted for.
            return Err(LeaseError::Gate(emq_id::Error::from_gate(
                Gate::Range,
                "the read timeout must exceed the terms' WAIT timeout (LeaseTerms::wait_ms)",
            )));
        }
        let shared = Arc::new(Shared { current: RwLock::new(None), stats: Mutex::new(Stats::default()) });
        let mut keeper = Keeper::new(Route::new(seeds, options.timeouts)?, options, shared.clone());
        keeper.first()?;
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("emq-lease".into())
            .spawn(move || keeper.run(&stopped))
            .map_err(LeaseError::Io)?;
        Ok(Lease { shared, stop: Some(stop), keeper: Some(thread) })
    }

    /// The lease held now, if any.
    pub fn held(&self) -> Option<Held> {
        self.shared.current().map(|l| l.held)
    }

    /// The node leased now, if any.
    pub fn node(&self) -> Option<u16> {
        self.held().map(|h| h.node)
    }

    /// The minter of the lease held now: share it between threads
    /// (`LeasedMinter` is lock-free). A later lease has another minter.
    pub fn minter(&self) -> Option<Arc<LeasedMinter>> {
        self.shared.current().map(|l| l.minter.clone())
    }

    /// Leases taken and lost, and the time without one.
    pub fn stats(&self) -> HolderStats {
        let stats = self.shared.stats();
        let unleased = stats.unleased_since.map(|since| since.elapsed());
        HolderStats {
            taken: stats.taken,
            lost: stats.lost,
            unleased,
            longest_unleased: stats.longest.max(unleased.unwrap_or_default()),
        }
    }

    /// Mints a snowflake on the lease held now. Refused with `node` while no
    /// lease is held (the holder is taking one), once the lease's fence has
    /// closed, or while a burst waits for the next renewal to raise its mark.
    pub fn next(&self) -> Result<Minted, emq_id::Error> {
        self.shared.next().unwrap_or(Err(emq_id::Error::from_gate(
            Gate::Node,
            "no lease is held: the holder is taking one (its stats say for how long)",
        )))
    }

    /// [`next`](Self::next), tried again every millisecond while it is
    /// refused with `node`, for at most `wait`.
    pub fn next_within(&self, wait: Duration) -> Result<Minted, emq_id::Error> {
        let deadline = Instant::now() + wait;
        loop {
            match self.next() {
                Err(e) if e.gate() == Gate::Node && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                other => return other,
            }
        }
    }

    /// Mints an id of namespace `ns` on the lease held now (as [`next`](Self::next)).
    pub fn mint(&self, ns: &[u8]) -> Result<Id, emq_id::Error> {
        emq_id::check_namespace(ns)?;
        Id::new(ns, self.next()?.snowflake)
    }

    /// Stops minting and renewing, and hands the node back with its
    /// high-water mark (`Ok(false)`: no lease was held, or it was already
    /// gone or another's).
    pub fn release(mut self) -> Result<bool, LeaseError> {
        self.release_now()
    }

    fn release_now(&mut self) -> Result<bool, LeaseError> {
        drop(self.stop.take());
        match self.keeper.take() {
            Some(thread) => thread.join().unwrap_or(Ok(false)),
            None => Ok(false),
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let _ = self.release_now();
    }
}

/// Opens a connection to the server that owns the reserve's slot: `addr`
/// itself on a standalone server, else the primary `CLUSTER SLOTS` names.
pub fn connect(addr: &str) -> io::Result<Connection> {
    Route::new(addr, Timeouts::DEFAULT)?.connect()
}
