//! Minting: the pure step, and a minter handle (the ABI's one allocation).

use crate::status::{boxed, branded_status, counted, guard, guard_value, non_null, unbox};

/// An opaque minter for one node; thread-safe (a compare-and-swap per mint).
/// Create with `emq_minter_new`, release with `emq_minter_free`.
pub struct Minter(emq_id::Minter);

/// The contract's pure mint step: from `state` and a clock reading (Unix ms),
/// writes the next state and the snowflake for `node`. `BRANDED_ERR_RANGE`
/// for a node above `EMQ_MAX_NODE` or a time field past 41 bits; then nothing is written.
///
/// # Safety
/// `state_out` and `snowflake_out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn emq_mint_step(
    state: u64,
    node: u16,
    now_ms: i64,
    state_out: *mut u64,
    snowflake_out: *mut u64,
) -> branded_status {
    guard(|| {
        let (next, snowflake) = emq_id::step(state, node, now_ms)?;
        non_null(state_out)?;
        non_null(snowflake_out)?;
        // SAFETY: both non-NULL and writable by the caller's promise.
        unsafe {
            state_out.write_unaligned(next);
            snowflake_out.write_unaligned(snowflake);
        }
        Ok(())
    })
}

/// Creates a minter for `node` (0..=`EMQ_MAX_NODE`, else `BRANDED_ERR_RANGE`) and writes
/// it to `minter_out`. Free it with `emq_minter_free`.
///
/// # Safety
/// `minter_out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn emq_minter_new(node: u16, minter_out: *mut *mut Minter) -> branded_status {
    guard(|| {
        let minter = emq_id::Minter::new(node)?;
        // SAFETY: the caller's promise for `minter_out`.
        unsafe { boxed(minter_out, Minter(minter)) }
    })
}

/// Releases a minter. NULL is ignored.
///
/// # Safety
/// `minter` must come from `emq_minter_new` and not be used or freed again.
#[no_mangle]
pub unsafe extern "C" fn emq_minter_free(minter: *mut Minter) {
    // SAFETY: from emq_minter_new and freed once, by the caller's promise.
    unsafe { unbox(minter) }
}

/// Mints the next snowflake with the system clock.
///
/// # Safety
/// `minter` must be a live handle; `snowflake_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_minter_next(minter: *const Minter, snowflake_out: *mut u64) -> branded_status {
    guard(|| {
        // SAFETY: a live handle by the caller's promise.
        let minter = unsafe { &*non_null(minter)? };
        let s = minter.0.next()?;
        non_null(snowflake_out)?;
        // SAFETY: non-NULL and writable.
        unsafe { snowflake_out.write_unaligned(s) };
        Ok(())
    })
}

/// Mints the next snowflake with a given clock reading (Unix ms): the pure
/// step applied atomically. A refused step (`BRANDED_ERR_RANGE`) leaves the
/// minter's state unchanged.
///
/// # Safety
/// `minter` must be a live handle; `snowflake_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_minter_next_at(
    minter: *const Minter,
    now_ms: i64,
    snowflake_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: a live handle by the caller's promise.
        let minter = unsafe { &*non_null(minter)? };
        let s = minter.0.next_at(now_ms)?;
        non_null(snowflake_out)?;
        // SAFETY: non-NULL and writable.
        unsafe { snowflake_out.write_unaligned(s) };
        Ok(())
    })
}

/// [`emq_minter_next_at`] returning the snowflake itself, or the negated
/// status; pass `now_ms = INT64_MIN` to read the system clock instead. For
/// hosts where out-parameters are costly (cgo).
///
/// # Safety
/// `minter` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn emq_minter_next_i64(minter: *const Minter, now_ms: i64) -> i64 {
    guard_value(|| {
        // SAFETY: a live handle by the caller's promise.
        let minter = unsafe { &*non_null(minter)? };
        let s = if now_ms == i64::MIN { minter.0.next()? } else { minter.0.next_at(now_ms)? };
        Ok(s as i64) // below 2^63 by construction
    })
}

/// Mints `count` snowflakes with one clock reading into `out` (for hosts whose
/// per-call cost dominates). Stops at the first refused step and returns its
/// status; `count_out` says how many were written.
///
/// # Safety
/// `minter` must be a live handle; `out` writable for `count` values; `count_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_minter_next_many(
    minter: *const Minter,
    out: *mut u64,
    count: usize,
    count_out: *mut usize,
) -> branded_status {
    guard(|| {
        // SAFETY: a live handle by the caller's promise.
        let minter = unsafe { &*non_null(minter)? };
        let mint = |done: &mut usize| {
            // SAFETY: `out` is writable for `count` values by the caller's promise.
            let out = unsafe { std::slice::from_raw_parts_mut(non_null(out)? as *mut u64, count) };
            let now = emq_id::now_ms();
            for id in out {
                *id = minter.0.next_at(now)?;
                *done += 1;
            }
            Ok(())
        };
        // SAFETY: `count_out` is writable by the caller's promise.
        unsafe { counted(count, count_out, mint) }
    })
}
