//! The lease keeper's decisions (SPEC.md §5.2): what a holder writes next,
//! when, and what each write came to. Pure functions over replies and clocks:
//! a holder in any runtime is its Valkey client's I/O around them, so every
//! holder renews on one schedule and reads an error reply one way.
//!
//! A holder's loop is: ask [`Keeper::next`] which write is due, send it (the
//! script and its `WAIT`, on one connection), read what it came to
//! ([`read_lease_error`] for an error reply, [`Outcome::of_write`] otherwise),
//! then [`Keeper::settle`] says what to do with the lease and when to write
//! again.

use crate::error::{Error, Gate};
use crate::lease::{parse_acquire_error, LeaseTerms};

/// What one lease write came to.
///
/// ```
/// use emq_id::Outcome;
/// assert_eq!(Outcome::ALL.map(Outcome::name), ["counted", "unacknowledged", "gone", "leased", "ask", "moved", "not_run", "fault"]);
/// ```
///
/// New outcomes may be added (a new reply of Valkey's), hence `#[non_exhaustive]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// The script ran, the lease is the owner's, and as many replicas as
    /// wanted acknowledged it: the write counts.
    Counted,
    /// The script ran and the lease is the owner's, but fewer replicas than
    /// wanted acknowledged it (`WAIT`): a failover could lose the write, so it
    /// moves neither the fence nor the mark.
    Unacknowledged,
    /// A renewal or release answered `0`: the lease is gone or another's.
    Gone,
    /// The acquire answered that every node is leased.
    Leased,
    /// `ASK`: the reserve's slot is migrating and its key has left this node.
    /// The same write, with `ASKING` in front and its `WAIT` after, goes to
    /// the node named ([`redirect`]), at once and on one connection.
    Ask,
    /// `MOVED` (another primary serves the reserve's slot) or `READONLY` (the
    /// node is a replica now): the script did not write. Find the reserve's
    /// primary again — the node named first — and write again.
    Moved,
    /// The server refused the script before it wrote: `TRYAGAIN` (the slot's
    /// keys are split by a migration), `CLUSTERDOWN`, `LOADING`, `MASTERDOWN`,
    /// `BUSY` (refused before it ran), or `NOREPLICAS`
    /// (`min-replicas-to-write`), `OOM` (`maxmemory`), `MISCONF` (a failed
    /// save that stops writes), which refuse a script's first write, made
    /// after its reads. Nothing was written; the same write is tried again
    /// soon, on the same connection.
    NotRun,
    /// Anything else — an error the protocol does not give, a reply of the
    /// wrong shape, a dropped connection: whether the write ran is unknown.
    Fault,
}

impl Outcome {
    /// Every outcome, in the order above.
    ///
    /// ```
    /// assert_eq!(emq_id::Outcome::ALL[0], emq_id::Outcome::Counted);
    /// ```
    pub const ALL: [Outcome; 8] = [
        Outcome::Counted,
        Outcome::Unacknowledged,
        Outcome::Gone,
        Outcome::Leased,
        Outcome::Ask,
        Outcome::Moved,
        Outcome::NotRun,
        Outcome::Fault,
    ];

