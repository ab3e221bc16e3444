//! The holder's background thread: one state machine over one connection.
//!
//! - **Held** (published: minting threads mint on it): renewed every third of
//!   the TTL; an acknowledged renewal moves the fence and the mark, an
//!   unacknowledged one is tried again soon and moves nothing; a renewal
//!   answered "gone" stops the minter and the holder takes another node at
//!   once; so does a lease no renewal reached for a whole TTL (it has expired
//!   on the server, whatever the connection says). A lease whose renewals
//!   are answered but not acknowledged is kept: fenced, it mints nothing, and
//!   it mints again once a replica acknowledges.
//! - **Pending** (taken, not yet acknowledged: nothing minted on it): renewed
//!   until a renewal is acknowledged (then it is published) or answered gone.
//! - **Neither**: `acquire` from a random node, with `now` no earlier than
//!   one past this holder's last minted millisecond, so its ids keep their
//!   order across leases.
//!
//! Any I/O fault drops the connection; the next try finds the reserve's
//! primary again through the route.

use std::io;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use emq_id::{Acquired, LeaseTerms, LeasedMinter};
use emq_resp::Connection;

use crate::route::Route;
use crate::script::{Wire, Written};
use crate::{token, Held, LeaseError, LeaseOptions, Shared};

/// One lease and its minter.
pub struct Lease {
    pub minter: Arc<LeasedMinter>,
    pub token: String,
    pub held: Held,
}

pub struct Keeper {
    route: Route,
    conn: Option<Connection>,
    options: LeaseOptions,
    shared: Arc<Shared>,
    /// The lease minting threads use, when one is held.
    held: Option<Arc<Lease>>,
    /// A lease taken whose acquire is not acknowledged yet.
    pending: Option<Lease>,
    /// When the held lease's last write the server answered was sent
    /// (monotonic ms): a TTL later it has expired there.
    answered_at: u64,
    /// One past this holder's last minted millisecond: no later lease starts before it.
    not_before: u64,
    ordinals: u32,
}

impl Keeper {
    pub fn new(route: Route, options: LeaseOptions, shared: Arc<Shared>) -> Keeper {
        Keeper {
            route,
            conn: None,
            options,
            shared,
            held: None,
            pending: None,
            answered_at: 0,
            not_before: 0,
            ordinals: 0,
        }
    }

    fn terms(&self) -> LeaseTerms {
        self.options.terms
    }

    /// The first acquire, in the caller's thread: held, or the refusal (an
    /// unacknowledged lease released first), or the fault.
    pub fn first(&mut self) -> Result<(), LeaseError> {
        self.conn = Some(self.route.connect()?);
        match self.acquire()? {
            None => Ok(()),
            Some(refusal) => {
                let _ = self.release();
                Err(LeaseError::Gate(refusal))
            }
        }
    }

