//! Minting under a high-water mark: a minter whose state lives in memory that
//! a restart loses (a database server's shared memory) records, somewhere
//! durable, a Unix ms no id of its node has passed — the **mark** — and keeps
//! it ahead of its clock in steps. Its ids never pass the mark; its next start
//! begins after it, however far its clock went back meanwhile. The host
//! claim's high-water mark (`NodeClaim`) and the leased minter's mark are the
//! same rule in other media.
//!
//! Three pure pieces, one per moment: [`state_after`] (the start), the bounded
//! step [`step_under`] / [`step_shared_under`] (each mint), and [`raise_mark`]
//! (when and how far the keeper of the mark raises it).

use core::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Gate, Result};
use crate::mint::step;
use crate::snowflake::{ts_since_epoch, EPOCH_MS, MAX_TS};

const SEQ_BITS: u32 = 12;

/// The last Unix ms of the contract's time: no mark passes it.
const LAST_MS: i64 = (EPOCH_MS + MAX_TS) as i64;

/// The mint state to start from after a durable mark of `mark_ms`: its next
/// step mints in the millisecond after the mark at the earliest, whatever
/// the clock says. [`Gate::Range`] when no millisecond follows the mark.
///
/// ```
/// let state = emq_id::state_after(1769526697641).unwrap();
/// // The clock is 10 s behind the mark: the first id still follows it.
/// let (_, s) = emq_id::step(state, 5, 1769526687641).unwrap();
/// assert_eq!((emq_id::unix_ms(s), emq_id::seq(s)), (1769526697642, 0));
/// assert_eq!(emq_id::state_after(i64::MAX).unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub const fn state_after(mark_ms: i64) -> Result<u64> {
    let ts = ts_since_epoch(mark_ms);
    if ts >= MAX_TS {
        return Err(Error::new(Gate::Range, "the high-water mark is at or past the 41-bit time limit"));
    }
    Ok(((ts + 1) << SEQ_BITS) - 1)
}

/// The Unix ms of a mint state's time field: the last millisecond it minted
/// in (or borrowed, in a burst). A fresh state (0) reads as the epoch.
///
/// ```
/// let (state, _) = emq_id::step(0, 5, 1769526697641).unwrap();
/// assert_eq!(emq_id::state_ms(state), 1769526697641);
/// ```
pub const fn state_ms(state: u64) -> i64 {
    (EPOCH_MS + (state >> SEQ_BITS)) as i64
}

/// The contract's [`step`], refused past a mark: `Ok(None)` when the next id
/// would fall in a millisecond after `mark_ms` (the caller has the mark
/// raised, then steps again), else what [`step`] answers, errors included.
///
/// ```
/// let mark = 1769526697641;
/// let (state, s) = emq_id::step_under(0, 5, mark, mark).unwrap().unwrap();
/// assert_eq!(emq_id::unix_ms(s), mark as u64);
/// // A clock one millisecond past the mark: refused, the state unchanged.
/// assert_eq!(emq_id::step_under(state, 5, mark + 1, mark).unwrap(), None);
/// // A burst that would borrow past the mark: refused too.
/// let full = (state | 4095, 5);
/// assert_eq!(emq_id::step_under(full.0, full.1, mark, mark).unwrap(), None);
/// ```
pub const fn step_under(state: u64, node: u16, now_ms: i64, mark_ms: i64) -> Result<Option<(u64, u64)>> {
    match step(state, node, now_ms) {
        Ok((next, _)) if state_ms(next) > mark_ms => Ok(None),
        Ok(stepped) => Ok(Some(stepped)),
        Err(e) => Err(e),
    }
}