    /// The outcome's stable lowercase name, as the vector file spells it.
    ///
    /// ```
    /// assert_eq!(emq_id::Outcome::NotRun.name(), "not_run");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Counted => "counted",
            Outcome::Unacknowledged => "unacknowledged",
            Outcome::Gone => "gone",
            Outcome::Leased => "leased",
            Outcome::Ask => "ask",
            Outcome::Moved => "moved",
            Outcome::NotRun => "not_run",
            Outcome::Fault => "fault",
        }
    }

    /// The outcome with this name, if any.
    ///
    /// ```
    /// assert_eq!(emq_id::Outcome::from_name("not_run"), Some(emq_id::Outcome::NotRun));
    /// ```
    pub fn from_name(name: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.name() == name)
    }

    /// A write whose script answered without an error: `held` is the
    /// script's answer read by [`parse_acquire`](crate::parse_acquire) (an
    /// acquire that answered a node is held) or
    /// [`parse_renewal`](crate::parse_renewal) (`1` is held), and
    /// `acknowledged` is [`parse_wait`](crate::parse_wait)'s reading of its
    /// `WAIT` (`true` when no `WAIT` was wanted).
    ///
    /// ```
    /// use emq_id::Outcome;
    /// assert_eq!(Outcome::of_write(true, true), Outcome::Counted);
    /// assert_eq!(Outcome::of_write(true, false), Outcome::Unacknowledged);
    /// assert_eq!(Outcome::of_write(false, true), Outcome::Gone);
    /// ```
    pub const fn of_write(held: bool, acknowledged: bool) -> Outcome {
        match (held, acknowledged) {
            (false, _) => Outcome::Gone,
            (true, true) => Outcome::Counted,
            (true, false) => Outcome::Unacknowledged,
        }
    }
}

/// Error replies that say the script wrote nothing: the server refused it
/// before it ran, or refused its first write (every script reads first).
const NOT_RUN: [&str; 8] = ["TRYAGAIN", "CLUSTERDOWN", "LOADING", "MASTERDOWN", "BUSY", "NOREPLICAS", "OOM", "MISCONF"];

/// Reads an error reply to a lease script (the text after `-`, as clients
/// give it). `asked` says whether the write was sent after `ASKING`: a node
/// that was asked and redirects again is not followed a second time (a
/// migration turned around under the write), and the write is a fault.
///
/// ```
/// use emq_id::{read_lease_error, Outcome};
/// assert_eq!(read_lease_error("ERR EMQLEASE every node is leased", false), Outcome::Leased);
/// assert_eq!(read_lease_error("ASK 9051 10.0.0.2:7001", false), Outcome::Ask);
/// assert_eq!(read_lease_error("ASK 9051 10.0.0.2:7001", true), Outcome::Fault);
/// assert_eq!(read_lease_error("MOVED 9051 10.0.0.2:7001", false), Outcome::Moved);
/// assert_eq!(read_lease_error("TRYAGAIN Multiple keys request during rehashing of slot", false), Outcome::NotRun);
/// assert_eq!(read_lease_error("CLUSTERDOWN The cluster is down", false), Outcome::NotRun);
/// assert_eq!(read_lease_error("ERR Error running script", false), Outcome::Fault);
/// ```
pub fn read_lease_error(text: &str, asked: bool) -> Outcome {
    let code = text.split(' ').next().unwrap_or("");
    if parse_acquire_error(text).is_some() {
        Outcome::Leased
    } else if code == "ASK" && redirect(text).is_some() {
        if asked {
            Outcome::Fault
        } else {
            Outcome::Ask
        }
    } else if (code == "MOVED" && redirect(text).is_some()) || code == "READONLY" {
        Outcome::Moved
    } else if NOT_RUN.contains(&code) {
        Outcome::NotRun
    } else {
        Outcome::Fault
    }
}

/// Where a `MOVED` or `ASK` reply sends a write: `<CODE> <slot> <host>:<port>`.
///
/// ```
/// let r = emq_id::redirect("ASK 9051 10.0.0.2:7001").unwrap();
/// assert_eq!((r.ask, r.slot, r.host, r.port), (true, 9051, Some("10.0.0.2"), 7001));
/// // A node that cannot name its own address leaves the host out: it is the
/// // host the redirected connection was opened to.
/// assert_eq!(emq_id::redirect("MOVED 9051 :7001").unwrap().host, None);
/// assert_eq!(emq_id::redirect("MOVED 9051 ?:7001").unwrap().host, None);
/// assert!(emq_id::redirect("MOVED 16384 10.0.0.2:7001").is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redirect<'a> {
    /// `ASK` (follow once, with `ASKING`) rather than `MOVED`.
    pub ask: bool,
    /// The slot the reply is about.
    pub slot: u16,
    /// The node's host (an IPv6 address without brackets), or `None`: the
    /// host the redirected connection was opened to.
    pub host: Option<&'a str>,
    /// The node's port.
    pub port: u16,
}

