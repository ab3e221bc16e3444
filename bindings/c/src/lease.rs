//! Node leases on Valkey (`emq-lease/3`, SPEC.md §5.2): the core's scripts,
//! keys, reply parsing and leased minter, for a host that runs the scripts
//! with its own Valkey client (crates/emq-lease is the reference runner).
//!
//! The scripts are read by index, as the gates are (`emq_gate_count`,
//! `emq_gate_name`): `emq_lease_script_count()` of them, in the core's order
//! (acquire, renew, release), each field a static text with no terminator and
//! its length, NULL past the end. One answer per function keeps them free of
//! out-pointers to pointers, and a host that looks a script up by its name
//! never depends on the order.
//!
//! The leased minter is the ABI's second allocation (after `emq_minter`):
//! `emq_leased_minter_start` creates it, `emq_leased_minter_free` releases it.

use crate::status::{boxed, branded_status, bytes, guard, guard_value, non_null, put, static_text, unbox};

/// A minter on a leased node (the core's `LeasedMinter`): it starts after the
/// node's previous mark, never mints past the mark it keeps in Valkey, and
/// refuses with `EMQ_ERR_NODE` once its fence closes. Thread-safe: a renewer
/// thread calls `emq_leased_minter_renewed` while others mint. Create with
/// `emq_leased_minter_start`, release with `emq_leased_minter_free`.
pub struct emq_leased_minter(emq_id::LeasedMinter);

/// How many scripts the protocol has: `emq_lease_script_*` take an index below this.
///
/// # Safety
/// None needed: no arguments.
#[no_mangle]
pub extern "C" fn emq_lease_script_count() -> usize {
    emq_id::SCRIPTS.len()
}

/// The name of script `index` (`acquire`, `renew`, `release`): a static text
/// with no terminator whose length goes to `len_out` (when non-NULL), or NULL
/// when `index` is not below `emq_lease_script_count()`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_script_name(index: usize, len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(emq_id::SCRIPTS.get(index).map(|s| s.name), len_out) }
}

/// The Lua source of script `index`, byte for byte what every runtime sends
/// with `EVAL` (or loads with `SCRIPT LOAD` for `EVALSHA`); as `emq_lease_script_name`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_script_text(index: usize, len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(emq_id::SCRIPTS.get(index).map(|s| s.text), len_out) }
}

/// What `KEYS[key + 1]` of script `index` holds, in words (`"the lease key
/// {emq}:leases"`), or NULL past its last key: a host counts the script's
/// keys (`EVAL`'s `numkeys`) by walking `key` from 0. As `emq_lease_script_name`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_script_key(index: usize, key: usize, len_out: *mut usize) -> *const u8 {
    let text = emq_id::SCRIPTS.get(index).and_then(|s| s.keys.get(key)).copied();
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(text, len_out) }
}

/// What `ARGV[arg + 1]` of script `index` holds, in words (`"ttl ms"`), or
/// NULL past its last argument. As `emq_lease_script_key`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_script_arg(index: usize, arg: usize, len_out: *mut usize) -> *const u8 {
    let text = emq_id::SCRIPTS.get(index).and_then(|s| s.args.get(arg)).copied();
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(text, len_out) }
}

/// The version of the lease protocol these scripts implement (`emq-lease/3`),
/// as `emq_lease_script_name` answers a text; never NULL.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_protocol(len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(Some(emq_id::LEASE_PROTOCOL), len_out) }
}

/// The reserve's one lease key, `{emq}:leases` (`KEYS[1]` of every script):
/// a hash of each node's token, end and mark, as `emq_lease_script_name`
/// answers a text; never NULL.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_key(len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(Some(emq_id::LEASE_KEY), len_out) }
}