/// [`step_under`] applied to a shared state with a compare-and-swap loop, as
/// [`step_shared`](crate::step_shared) applies [`step`]: `Ok(None)`, the
/// state unchanged, when the next id would pass `mark_ms`.
///
/// ```
/// use core::sync::atomic::AtomicU64;
/// let mark = 1769526697641;
/// let shared = AtomicU64::new(emq_id::state_after(mark - 1).unwrap());
/// let s = emq_id::step_shared_under(&shared, 3, mark - 5_000, mark).unwrap().unwrap();
/// assert_eq!(emq_id::unix_ms(s), mark as u64);
/// assert_eq!(emq_id::step_shared_under(&shared, 3, mark + 1, mark).unwrap(), None);
/// ```
#[inline]
pub fn step_shared_under(state: &AtomicU64, node: u16, now_ms: i64, mark_ms: i64) -> Result<Option<u64>> {
    let mut current = state.load(Ordering::Relaxed);
    loop {
        let Some((next, snowflake)) = step_under(current, node, now_ms, mark_ms)? else {
            return Ok(None);
        };
        match state.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Ok(Some(snowflake)),
            Err(seen) => current = seen,
        }
    }
}

/// The mark the keeper should make durable now, or `None` while `mark`
/// still leads the minter by at least half of `lead_ms`.
///
/// The minter's high water is the latest of the clock, the state's time and
/// `wanted_ms` (a millisecond a waiting mint needs); the new mark is the high
/// water plus `lead_ms`, never below `mark`, never past the contract's time.
/// Raising at half the lead keeps at least half of it ahead of every id
/// between two raises, which is the bound a replica that lags behind the
/// mark's writes is covered by.
///
/// ```
/// let now = 1769526697641;
/// // No mark yet: one lead ahead of the clock.
/// assert_eq!(emq_id::raise_mark(None, now, 0, 0, 1000), Some(now + 1000));
/// // 600 ms left: enough, nothing to write.
/// assert_eq!(emq_id::raise_mark(Some(now + 600), now, 0, 0, 1000), None);
/// // 400 ms left, or a mint that needs 700 ms ahead: raised a lead past the need.
/// assert_eq!(emq_id::raise_mark(Some(now + 400), now, 0, 0, 1000), Some(now + 1000));
/// assert_eq!(emq_id::raise_mark(Some(now + 600), now, 0, now + 700, 1000), Some(now + 1700));
/// ```
pub fn raise_mark(mark: Option<i64>, now_ms: i64, state: u64, wanted_ms: i64, lead_ms: i64) -> Option<i64> {
    let high = now_ms.max(state_ms(state)).max(wanted_ms);
    let lead = lead_ms.max(1);
    match mark {
        Some(m) if m.saturating_sub(high) >= lead / 2 && m >= high => None,
        Some(m) => Some(high.saturating_add(lead).min(LAST_MS).max(m)),
        None => Some(high.saturating_add(lead).min(LAST_MS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_769_526_697_641;

    #[test]
    fn a_restart_behind_the_clock_starts_after_the_mark() {
        let mark = NOW + 1000;
        let mut state = state_after(mark).unwrap();
        for back in [0, 10_000, 60_000] {
            let (next, s) = step(state, 1, NOW - back).unwrap();
            assert!(crate::unix_ms(s) as i64 > mark);
            state = next;
        }
    }

    #[test]
    fn no_id_passes_the_mark_in_a_burst() {
        let shared = AtomicU64::new(0);
        let mut minted = 0;
        while let Some(s) = step_shared_under(&shared, 1, NOW, NOW + 2).unwrap() {
            assert!(crate::unix_ms(s) as i64 <= NOW + 2);
            minted += 1;
        }
        assert_eq!(minted, 3 * 4096);
    }

    #[test]
    fn the_mark_never_goes_back_nor_past_the_contract() {
        // A clock far behind: the mark still leads, nothing to write.
        assert_eq!(raise_mark(Some(NOW + 400), NOW - 50_000, 0, 0, 1000), None);
        // A state borrowed ahead of the clock counts as the high water.
        let (state, _) = step(0, 1, NOW + 900).unwrap();
        assert_eq!(raise_mark(Some(NOW + 1000), NOW, state, 0, 1000), Some(NOW + 1900));
        assert_eq!(raise_mark(None, LAST_MS, 0, 0, 1000), Some(LAST_MS));
        assert_eq!(raise_mark(Some(NOW), NOW + 10, 0, 0, 0), Some(NOW + 11));
    }

    #[test]
    fn step_errors_pass_through() {
        assert_eq!(step_under(0, 1024, NOW, NOW).unwrap_err().gate(), Gate::Range);
    }
}