/// Reads a `MOVED` or `ASK` reply; `None` for any other text, or one whose
/// slot or port is not a number in range.
///
/// ```
/// let moved = emq_id::redirect("MOVED 9051 10.0.0.3:7002").unwrap();
/// assert!(!moved.ask);
/// assert_eq!((moved.host, moved.port), (Some("10.0.0.3"), 7002));
/// assert!(emq_id::redirect("CLUSTERDOWN The cluster is down").is_none());
/// ```
pub fn redirect(text: &str) -> Option<Redirect<'_>> {
    let mut words = text.split(' ');
    let ask = match words.next()? {
        "ASK" => true,
        "MOVED" => false,
        _ => return None,
    };
    let slot: u16 = words.next()?.parse().ok().filter(|s| *s < crate::SLOTS)?;
    let (host, port) = words.next()?.rsplit_once(':')?;
    let port: u16 = port.parse().ok()?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = (!host.is_empty() && host != "?").then_some(host);
    Some(Redirect { ask, slot, host, port })
}

/// Where a holder is with its lease.
///
/// ```
/// assert_eq!(emq_id::Phase::ALL.map(emq_id::Phase::name), ["starting", "unleased", "pending", "held", "releasing"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Phase {
    /// The first acquire, in the caller's thread: the caller waits for a
    /// lease or a refusal.
    Starting,
    /// No lease: the next write is an acquire.
    Unleased,
    /// A lease taken whose acquire no replica has acknowledged yet: renewed
    /// until a renewal is acknowledged (then held); nothing is minted on it.
    Pending,
    /// The lease minted on (published).
    Held,
    /// Handing the lease back ([`Keeper::release`]): the release is sent
    /// until it runs, a few tries at most.
    Releasing,
}

impl Phase {
    /// Every phase, in the order above.
    ///
    /// ```
    /// assert_eq!(emq_id::Phase::ALL.len(), 5);
    /// ```
    pub const ALL: [Phase; 5] = [Phase::Starting, Phase::Unleased, Phase::Pending, Phase::Held, Phase::Releasing];

    /// The phase's stable lowercase name.
    ///
    /// ```
    /// assert_eq!(emq_id::Phase::Held.name(), "held");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Unleased => "unleased",
            Phase::Pending => "pending",
            Phase::Held => "held",
            Phase::Releasing => "releasing",
        }
    }
}

/// The write [`Keeper::next`] asks for.
///
/// ```
/// assert_eq!(emq_id::Next::ALL.map(emq_id::Next::name), ["acquire", "renew", "expired", "release"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Next {
    /// Take a node (`acquire`).
    Acquire,
    /// Renew the held or pending lease (`renew`).
    Renew,
    /// The held lease has expired on the server (no write of it was answered
    /// for a whole TTL): stop minting on it and count it lost, then acquire.
    Expired,
    /// Hand the lease back (`release`, without `WAIT`).
    Release,
}

impl Next {
    /// Every write, in the order above.
    ///
    /// ```
    /// assert_eq!(emq_id::Next::ALL[3], emq_id::Next::Release);
    /// ```
    pub const ALL: [Next; 4] = [Next::Acquire, Next::Renew, Next::Expired, Next::Release];

    /// The write's stable lowercase name.
    ///
    /// ```
    /// assert_eq!(emq_id::Next::Expired.name(), "expired");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Next::Acquire => "acquire",
            Next::Renew => "renew",
            Next::Expired => "expired",
            Next::Release => "release",
        }
    }
}