/// Reads the acquire script's reply `{node, previous}` (the two integers of
/// its array): writes the node taken and the node's mark before this
/// acquire (unix ms; -1 when the node was never leased). `BRANDED_ERR_RANGE`
/// for anything the script cannot answer.
///
/// # Safety
/// `node_out` and `previous_mark_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_parse_acquire(
    node: i64,
    previous: i64,
    node_out: *mut u16,
    previous_mark_out: *mut i64,
) -> branded_status {
    guard(|| {
        let acquired = emq_id::parse_acquire(node, previous)?;
        non_null(node_out)?;
        non_null(previous_mark_out)?;
        // SAFETY: both non-NULL and writable by the caller's promise.
        unsafe {
            node_out.write_unaligned(acquired.node);
            // A mark is a time of the contract (below 2^63): it fits.
            previous_mark_out.write_unaligned(acquired.previous_mark.map_or(-1, |m| m as i64));
        }
        Ok(())
    })
}

/// Reads an error reply of the acquire script (its text, with or without
/// Valkey's `ERR ` prefix): `EMQ_ERR_NODE` when it is the script's refusal,
/// every node leased (the remedy is capacity, or fewer minters), and
/// `EMQ_ERR_VALKEY` for any other error, which is not the protocol's but the
/// server's or the connection's (`NOSCRIPT`, `MOVED`, …) for the host to
/// handle. Never `BRANDED_OK`: every error reply is one or the other (or
/// `EMQ_ERR_NULL` for a NULL `text` with a length).
///
/// # Safety
/// `text` readable for `len` bytes (NULL only with `len` 0).
#[no_mangle]
pub unsafe extern "C" fn emq_parse_acquire_error(text: *const u8, len: usize) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes.
        let text = unsafe { bytes(text, len)? };
        // Text that is not UTF-8 is not the script's refusal.
        let refusal = std::str::from_utf8(text).ok().and_then(emq_id::parse_acquire_error);
        Err(refusal.map_or(branded_status::EMQ_ERR_VALKEY, |e| e.into()))
    })
}

/// Reads the reply of the renew or release script: `BRANDED_OK` for `1`,
/// `EMQ_ERR_NODE` for `0` (the lease is gone or another's: stop minting on
/// it, `emq_leased_minter_stop`), `BRANDED_ERR_RANGE` for any other integer.
///
/// # Safety
/// None needed.
#[no_mangle]
pub extern "C" fn emq_parse_renewal(reply: i64) -> branded_status {
    guard(|| Ok(emq_id::parse_renewal(reply)?))
}

/// Reads the reply of `WAIT replicas timeout` sent after a lease write (the
/// acquire or renew script) on the same connection: `BRANDED_OK` when at
/// least `replicas` replicas acknowledged it, `EMQ_ERR_NODE` for fewer (an
/// unacknowledged acquire mints nothing; an unacknowledged renewal is not
/// given to `emq_leased_minter_renewed`), `BRANDED_ERR_RANGE` for a negative
/// reply. `EMQ_LEASE_REPLICAS` is the default `replicas`.
///
/// # Safety
/// None needed.
#[no_mangle]
pub extern "C" fn emq_parse_wait(acknowledged: i64, replicas: u32) -> branded_status {
    guard(|| Ok(emq_id::parse_wait(acknowledged, replicas)?))
}

/// The timeout in ms to give `WAIT` after a lease write under the terms
/// `ttl_ms` and `margin_ms`, to `wait_ms_out`; `BRANDED_ERR_RANGE` for terms
/// `emq_lease_terms_check` refuses.
///
/// # Safety
/// `wait_ms_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_wait_ms(ttl_ms: u64, margin_ms: u64, wait_ms_out: *mut u64) -> branded_status {
    // SAFETY: the caller's promise for `wait_ms_out`.
    unsafe { of_terms(ttl_ms, margin_ms, emq_id::LeaseTerms::wait_ms, wait_ms_out) }
}

/// Writes what `of` says of the terms `ttl_ms` and `margin_ms` (a number of
/// ms) to `ms_out`, or `BRANDED_ERR_RANGE` for terms `emq_lease_terms_check` refuses.
///
/// # Safety
/// `ms_out` NULL or writable.
pub(crate) unsafe fn of_terms(
    ttl_ms: u64,
    margin_ms: u64,
    of: fn(&emq_id::LeaseTerms) -> u64,
    ms_out: *mut u64,
) -> branded_status {
    guard(|| {
        let terms = emq_id::LeaseTerms::new(ttl_ms, margin_ms)?;
        // SAFETY: the caller's promise for `ms_out`.
        unsafe { put(ms_out, of(&terms)) }
    })
}

