//! Minting: a lock-free state machine over `state = ts << 12 | seq`.
//!
//! The state never holds node bits, so one pure [`step`] serves every
//! runtime: `state' = max(now_state, state + 1)`. A burst past 4,096 ids in
//! one millisecond borrows the next millisecond; a clock that goes back
//! continues from `state + 1`. Ids from one minter never repeat and never
//! decrease.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Gate, Result};
use crate::snowflake::{ts_since_epoch, MAX_NODE, MAX_TS, NODE_SHIFT, SEQ_BITS, TS_SHIFT};

const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// One mint of the contract's state machine, as a pure function:
/// `(state, now_ms) → (state', snowflake)` for a minter of `node`.
///
/// A clock reading before the epoch reads as the epoch. A `state'` whose time
/// field passes 41 bits, or a node above 1023, is refused with
/// [`Gate::Range`]; the caller keeps its old state then.
///
/// ```
/// // A fresh minter (state 0) on node 5 at 2026-01-27T15:11:37.641Z:
/// let (state, s) = emq_id::step(0, 5, 1769526697641).unwrap();
/// assert_eq!(emq_id::unix_ms(s), 1769526697641);
/// assert_eq!((emq_id::node(s), emq_id::seq(s)), (5, 0));
/// // The clock goes back: the minter continues from state + 1.
/// let (_, t) = emq_id::step(state, 5, 1769526697000).unwrap();
/// assert_eq!((emq_id::unix_ms(t), emq_id::seq(t)), (1769526697641, 1));
/// ```
#[inline]
pub const fn step(state: u64, node: u16, now_ms: i64) -> Result<(u64, u64)> {
    if node > MAX_NODE {
        return Err(Error::new(Gate::Range, "the node is outside 0..=1023"));
    }
    let now_ts = ts_since_epoch(now_ms);
    if now_ts > MAX_TS {
        return Err(Error::new(Gate::Range, "the clock is past the 41-bit time limit"));
    }
    let now_state = now_ts << SEQ_BITS;
    let bumped = state.saturating_add(1);
    let next = if now_state > bumped { now_state } else { bumped };
    if next >> SEQ_BITS > MAX_TS {
        return Err(Error::new(Gate::Range, "the minter has used up the 41-bit time field"));
    }
    let snowflake = (next >> SEQ_BITS) << TS_SHIFT | (node as u64) << NODE_SHIFT | (next & SEQ_MASK);
    Ok((next, snowflake))
}

/// The pure [`step`] applied to a state that lives elsewhere, with a
/// compare-and-swap loop: for hosts that keep the state in memory shared
/// between processes (PostgreSQL's shared memory), where a [`Minter`] cannot
/// live. A refused step leaves the state unchanged.
///
/// ```
/// use core::sync::atomic::AtomicU64;
/// let shared = AtomicU64::new(0);
/// let a = emq_id::step_shared(&shared, 3, 1769526697641).unwrap();
/// let b = emq_id::step_shared(&shared, 3, 1769526697641).unwrap();
/// assert_eq!(b, a + 1);
/// ```
#[inline]
pub fn step_shared(state: &AtomicU64, node: u16, now_ms: i64) -> Result<u64> {
    let mut current = state.load(Ordering::Relaxed);
    loop {
        let (next, snowflake) = step(current, node, now_ms)?;
        match state.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Ok(snowflake),
            Err(seen) => current = seen,
        }
    }
}

/// A minter for one node: thread-safe and lock-free (one compare-and-swap per
/// mint, retried when threads race).
///
/// ```
/// let minter = emq_id::Minter::new(7).unwrap();
/// let a = minter.next_at(1769526697641).unwrap();
/// let b = minter.next_at(1769526697641).unwrap();
/// assert!(b > a);
/// assert_eq!(emq_id::Minter::new(1024).unwrap_err().gate(), emq_id::Gate::Range);
/// ```
#[derive(Debug)]
pub struct Minter {
    node: u16,
    state: AtomicU64,
}

impl Minter {
    /// A fresh minter (state 0) for `node`, which must be in `0..=1023`.
    ///
    /// ```
    /// assert_eq!(emq_id::Minter::new(1023).unwrap().node(), 1023);
    /// ```
    pub const fn new(node: u16) -> Result<Minter> {
        if node > MAX_NODE {
            return Err(Error::new(Gate::Range, "the node is outside 0..=1023"));
        }
        Ok(Minter { node, state: AtomicU64::new(0) })
    }

    /// The node this minter stamps into its ids.
    ///
    /// ```
    /// let minter = emq_id::Minter::new(7).unwrap();
    /// assert_eq!(emq_id::node(minter.next_at(1769526697641).unwrap()), minter.node());
    /// ```
    pub const fn node(&self) -> u16 {
        self.node
    }

    /// The current state `ts << 12 | seq` (0 before the first mint).
    ///
    /// ```
    /// let minter = emq_id::Minter::new(7).unwrap();
    /// assert_eq!(minter.state(), 0);
    /// let s = minter.next_at(1769526697641).unwrap();
    /// assert_eq!(minter.state(), (s >> 22) << 12 | u64::from(emq_id::seq(s)));
    /// ```
    pub fn state(&self) -> u64 {
        self.state.load(Ordering::Relaxed)
    }

    /// Mints with an explicit clock reading (Unix ms): the pure [`step`]
    /// applied atomically. A refused step leaves the state unchanged.
    ///
    /// ```
    /// let minter = emq_id::Minter::new(7).unwrap();
    /// let s = minter.next_at(1769526697641).unwrap();
    /// assert_eq!((emq_id::unix_ms(s), emq_id::node(s), emq_id::seq(s)), (1769526697641, 7, 0));
    /// ```
    #[inline]
    pub fn next_at(&self, now_ms: i64) -> Result<u64> {
        step_shared(&self.state, self.node, now_ms)
    }

    /// Mints with the system clock.
    ///
    /// ```
    /// let minter = emq_id::Minter::new(7).unwrap();
    /// let (a, b) = (minter.next().unwrap(), minter.next().unwrap());
    /// assert!(b > a);
    /// ```
    #[cfg(feature = "std")]
    #[inline]
    pub fn next(&self) -> Result<u64> {
        self.next_at(crate::clock::now_ms())
    }
}

/// Parses a node number as `EMQ_NODE` spells it: a decimal in `0..=1023`
/// (surrounding spaces allowed), else [`Gate::Range`].
///
/// ```
/// assert_eq!(emq_id::parse_node("7").unwrap(), 7);
/// assert_eq!(emq_id::parse_node("1024").unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub fn parse_node(text: &str) -> Result<u16> {
    let text = text.trim();
    match text.parse::<u16>() {
        Ok(n) if n <= MAX_NODE && !text.starts_with('+') => Ok(n),
        _ => Err(Error::new(Gate::Range, "EMQ_NODE must be a decimal node number in 0..=1023")),
    }
}