/// What a holder does with a write's outcome ([`Keeper::settle`]).
///
/// ```
/// assert_eq!(emq_id::Action::ALL.len(), 11);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Action {
    /// The lease taken, or the pending lease renewed, counts: tell its minter
    /// the renewal (a pending lease) and mint on it.
    Publish,
    /// The held lease's renewal counts: tell its minter (the fence and the
    /// mark move).
    Renewed,
    /// The acquire ran but no replica acknowledged it: keep the lease as
    /// pending, minting nothing on it.
    Pend,
    /// A renewal ran but was not acknowledged: nothing moves; the lease is
    /// kept (a held one stays published: its fence decides).
    Wait,
    /// The lease is gone: stop its minter and stop minting on it (a held
    /// one counts as lost), then acquire at once.
    Lose,
    /// `ASK`: send the same write to the node [`redirect`] names, with
    /// `ASKING` in front, now; settle what that write comes to.
    Follow,
    /// `MOVED`: find the reserve's primary again (the node named first).
    Reroute,
    /// The write did not run, or every node is leased: the same write again,
    /// on the same connection.
    Retry,
    /// A fault: drop the connection, then write again.
    Reconnect,
    /// The first acquire gives up: the caller gets the refusal — the core's
    /// ([`Keeper::refusal`]), `WAIT`'s (a taken lease released first), or
    /// the holder's own fault. While releasing: the release did not run
    /// (the lease is left to its TTL), and the holder reports why.
    GiveUp,
    /// The release ran: the lease is handed back (the script's answer says
    /// whether it was still the owner's).
    Released,
}

impl Action {
    /// Every action, in the order above.
    ///
    /// ```
    /// assert_eq!(emq_id::Action::ALL[10], emq_id::Action::Released);
    /// ```
    pub const ALL: [Action; 11] = [
        Action::Publish,
        Action::Renewed,
        Action::Pend,
        Action::Wait,
        Action::Lose,
        Action::Follow,
        Action::Reroute,
        Action::Retry,
        Action::Reconnect,
        Action::GiveUp,
        Action::Released,
    ];

    /// The action's stable lowercase name.
    ///
    /// ```
    /// assert_eq!(emq_id::Action::GiveUp.name(), "give_up");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Action::Publish => "publish",
            Action::Renewed => "renewed",
            Action::Pend => "pend",
            Action::Wait => "wait",
            Action::Lose => "lose",
            Action::Follow => "follow",
            Action::Reroute => "reroute",
            Action::Retry => "retry",
            Action::Reconnect => "reconnect",
            Action::GiveUp => "give_up",
            Action::Released => "released",
        }
    }
}

/// What to do, and how long after it the next write is due (ms).
///
/// ```
/// use emq_id::{Action, Keeper, LeaseTerms, Outcome};
/// let mut keeper = Keeper::starting(LeaseTerms::DEFAULT, 0);
/// let step = keeper.settle(Outcome::Counted, 0, 3);
/// assert_eq!((step.action, step.after_ms), (Action::Publish, 10_000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// What to do with the lease.
    pub action: Action,
    /// When the next write is due, ms from now: a third of the TTL after a
    /// write that counted, the retry delay after one that did not, `0` for at
    /// once (a lost lease, an `ASK`); `0` when giving up (no next write).
    pub after_ms: u64,
}

impl LeaseTerms {
    /// How often a held lease is renewed: every third of the TTL, which
    /// leaves two more tries before the fence of the default margin.
    ///
    /// ```
    /// assert_eq!(emq_id::LeaseTerms::DEFAULT.renew_every_ms(), 10_000);
    /// assert_eq!(emq_id::LeaseTerms::new(3, 1).unwrap().renew_every_ms(), 1);
    /// ```
    pub const fn renew_every_ms(&self) -> u64 {
        let third = self.ttl_ms / 3;
        if third == 0 {
            1
        } else {
            third
        }
    }

