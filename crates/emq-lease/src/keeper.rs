//! The holder's background thread: the core's [`emq_id::Keeper`] decides,
//! this file does its I/O over one connection.
//!
//! The core says which write is due (acquire, or renew the held or pending
//! lease; a held lease no write reached for a whole TTL has expired) and,
//! from what each write came to, what to do and when to write next: publish
//! a lease, tell its minter an acknowledged renewal, keep a lease pending,
//! lose one, follow an `ASK` (the same write, `ASKING` in front, on a
//! connection to the node named), find the primary again after `MOVED`, try
//! again what did not run, or reconnect after a fault. An acquire starts no
//! earlier than one past this holder's last minted millisecond, so its ids
//! keep their order across leases.

use std::io;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use emq_id::{Acquired, Action, LeasedMinter, Next, Outcome, Step};
use emq_resp::{Connection, Reply};

use crate::route::{address, Route};
use crate::script::{protocol, send, Write};
use crate::{token, Held, LeaseError, LeaseOptions, Shared};

/// One lease and its minter.
pub struct Lease {
    pub minter: Arc<LeasedMinter>,
    pub token: String,
    pub held: Held,
}

/// What a write came to, besides the core's reading of it.
enum Came {
    /// The script ran: `WAIT`'s reading.
    Ran(Result<(), emq_id::Error>),
    /// The script answered this error.
    Refused(String),
    /// No reply could be read, or one the protocol does not give.
    Failed(LeaseError),
}

pub struct Keeper {
    route: Route,
    conn: Option<Connection>,
    options: LeaseOptions,
    shared: Arc<Shared>,
    core: emq_id::Keeper,
    /// The lease minting threads use, when one is held.
    held: Option<Arc<Lease>>,
    /// A lease taken whose acquire is not acknowledged yet.
    pending: Option<Lease>,
    /// One past this holder's last minted millisecond: no later lease starts before it.
    not_before: u64,
    ordinals: u32,
}

impl Keeper {
    pub fn new(route: Route, options: LeaseOptions, shared: Arc<Shared>) -> Keeper {
        let core = emq_id::Keeper::starting(options.terms, emq_id::monotonic_ms());
        Keeper { route, conn: None, options, shared, core, held: None, pending: None, not_before: 0, ordinals: 0 }
    }

    /// The first acquire, in the caller's thread: held, or the refusal (an
    /// unacknowledged lease released first), or the fault. What did not run
    /// is tried again for up to a TTL, as the core says.
    pub fn first(&mut self) -> Result<(), LeaseError> {
        loop {
            let (step, came) = self.acquire();
            match step.action {
                Action::Publish => return Ok(()),
                Action::GiveUp => return Err(self.give_up(came)),
                _ => std::thread::sleep(Duration::from_millis(step.after_ms)),
            }
        }
    }