    /// Renews and re-acquires until `stopped` says so, then releases.
    pub fn run(mut self, stopped: &mpsc::Receiver<()>) -> Result<bool, LeaseError> {
        let mut due = Instant::now() + self.every();
        loop {
            match stopped.recv_timeout(due.saturating_duration_since(Instant::now())) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return self.release(),
            }
            due = self.tick();
        }
    }

    fn every(&self) -> Duration {
        Duration::from_millis((self.terms().ttl_ms / 3).max(1))
    }

    /// One step of the state machine; answers when the next is due.
    fn tick(&mut self) -> Instant {
        let soon = Instant::now() + self.options.retry();
        self.expire_fenced();
        let step = match self.connection() {
            Ok(()) if self.held.is_some() => self.renew_held(),
            Ok(()) if self.pending.is_some() => self.renew_pending(),
            Ok(()) => self.acquire().map(|refusal| refusal.is_none()),
            Err(e) => Err(e),
        };
        match step {
            // A held lease renewed, or one just taken: the next renewal a third of the TTL on.
            Ok(true) => Instant::now() + self.every(),
            Ok(false) => soon,
            Err(_) => {
                self.conn = None;
                soon
            }
        }
    }

    fn connection(&mut self) -> io::Result<()> {
        if self.conn.is_none() {
            self.conn = Some(self.route.connect()?);
        }
        Ok(())
    }

    fn wire(&mut self) -> io::Result<Wire<'_>> {
        let conn = self.conn.as_mut().ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "no connection"))?;
        Ok(Wire { conn, route: &mut self.route, replicas: self.options.replicas, terms: self.options.terms })
    }

    /// A held lease whose fence closed: the holder cannot mint (counted as
    /// time without a lease); a whole TTL after the last write the server
    /// answered, it has expired there and is given up.
    fn expire_fenced(&mut self) {
        let Some(lease) = &self.held else { return };
        let now = emq_id::monotonic_ms();
        if now >= lease.minter.fence_ms() {
            let mut stats = self.shared.stats();
            stats.unleased_since.get_or_insert_with(Instant::now);
        }
        if now >= self.answered_at.saturating_add(self.terms().ttl_ms) {
            self.lose();
        }
    }

    /// Stops the held lease's minter and unpublishes it.
    fn lose(&mut self) {
        let Some(lease) = self.held.take() else { return };
        lease.minter.stop();
        self.not_before = self.not_before.max(lease.minter.high_water() + 1);
        *self.shared.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let mut stats = self.shared.stats();
        stats.lost += 1;
        stats.unleased_since.get_or_insert_with(Instant::now);
    }

    /// Makes `lease` the one minting threads use.
    fn publish(&mut self, lease: Lease, answered_at: u64) {
        let lease = Arc::new(lease);
        self.held = Some(lease.clone());
        self.answered_at = answered_at;
        *self.shared.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(lease);
        let mut stats = self.shared.stats();
        stats.taken += 1;
        Self::leased_again(&mut stats);
    }

    fn leased_again(stats: &mut crate::Stats) {
        if let Some(since) = stats.unleased_since.take() {
            stats.longest = stats.longest.max(since.elapsed());
        }
    }

    /// Takes a node. `None`: held (acknowledged); `Some`: the refusal (every
    /// node leased, or the acquire not acknowledged: then pending).
    fn acquire(&mut self) -> io::Result<Option<emq_id::Error>> {
        let token = token::fresh();
        let start = token::below(u64::from(emq_id::LEASE_NODES));
        let now = emq_id::now_ms().max(i64::try_from(self.not_before).unwrap_or(i64::MAX));
        let sent = emq_id::monotonic_ms();
        let terms = self.terms();
        // A clock the contract cannot hold is refused before a node is taken
        // (a dry start: the same checks on the same clock, no node involved).
        if let Err(refusal) = LeasedMinter::start(Acquired { node: 0, previous_mark: None }, now, sent, terms) {
            return Ok(Some(refusal));
        }
        let (acquired, acknowledged) = match self.wire()?.acquire(&token, start, now)? {
            Written::Refused(refusal) => return Ok(Some(refusal)),
            Written::Answered(acquired, acknowledged) => (acquired, acknowledged),
        };
        // Only a mark near the end of the contract's time fails here: the node
        // is left to its TTL, and the refusal says why.
        let minter = match LeasedMinter::start(acquired, now, sent, terms) {
            Ok(minter) => minter,
            Err(refusal) => return Ok(Some(refusal)),
        };
        self.ordinals += 1;
        let held = Held { node: acquired.node, previous_mark: acquired.previous_mark, ordinal: self.ordinals };
        let lease = Lease { minter: Arc::new(minter), token, held };
        match acknowledged {
            Ok(()) => {
                self.publish(lease, sent);
                Ok(None)
            }
            Err(refusal) => {
                self.pending = Some(lease);
                Ok(Some(refusal))
            }
        }
    }

    /// Renews the held lease: `true` when acknowledged.
    fn renew_held(&mut self) -> io::Result<bool> {
        let Some(lease) = self.held.clone() else { return Ok(false) };
        let sent = emq_id::monotonic_ms();
        let mark = lease.minter.next_mark(emq_id::now_ms());
        match self.wire()?.renew(lease.held.node, &lease.token, mark, false)? {
            Written::Answered(Ok(()), Ok(())) => {
                lease.minter.renewed(sent, mark);
                self.answered_at = sent;
                Self::leased_again(&mut self.shared.stats());
                Ok(true)
            }
            Written::Answered(Ok(()), Err(_unacknowledged)) => {
                self.answered_at = sent; // still this holder's on the primary: kept, fenced
                Ok(false)
            }
            // The renewal did not run (`NOREPLICAS`): nothing changed; try again soon.
            Written::Refused(_) => Ok(false),
            Written::Answered(Err(()), _) => {
                self.lose();
                // Another node at once: the fleet's nodes are few to spare.
                Ok(self.acquire()?.is_none())
            }
        }
    }

    /// Renews the pending lease: published once a renewal is acknowledged.
    fn renew_pending(&mut self) -> io::Result<bool> {
        let Some(lease) = self.pending.take() else { return Ok(false) };
        let sent = emq_id::monotonic_ms();
        let mark = lease.minter.next_mark(emq_id::now_ms());
        let written = match self.wire().and_then(|mut w| w.renew(lease.held.node, &lease.token, mark, false)) {
            Ok(written) => written,
            Err(e) => {
                self.pending = Some(lease);
                return Err(e);
            }
        };
        match written {
            Written::Answered(Ok(()), Ok(())) => {
                lease.minter.renewed(sent, mark);
                self.publish(lease, sent);
                Ok(true)
            }
            Written::Answered(Ok(()), Err(_unacknowledged)) => {
                self.pending = Some(lease);
                Ok(false)
            }
            Written::Refused(_) => {
                self.pending = Some(lease); // the renewal did not run (`NOREPLICAS`)
                Ok(false)
            }
            // Lost before it counted (a failover took it): take another.
            Written::Answered(Err(()), _) => Ok(self.acquire()?.is_none()),
        }
    }

    /// Stops minting and releases what is held or pending: `true` when a
    /// held lease was handed back. The release is not waited on: losing it
    /// in a failover leaves the mark higher, which is safe.
    fn release(&mut self) -> Result<bool, LeaseError> {
        let held = self.held.take();
        let was_held = held.is_some();
        *self.shared.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let lease: Option<Arc<Lease>> = held.or_else(|| self.pending.take().map(Arc::new));
        let Some(lease) = lease else { return Ok(false) };
        lease.minter.stop();
        self.connection()?;
        let mut wire = self.wire()?;
        wire.replicas = 0;
        match wire.renew(lease.held.node, &lease.token, lease.minter.high_water(), true)? {
            Written::Answered(answer, _) => Ok(answer.is_ok() && was_held),
            Written::Refused(e) => Err(LeaseError::Gate(e)),
        }
    }
}