/// `BRANDED_OK` when a lease of `ttl_ms` fenced `margin_ms` early is valid
/// terms (a TTL of 1 ms to a day, a margin below it), else
/// `BRANDED_ERR_RANGE`: check before running the acquire script, so bad
/// terms never take a node. The defaults are `EMQ_LEASE_TTL_MS` and `EMQ_LEASE_MARGIN_MS`.
///
/// # Safety
/// None needed.
#[no_mangle]
pub extern "C" fn emq_lease_terms_check(ttl_ms: u64, margin_ms: u64) -> branded_status {
    guard(|| Ok(emq_id::LeaseTerms::new(ttl_ms, margin_ms).map(drop)?))
}

/// Milliseconds on this process's monotonic clock (any origin, never
/// stepped): the clock `emq_leased_minter_next` fences with. A host that
/// mints with `emq_leased_minter_next` gives its `sent_mono_ms` on this
/// clock; one that uses `_next_at` may use any monotonic clock of its own
/// (`CLOCK_MONOTONIC`), the same for every call on a minter.
///
/// # Safety
/// None needed: no arguments.
#[no_mangle]
pub extern "C" fn emq_monotonic_ms() -> u64 {
    emq_id::monotonic_ms()
}

/// Starts the minter of a lease just acquired: `node` and `previous_mark`
/// (-1: never leased) as `emq_parse_acquire` wrote them, `now_ms` the unix ms
/// sent as the acquire script's `now`, `sent_mono_ms` when the acquire was
/// sent (monotonic), and the lease's terms. It mints from `max(now,
/// previous mark + 1)` on, and until `sent + ttl − margin` (monotonic) unless
/// renewed. `BRANDED_ERR_RANGE` for a node, mark or terms the protocol does
/// not give (see `emq_parse_acquire`, `emq_lease_terms_check`) or a mark past
/// the time limit. Writes the handle to `minter_out`; free it with
/// `emq_leased_minter_free`.
///
/// # Safety
/// `minter_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_start(
    node: u16,
    previous_mark: i64,
    now_ms: i64,
    sent_mono_ms: u64,
    ttl_ms: u64,
    margin_ms: u64,
    minter_out: *mut *mut emq_leased_minter,
) -> branded_status {
    guard(|| {
        let acquired = emq_id::parse_acquire(i64::from(node), previous_mark)?;
        let terms = emq_id::LeaseTerms::new(ttl_ms, margin_ms)?;
        let minter = emq_id::LeasedMinter::start(acquired, now_ms, sent_mono_ms, terms)?;
        // SAFETY: the caller's promise for `minter_out`.
        unsafe { boxed(minter_out, emq_leased_minter(minter)) }
    })
}

/// Releases a leased minter. NULL is ignored. Release the lease first (the
/// release script takes `emq_leased_minter_high_water`).
///
/// # Safety
/// `minter` must come from `emq_leased_minter_start`, and no other thread
/// may use it during or after this call.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_free(minter: *mut emq_leased_minter) {
    // SAFETY: from emq_leased_minter_start and freed once, by the caller's promise.
    unsafe { unbox(minter) }
}

/// The live handle behind `minter`, or `EMQ_ERR_NULL`.
///
/// # Safety
/// `minter` NULL or a live handle.
unsafe fn live<'a>(minter: *const emq_leased_minter) -> Result<&'a emq_id::LeasedMinter, branded_status> {
    // SAFETY: non-NULL, and a live handle by the caller's promise.
    Ok(unsafe { &(*non_null(minter)?).0 })
}

/// The leased node, to `node_out`.
///
/// # Safety
/// `minter` a live handle; `node_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_node(
    minter: *const emq_leased_minter,
    node_out: *mut u16,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promises for `minter` and `node_out`.
        unsafe { put(node_out, live(minter)?.node()) }
    })
}