    /// How soon a write that did not count (unacknowledged, not run, a
    /// fault, every node leased) is tried again: a twentieth of the TTL,
    /// within 10 to 250 ms. Soon against the TTL, so a holder is without a
    /// lease little longer than Valkey itself takes (a failover, a replica
    /// coming back); never a busy loop.
    ///
    /// ```
    /// assert_eq!(emq_id::LeaseTerms::DEFAULT.retry_ms(), 250);
    /// assert_eq!(emq_id::LeaseTerms::new(2_000, 333).unwrap().retry_ms(), 100);
    /// assert_eq!(emq_id::LeaseTerms::new(3, 1).unwrap().retry_ms(), 10);
    /// ```
    pub const fn retry_ms(&self) -> u64 {
        let twentieth = self.ttl_ms / 20;
        if twentieth < 10 {
            10
        } else if twentieth > 250 {
            250
        } else {
            twentieth
        }
    }
}

/// A holder's lease, as far as deciding goes: its terms, its phase, when its
/// last answered write was sent, and since when the first acquire has tried. All
/// times are monotonic ms (any origin, never stepped), the clock the fence
/// uses. Not the lease itself: the holder keeps the token and the minter.
///
/// ```
/// use emq_id::{Action, Keeper, LeaseTerms, Next, Outcome, Phase};
/// let terms = LeaseTerms::new(3_000, 500).unwrap();
/// let mut keeper = Keeper::starting(terms, 0);
/// assert_eq!(keeper.next(0), Next::Acquire);
/// // The cluster is not up yet: the acquire is tried again within the TTL.
/// assert_eq!(keeper.settle(Outcome::NotRun, 0, 0).action, Action::Retry);
/// let step = keeper.settle(Outcome::Counted, 150, 160);
/// assert_eq!((step.action, step.after_ms, keeper.phase()), (Action::Publish, 1_000, Phase::Held));
/// assert_eq!(keeper.next(1_160), Next::Renew);
/// // No renewal answered for a whole TTL: the lease has expired on the server.
/// assert_eq!(keeper.next(3_150), Next::Expired);
/// assert_eq!(keeper.phase(), Phase::Unleased);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keeper {
    terms: LeaseTerms,
    phase: Phase,
    /// When the lease's last write the server answered was sent.
    answered_at: u64,
    /// When the first acquire began (meaningful while starting).
    since: u64,
    /// The last write was redirected by `ASK`: the one it is followed with
    /// may not be redirected again.
    asked: bool,
    /// Releases sent that were redirected or did not run.
    release_tries: u8,
}

/// How many times a release is sent that `MOVED` redirected or the server
/// did not run: after a failover or a resharding the holder's connection may
/// be to a node that no longer serves the reserve, or the cluster settling.
const RELEASE_TRIES: u8 = 3;

impl Keeper {
    /// A holder's keeper of leases on `terms`, before its first acquire,
    /// begun at monotonic `now`.
    ///
    /// ```
    /// let keeper = emq_id::Keeper::starting(emq_id::LeaseTerms::DEFAULT, emq_id::monotonic_ms());
    /// assert_eq!(keeper.phase(), emq_id::Phase::Starting);
    /// ```
    pub const fn starting(terms: LeaseTerms, now: u64) -> Keeper {
        Keeper { terms, phase: Phase::Starting, answered_at: 0, since: now, asked: false, release_tries: 0 }
    }

    /// The terms its leases are kept on.
    ///
    /// ```
    /// let terms = emq_id::LeaseTerms::new(3_000, 500).unwrap();
    /// assert_eq!(emq_id::Keeper::starting(terms, 0).terms(), terms);
    /// ```
    pub const fn terms(&self) -> LeaseTerms {
        self.terms
    }