    /// Writes when the core says, until `stopped` says so, then releases.
    pub fn run(mut self, stopped: &mpsc::Receiver<()>) -> Result<bool, LeaseError> {
        let mut due = Instant::now() + Duration::from_millis(self.options.terms.renew_every_ms());
        loop {
            match stopped.recv_timeout(due.saturating_duration_since(Instant::now())) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return self.release(),
            }
            due = Instant::now() + Duration::from_millis(self.tick().after_ms);
        }
    }

    /// The write due now, sent and settled.
    fn tick(&mut self) -> Step {
        self.count_fenced();
        match self.core.next(emq_id::monotonic_ms()) {
            Next::Renew => self.renew(),
            Next::Expired => {
                self.lose();
                self.acquire().0
            }
            // Acquire (a release is never due here: it ends the thread).
            _ => self.acquire().0,
        }
    }

    /// A held lease whose fence closed: the holder cannot mint (counted as time without a lease).
    fn count_fenced(&mut self) {
        let Some(lease) = &self.held else { return };
        if emq_id::monotonic_ms() >= lease.minter.fence_ms() {
            self.shared.stats().unleased_since.get_or_insert_with(Instant::now);
        }
    }

    fn connection(&mut self) -> io::Result<&mut Connection> {
        if self.conn.is_none() {
            self.conn = Some(self.route.connect()?);
        }
        self.conn.as_mut().ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "no connection"))
    }

    /// Sends `write` (sent at monotonic `sent`) and settles what it came to,
    /// following an `ASK` once. `held` reads a script's answer: whether the
    /// lease is the owner's (`None`: a reply the protocol does not give).
    fn write(&mut self, write: &Write, sent: u64, mut held: impl FnMut(&Reply) -> Option<bool>) -> (Step, Came) {
        // A release is not waited on: losing it leaves the mark higher, which is safe.
        let replicas = if write.script.name == emq_id::RELEASE.name { 0 } else { self.options.replicas };
        let wait_ms = self.options.terms.wait_ms();
        let mut there: Option<Connection> = None;
        loop {
            let asked = there.is_some();
            let conn = match there.as_mut() {
                Some(conn) => Ok(conn),
                None => self.connection(),
            };
            let (outcome, came, host) = match conn.and_then(|c| Ok((send(c, write, replicas, wait_ms, asked)?, c))) {
                Err(e) => (Outcome::Fault, Came::Failed(e.into()), String::new()),
                Ok((replies, conn)) => {
                    let host = conn.host().to_string();
                    match (replies.script.error(), &replies.wait) {
                        (Some(e), _) => (emq_id::read_lease_error(e, asked), Came::Refused(e.to_string()), host),
                        (None, Some(Reply::Error(e))) => {
                            (Outcome::Fault, Came::Failed(protocol(&format!("WAIT: {e}")).into()), host)
                        }
                        (None, wait) => {
                            let acknowledged = match wait.as_ref().map(|w| w.as_int()) {
                                None => Ok(()),
                                Some(Some(n)) => emq_id::parse_wait(n, replicas),
                                Some(None) => {
                                    Err(emq_id::Error::from_gate(emq_id::Gate::Range, "WAIT answers a count"))
                                }
                            };
                            match held(&replies.script) {
                                Some(held) => {
                                    let outcome = emq_id::Outcome::of_write(held, acknowledged.is_ok());
                                    (outcome, Came::Ran(acknowledged), host)
                                }
                                None => {
                                    let what = format!("{} answered {:?}", write.script.name, replies.script);
                                    (Outcome::Fault, Came::Failed(protocol(&what).into()), host)
                                }
                            }
                        }
                    }
                }
            };
            let step = self.core.settle(outcome, sent, emq_id::monotonic_ms());
            match (step.action, &came) {
                (Action::Follow, Came::Refused(e)) => {
                    // The reserve's slot is migrating and its one key has left:
                    // the write runs where the key is, and its `WAIT` on that
                    // connection counts the replicas of the node that ran it.
                    let to = emq_id::redirect(e).map(|r| address(r, &host)).unwrap_or_default();
                    match Connection::open_with(&to, self.options.timeouts) {
                        Ok(conn) => there = Some(conn),
                        Err(e) => {
                            let fault = io::Error::new(e.kind(), format!("{to} (ASK): {e}"));
                            let step = self.core.settle(Outcome::Fault, sent, emq_id::monotonic_ms());
                            return (self.after(step), Came::Failed(fault.into()));
                        }
                    }
                }
                (Action::Reroute, Came::Refused(e)) => {
                    self.route.moved(e, &host);
                    self.conn = None;
                    return (step, came);
                }
                _ => return (self.after(step), came),
            }
        }
    }

    /// What every step but the lease's own does to the connection.
    fn after(&mut self, step: Step) -> Step {
        if matches!(step.action, Action::Reconnect | Action::Reroute | Action::GiveUp) {
            self.conn = None;
        }
        step
    }

    /// Stops the held lease's minter and unpublishes it.
    fn lose(&mut self) {
        let Some(lease) = self.held.take() else { return };
        lease.minter.stop();
        self.not_before = self.not_before.max(lease.minter.high_water() + 1);
        *self.shared.current.write().unwrap_or_else(PoisonError::into_inner) = None;
        let mut stats = self.shared.stats();
        stats.lost += 1;
        stats.unleased_since.get_or_insert_with(Instant::now);
    }

    /// Makes `lease` the one minting threads use.
    fn publish(&mut self, lease: Lease) {
        let lease = Arc::new(lease);
        self.held = Some(lease.clone());
        *self.shared.current.write().unwrap_or_else(PoisonError::into_inner) = Some(lease);
        let mut stats = self.shared.stats();
        stats.taken += 1;
        Self::leased_again(&mut stats);
    }

    fn leased_again(stats: &mut crate::Stats) {
        if let Some(since) = stats.unleased_since.take() {
            stats.longest = stats.longest.max(since.elapsed());
        }
    }

    /// Takes a node from a random one on: the step, and what the write came to.
    fn acquire(&mut self) -> (Step, Came) {
        let token = token::fresh();
        let start = token::below(u64::from(emq_id::LEASE_NODES));
        let now = emq_id::now_ms().max(i64::try_from(self.not_before).unwrap_or(i64::MAX));
        let sent = emq_id::monotonic_ms();
        let terms = self.options.terms;
        // A clock the contract cannot hold is refused before a node is taken
        // (a dry start: the same checks on the same clock, no node involved).
        if let Err(refusal) = LeasedMinter::start(Acquired { node: 0, previous_mark: None }, now, sent, terms) {
            let step = self.core.settle(Outcome::Fault, sent, emq_id::monotonic_ms());
            return (self.after(step), Came::Failed(LeaseError::Gate(refusal)));
        }
        let mut started = None;
        let mut refused = None;
        let write = Write::acquire(&token, terms.ttl_ms, start, now);
        let (step, came) = self.write(&write, sent, |reply| {
            let pair = reply.as_array().filter(|p| p.len() == 2)?;
            let acquired = emq_id::parse_acquire(pair[0].as_int()?, pair[1].as_int()?).ok()?;
            // Only a mark near the end of the contract's time fails here: the
            // node is left to its TTL, and the refusal says why.
            match LeasedMinter::start(acquired, now, sent, terms) {
                Ok(minter) => started = Some((acquired, minter)),
                Err(refusal) => refused = Some(refusal),
            }
            started.is_some().then_some(true)
        });
        if let (Some(refusal), Came::Failed(_)) = (refused, &came) {
            return (step, Came::Failed(LeaseError::Gate(refusal)));
        }
        let Some((acquired, minter)) = started else { return (step, came) };
        self.ordinals += 1;
        let held = Held { node: acquired.node, previous_mark: acquired.previous_mark, ordinal: self.ordinals };
        let lease = Lease { minter: Arc::new(minter), token, held };
        match step.action {
            Action::Publish => self.publish(lease),
            // Taken, not acknowledged: renewed until a renewal is (or, first, released).
            Action::Pend | Action::GiveUp => self.pending = Some(lease),
            _ => {}
        }
        (step, came)
    }

    /// Renews the held or pending lease.
    fn renew(&mut self) -> Step {
        let Some((node, token, minter)) =
            self.held.as_deref().or(self.pending.as_ref()).map(|l| (l.held.node, l.token.clone(), l.minter.clone()))
        else {
            return self.acquire().0;
        };
        let sent = emq_id::monotonic_ms();
        let mark = minter.next_mark(emq_id::now_ms());
        let write = Write::renew(&token, self.options.terms.ttl_ms, mark, node);
        let (step, _) = self.write(&write, sent, renewed);
        match step.action {
            Action::Renewed => {
                minter.renewed(sent, mark);
                Self::leased_again(&mut self.shared.stats());
            }
            Action::Publish => {
                minter.renewed(sent, mark);
                if let Some(lease) = self.pending.take() {
                    self.publish(lease);
                }
            }
            Action::Lose if self.held.is_some() => self.lose(),
            Action::Lose => {
                // Lost before it counted (a failover took it): nothing was minted on it.
                if let Some(lease) = self.pending.take() {
                    lease.minter.stop();
                }
            }
            _ => {}
        }
        step
    }

    /// The first acquire's error: the core's refusal (naming the server's
    /// reply when the reserve did not run it), `WAIT`'s (the taken lease
    /// released first), or the fault.
    fn give_up(&mut self, came: Came) -> LeaseError {
        match came {
            Came::Failed(e) => e,
            Came::Ran(Err(unacknowledged)) => {
                let _ = self.release();
                LeaseError::Gate(unacknowledged)
            }
            Came::Ran(Ok(())) => LeaseError::Io(protocol("the first acquire gave up on a write that counted")),
            Came::Refused(reply) => match emq_id::parse_acquire_error(&reply) {
                Some(leased) => LeaseError::Gate(leased),
                None => match emq_id::Keeper::refusal(emq_id::read_lease_error(&reply, false)) {
                    Some(refusal) => LeaseError::Refused { refusal, reply },
                    None => LeaseError::Io(io::Error::other(format!("acquire: {reply}"))),
                },
            },
        }
    }

    /// Stops minting and releases what is held or pending: `true` when a
    /// held lease was handed back. The release is not waited on: losing it
    /// in a failover leaves the mark higher, which is safe. An `ASK` is
    /// followed; a release that did not run leaves the lease to its TTL.
    fn release(&mut self) -> Result<bool, LeaseError> {
        let held = self.held.take();
        let was_held = held.is_some();
        *self.shared.current.write().unwrap_or_else(PoisonError::into_inner) = None;
        let lease: Option<Arc<Lease>> = held.or_else(|| self.pending.take().map(Arc::new));
        let Some(lease) = lease else { return Ok(false) };
        lease.minter.stop();
        let write = Write::release(&lease.token, lease.minter.high_water(), lease.held.node);
        self.core.release();
        loop {
            let mut released = false;
            let (step, came) = self.write(&write, emq_id::monotonic_ms(), |reply| {
                released = renewed(reply)?;
                Some(true) // a release that ran: handed back, or already not the owner's
            });
            match (step.action, came) {
                (Action::Released, _) => return Ok(released && was_held),
                (Action::GiveUp, Came::Failed(e)) => return Err(e),
                (Action::GiveUp, Came::Refused(e)) => {
                    return Err(LeaseError::Io(io::Error::other(format!("release: {e}"))))
                }
                (Action::GiveUp, Came::Ran(_)) => return Err(LeaseError::Io(protocol("release: not settled"))),
                // Sent again: to where the reserve went (`MOVED`), or once the server runs it.
                _ => std::thread::sleep(Duration::from_millis(step.after_ms)),
            }
        }
    }
}

/// A renewal's or release's answer: `1` held, `0` gone (`None`: neither).
fn renewed(reply: &Reply) -> Option<bool> {
    match emq_id::parse_renewal(reply.as_int()?) {
        Ok(()) => Some(true),
        Err(e) if e.gate() == emq_id::Gate::Node => Some(false),
        Err(_) => None,
    }
}