/// Mints with the system clock and `emq_monotonic_ms()`. `EMQ_ERR_NODE` once
/// the fence has closed (not renewed in time, lost, or stopped) or while the
/// next id would pass the stored mark (until a renewal raises it);
/// `BRANDED_ERR_RANGE` past the time field. A refusal leaves the state as it was.
///
/// # Safety
/// `minter` a live handle; `snowflake_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_next(
    minter: *const emq_leased_minter,
    snowflake_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `minter`.
        let s = unsafe { live(minter)? }.next()?;
        // SAFETY: the caller's promise for `snowflake_out`.
        unsafe { put(snowflake_out, s) }
    })
}

/// Mints with a wall-clock reading `now_ms` (unix ms, for the id) taken at
/// `mono_ms` on the host's monotonic clock (for the fence: the clock
/// `sent_mono_ms` was read on). Refusals as `emq_leased_minter_next`.
///
/// # Safety
/// `minter` a live handle; `snowflake_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_next_at(
    minter: *const emq_leased_minter,
    now_ms: i64,
    mono_ms: u64,
    snowflake_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `minter`.
        let s = unsafe { live(minter)? }.next_at(now_ms, mono_ms)?;
        // SAFETY: the caller's promise for `snowflake_out`.
        unsafe { put(snowflake_out, s) }
    })
}

/// [`emq_leased_minter_next_at`] returning the snowflake itself, or the
/// negated status: for hosts where out-parameters are costly (cgo).
///
/// # Safety
/// `minter` a live handle.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_next_i64(
    minter: *const emq_leased_minter,
    now_ms: i64,
    mono_ms: u64,
) -> i64 {
    guard_value(|| {
        // SAFETY: the caller's promise for `minter`.
        let s = unsafe { live(minter)? }.next_at(now_ms, mono_ms)?;
        Ok(s as i64) // below 2^63 by construction
    })
}

/// The mark to send with the renew script at `now_ms` (unix ms), to
/// `mark_out`: the later of the clock and the last minted millisecond, plus
/// the TTL, never below the mark already stored. Give the same value to
/// `emq_leased_minter_renewed` once the renewal is accepted.
///
/// # Safety
/// `minter` a live handle; `mark_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_next_mark(
    minter: *const emq_leased_minter,
    now_ms: i64,
    mark_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promises for `minter` and `mark_out`.
        unsafe { put(mark_out, live(minter)?.next_mark(now_ms)) }
    })
}

/// Records a renewal Valkey accepted (`emq_parse_renewal` answered
/// `BRANDED_OK`): sent at monotonic `sent_mono_ms`, carrying `mark`. The
/// fence moves to `sent + ttl − margin` and the mark up to `mark` (neither
/// ever goes back).
///
/// # Safety
/// `minter` a live handle.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_renewed(
    minter: *const emq_leased_minter,
    sent_mono_ms: u64,
    mark: u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `minter`.
        unsafe { live(minter)? }.renewed(sent_mono_ms, mark);
        Ok(())
    })
}

/// Closes the fence now: a renewal answered "lost" (`EMQ_ERR_NODE`), or the
/// host is about to release the lease. Every later mint is `EMQ_ERR_NODE`.
///
/// # Safety
/// `minter` a live handle.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_stop(minter: *const emq_leased_minter) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `minter`.
        unsafe { live(minter)? }.stop();
        Ok(())
    })
}

/// The last millisecond this minter minted in (before its first id: one
/// before its start), unix ms, to `high_water_out`: what the release script
/// stores as the node's mark. Stop the minter before reading it for a release.
///
/// # Safety
/// `minter` a live handle; `high_water_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_high_water(
    minter: *const emq_leased_minter,
    high_water_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promises for `minter` and `high_water_out`.
        unsafe { put(high_water_out, live(minter)?.high_water()) }
    })
}

/// The monotonic ms from which minting is refused, to `fence_out` (0 once stopped).
///
/// # Safety
/// `minter` a live handle; `fence_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_leased_minter_fence_ms(
    minter: *const emq_leased_minter,
    fence_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promises for `minter` and `fence_out`.
        unsafe { put(fence_out, live(minter)?.fence_ms()) }
    })
}