    /// Where the holder is.
    ///
    /// ```
    /// use emq_id::{Keeper, LeaseTerms, Outcome, Phase};
    /// let mut keeper = Keeper::starting(LeaseTerms::DEFAULT, 0);
    /// keeper.settle(Outcome::Counted, 0, 1);
    /// assert_eq!(keeper.phase(), Phase::Held);
    /// ```
    pub const fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the write about to be sent follows an `ASK` (it goes with
    /// `ASKING` in front, and its error replies are read with `asked`).
    ///
    /// ```
    /// use emq_id::{Keeper, LeaseTerms, Outcome};
    /// let mut keeper = Keeper::starting(LeaseTerms::DEFAULT, 0);
    /// keeper.settle(Outcome::Ask, 0, 1);
    /// assert!(keeper.asked());
    /// ```
    pub const fn asked(&self) -> bool {
        self.asked
    }

    /// The write due at monotonic `now`. A held lease none of whose writes
    /// the server answered for a whole TTL has expired there, whatever the
    /// connection says: the holder stops minting on it ([`Next::Expired`]),
    /// and the keeper is unleased.
    ///
    /// ```
    /// use emq_id::{Keeper, LeaseTerms, Next};
    /// let mut keeper = Keeper::starting(LeaseTerms::DEFAULT, 0);
    /// assert_eq!(keeper.next(0), Next::Acquire);
    /// ```
    pub fn next(&mut self, now: u64) -> Next {
        match self.phase {
            Phase::Held if now >= self.answered_at.saturating_add(self.terms.ttl_ms) => {
                self.phase = Phase::Unleased;
                self.asked = false;
                Next::Expired
            }
            Phase::Held | Phase::Pending => Next::Renew,
            Phase::Starting | Phase::Unleased => Next::Acquire,
            Phase::Releasing => Next::Release,
        }
    }

    /// Begins handing the held or pending lease back: the next write is the
    /// release, which [`settle`](Self::settle) follows through an `ASK`, sends
    /// again after `MOVED` or a refusal that did not run (a few tries), and
    /// ends with [`Action::Released`] or [`Action::GiveUp`].
    ///
    /// ```
    /// use emq_id::{Action, Keeper, LeaseTerms, Next, Outcome};
    /// let mut keeper = Keeper::starting(LeaseTerms::DEFAULT, 0);
    /// keeper.settle(Outcome::Counted, 0, 1);
    /// keeper.release();
    /// assert_eq!(keeper.next(2), Next::Release);
    /// // The reserve moved: the release goes where it went, then runs there.
    /// assert_eq!(keeper.settle(Outcome::Moved, 2, 3).action, Action::Reroute);
    /// assert_eq!(keeper.settle(Outcome::Counted, 3, 4).action, Action::Released);
    /// ```
    pub fn release(&mut self) {
        self.phase = Phase::Releasing;
        self.asked = false;
        self.release_tries = 0;
    }

    /// Settles a write sent at monotonic `sent` that came to `outcome`, read
    /// at monotonic `now`: what to do with the lease, and when to write next.
    /// After a [`Action::Follow`], `sent` may be the first send's time or the
    /// followed write's: never later than the send of the write that ran.
    ///
    /// While starting, a write that did not run (`MOVED`, `TRYAGAIN`,
    /// `CLUSTERDOWN`…) is tried again for up to a TTL from the first try — a
    /// state lasting longer than a lease lives is not a blip — and then the
    /// first acquire gives up with [`Keeper::refusal`]; every node leased, an
    /// acquire no replica acknowledged and a fault give up at once.
    ///
    /// ```
    /// use emq_id::{Action, Keeper, LeaseTerms, Outcome};
    /// let mut keeper = Keeper::starting(LeaseTerms::new(3_000, 500).unwrap(), 0);
    /// keeper.settle(Outcome::Counted, 0, 1);
    /// // A renewal answered but not acknowledged: nothing moves, tried again soon.
    /// let step = keeper.settle(Outcome::Unacknowledged, 1_000, 1_005);
    /// assert_eq!((step.action, step.after_ms), (Action::Wait, 150));
    /// ```
    pub fn settle(&mut self, outcome: Outcome, sent: u64, now: u64) -> Step {
        let (every, retry) = (self.terms.renew_every_ms(), self.terms.retry_ms());
        let patient = now < self.since.saturating_add(self.terms.ttl_ms);
        let step = |action, after_ms| Step { action, after_ms };
        let followed = core::mem::replace(&mut self.asked, false);
        match (self.phase, outcome) {
            (_, Outcome::Ask) if !followed => {
                self.asked = true;
                step(Action::Follow, 0)
            }
            (Phase::Releasing, Outcome::Counted | Outcome::Unacknowledged | Outcome::Gone) => {
                self.phase = Phase::Unleased;
                step(Action::Released, 0)
            }
            (Phase::Releasing, Outcome::Moved | Outcome::NotRun) if self.release_tries + 1 < RELEASE_TRIES => {
                self.release_tries += 1;
                if outcome == Outcome::Moved {
                    step(Action::Reroute, 0)
                } else {
                    step(Action::Retry, retry)
                }
            }
            (Phase::Releasing, _) => {
                self.phase = Phase::Unleased;
                step(Action::GiveUp, 0)
            }
            (Phase::Starting | Phase::Unleased | Phase::Pending, Outcome::Counted) => {
                self.phase = Phase::Held;
                self.answered_at = sent;
                step(Action::Publish, every)
            }
            (Phase::Held, Outcome::Counted) => {
                self.answered_at = sent;
                step(Action::Renewed, every)
            }
            (Phase::Starting, Outcome::Unacknowledged) => {
                self.phase = Phase::Unleased;
                step(Action::GiveUp, 0)
            }
            (Phase::Unleased, Outcome::Unacknowledged) => {
                self.phase = Phase::Pending;
                step(Action::Pend, retry)
            }
            (Phase::Pending, Outcome::Unacknowledged) => step(Action::Wait, retry),
            (Phase::Held, Outcome::Unacknowledged) => {
                // Still this holder's on the primary: kept, fenced until acknowledged.
                self.answered_at = sent;
                step(Action::Wait, retry)
            }
            (Phase::Held | Phase::Pending, Outcome::Gone) => {
                self.phase = Phase::Unleased;
                step(Action::Lose, 0)
            }
            (Phase::Starting, Outcome::Moved | Outcome::NotRun) if patient => {
                step(if outcome == Outcome::Moved { Action::Reroute } else { Action::Retry }, retry)
            }
            (Phase::Starting, _) => {
                self.phase = Phase::Unleased;
                step(Action::GiveUp, 0)
            }
            (_, Outcome::Moved) => step(Action::Reroute, retry),
            (_, Outcome::NotRun) | (Phase::Unleased, Outcome::Leased) => step(Action::Retry, retry),
            // A fault, a second `ASK`, or a reply the write cannot give
            // (`gone` to an acquire, `leased` to a renewal).
            _ => step(Action::Reconnect, retry),
        }
    }

    /// The first acquire's refusal when it gives up on `outcome`: every node
    /// leased, or — for a write that did not run for a whole TTL — that the
    /// reserve was unavailable (the holder adds the server's reply, which
    /// names the state). `None` for the outcomes whose refusal is another's:
    /// `WAIT`'s ([`parse_wait`](crate::parse_wait)) or the holder's fault.
    ///
    /// ```
    /// use emq_id::{Keeper, Outcome, Gate};
    /// assert_eq!(Keeper::refusal(Outcome::NotRun).unwrap().gate(), Gate::Node);
    /// assert!(Keeper::refusal(Outcome::Fault).is_none());
    /// ```
    pub fn refusal(outcome: Outcome) -> Option<Error> {
        match outcome {
            Outcome::Leased => parse_acquire_error(crate::lease::EVERY_NODE_LEASED),
            Outcome::NotRun | Outcome::Moved => Some(Error::from_gate(
                Gate::Node,
                "the reserve did not run the acquire for a whole TTL (the cluster down, resharding, loading or \
                 failing over): no node is taken",
            )),
            _ => None,
        }
    }
}
