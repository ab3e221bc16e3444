//! The lease keeper's decisions (`emq-lease/3`, SPEC.md §5.2; the core's
//! `keeper` module): what a holder writes next, when, and what each write
//! came to. A host's holder is its Valkey client's I/O around them: it reads
//! a write's error reply with `emq_read_lease_error` (and the node a `MOVED`
//! or `ASK` names with `emq_parse_redirect`), asks its `emq_lease_keeper`
//! which write is due (`emq_lease_keeper_next`), and settles what each write
//! came to (`emq_lease_keeper_settle`): what to do with the lease, and when
//! to write again. A release goes through the keeper too
//! (`emq_lease_keeper_release`): the holder sends it until the keeper
//! settles `EMQ_ACTION_RELEASED` or `EMQ_ACTION_GIVE_UP`.
//!
//! The enumerations are the core's, in its order (`Outcome::ALL`,
//! `Next::ALL`, `Action::ALL`, `Phase::ALL`): a value is its index there, and
//! `emq_lease_*_name` gives its stable name. They cross into the library as
//! `int`, so any value is safe: one the enumeration lacks is
//! `BRANDED_ERR_RANGE` (or NULL, for a name).
//!
//! The keeper is the ABI's third allocation: `emq_lease_keeper_new` creates
//! it, `emq_lease_keeper_free` releases it.

use std::ffi::c_int;

use emq_id::{Action, Keeper, LeaseTerms, Next, Outcome, Phase};

use crate::lease::of_terms;
use crate::status::branded_status::{self, BRANDED_ERR_RANGE, EMQ_ERR_PANIC, EMQ_ERR_VALKEY};
use crate::status::{boxed, bytes, guard, non_null, put, static_text, unbox};

/// What one lease write came to, as `emq_read_lease_error` reads an error
/// reply and `emq_lease_outcome_of_write` any other.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum emq_lease_outcome {
    /// The script ran, the lease is the owner's, and enough replicas acknowledged it.
    EMQ_OUTCOME_COUNTED = 0,
    /// The script ran and the lease is the owner's, but `WAIT` counted too few replicas.
    EMQ_OUTCOME_UNACKNOWLEDGED = 1,
    /// A renewal or release answered `0`: the lease is gone or another's.
    EMQ_OUTCOME_GONE = 2,
    /// The acquire answered that every node is leased.
    EMQ_OUTCOME_LEASED = 3,
    /// `ASK`: the same write goes, with `ASKING` in front and its `WAIT`
    /// after, to the node `emq_parse_redirect` names, at once and on one connection.
    EMQ_OUTCOME_ASK = 4,
    /// `MOVED` or `READONLY`: the script did not write; find the reserve's primary again.
    EMQ_OUTCOME_MOVED = 5,
    /// Refused before it ran (`TRYAGAIN`, `CLUSTERDOWN`, `LOADING`,
    /// `MASTERDOWN`, `BUSY`), or its first write refused (`NOREPLICAS`,
    /// `OOM`, `MISCONF`): nothing was written; the same write again soon.
    EMQ_OUTCOME_NOT_RUN = 6,
    /// Anything else (an error the protocol does not give, a reply of the
    /// wrong shape, a dropped connection): whether the write ran is unknown.
    EMQ_OUTCOME_FAULT = 7,
}

/// The write `emq_lease_keeper_next` asks for.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum emq_lease_next {
    /// Take a node (the acquire script).
    EMQ_NEXT_ACQUIRE = 0,
    /// Renew the held or pending lease (the renew script).
    EMQ_NEXT_RENEW = 1,
    /// The held lease has expired on the server (no write of it answered for
    /// a whole TTL): stop minting on it and count it lost, then acquire.
    EMQ_NEXT_EXPIRED = 2,
    /// Hand the lease back (the release script, without `WAIT`), after
    /// `emq_lease_keeper_release`.
    EMQ_NEXT_RELEASE = 3,
}

/// What a holder does with a write's outcome (`emq_lease_keeper_settle`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum emq_lease_action {
    /// The lease taken, or the pending lease renewed, counts: tell its minter
    /// the renewal (a pending lease) and mint on it.
    EMQ_ACTION_PUBLISH = 0,
    /// The held lease's renewal counts: `emq_leased_minter_renewed`.
    EMQ_ACTION_RENEWED = 1,
    /// The acquire ran unacknowledged: keep the lease as pending, minting nothing on it.
    EMQ_ACTION_PEND = 2,
    /// A renewal ran unacknowledged: nothing moves.
    EMQ_ACTION_WAIT = 3,
    /// The lease is gone: stop its minter (a held one counts as lost), then acquire at once.
    EMQ_ACTION_LOSE = 4,
    /// `ASK`: send the same write to the node named, with `ASKING` in front,
    /// now; settle what that write comes to.
    EMQ_ACTION_FOLLOW = 5,
    /// `MOVED`: find the reserve's primary again.
    EMQ_ACTION_REROUTE = 6,
    /// The same write again, on the same connection.
    EMQ_ACTION_RETRY = 7,
    /// A fault: drop the connection, then write again.
    EMQ_ACTION_RECONNECT = 8,
    /// The first acquire gives up: `emq_lease_refusal`'s refusal, `WAIT`'s
    /// (the taken lease released first), or the host's own fault. While
    /// releasing: the release did not run (the lease is left to its TTL),
    /// and the host reports why (the server's reply, or its own fault).
    EMQ_ACTION_GIVE_UP = 9,
    /// The release ran: the lease is handed back (the script's `1` or `0`
    /// says whether it was still the owner's).
    EMQ_ACTION_RELEASED = 10,
}

/// Where a holder is with its lease.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum emq_lease_phase {
    /// The first acquire: the caller waits for a lease or a refusal.
    EMQ_PHASE_STARTING = 0,
    /// No lease: the next write is an acquire.
    EMQ_PHASE_UNLEASED = 1,
    /// A lease taken whose acquire no replica acknowledged yet: renewed, nothing minted on it.
    EMQ_PHASE_PENDING = 2,
    /// The lease minted on.
    EMQ_PHASE_HELD = 3,
    /// Handing the lease back (`emq_lease_keeper_release`): the release is
    /// sent until it runs, a few tries at most.
    EMQ_PHASE_RELEASING = 4,
}

/// Where a `MOVED` or `ASK` reply sends a write, read by `emq_parse_redirect`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct emq_redirect {
    /// Where the node's host starts in the text (an IPv6 address without its
    /// brackets); 0 with `host_len` 0 when the reply names none.
    pub host_offset: usize,
    /// The host's length; 0 when the reply names none: the host is then the
    /// one the redirected connection was opened to.
    pub host_len: usize,
    /// The slot the reply is about.
    pub slot: u16,
    /// The node's port.
    pub port: u16,
    /// 1 for `ASK` (follow once, with `ASKING`), 0 for `MOVED`.
    pub ask: c_int,
}

/// A holder's lease as far as deciding goes (the core's `Keeper`): its
/// terms, its phase, when its last answered write was sent. Not thread-safe:
/// one thread at a time (the holder's loop). Create with
/// `emq_lease_keeper_new`, release with `emq_lease_keeper_free`.
pub struct emq_lease_keeper(Keeper);

// The core's enumerations are `#[non_exhaustive]`: a kind added to the core
// and not yet here fails the test's walk of each `ALL` until it is mapped. An
// outcome is then a fault (nothing is known of the write); any other kind is
// `EMQ_ERR_PANIC` (a bug of this library), never a value the C enumeration lacks.

impl From<Outcome> for emq_lease_outcome {
    fn from(outcome: Outcome) -> emq_lease_outcome {
        use emq_lease_outcome::*;
        match outcome {
            Outcome::Counted => EMQ_OUTCOME_COUNTED,
            Outcome::Unacknowledged => EMQ_OUTCOME_UNACKNOWLEDGED,
            Outcome::Gone => EMQ_OUTCOME_GONE,
            Outcome::Leased => EMQ_OUTCOME_LEASED,
            Outcome::Ask => EMQ_OUTCOME_ASK,
            Outcome::Moved => EMQ_OUTCOME_MOVED,
            Outcome::NotRun => EMQ_OUTCOME_NOT_RUN,
            Outcome::Fault => EMQ_OUTCOME_FAULT,
            _ => EMQ_OUTCOME_FAULT,
        }
    }
}

impl TryFrom<Next> for emq_lease_next {
    type Error = branded_status;
    fn try_from(next: Next) -> Result<emq_lease_next, branded_status> {
        use emq_lease_next::*;
        Ok(match next {
            Next::Acquire => EMQ_NEXT_ACQUIRE,
            Next::Renew => EMQ_NEXT_RENEW,
            Next::Expired => EMQ_NEXT_EXPIRED,
            Next::Release => EMQ_NEXT_RELEASE,
            _ => return Err(EMQ_ERR_PANIC),
        })
    }
}

impl TryFrom<Action> for emq_lease_action {
    type Error = branded_status;
    fn try_from(action: Action) -> Result<emq_lease_action, branded_status> {
        use emq_lease_action::*;
        Ok(match action {
            Action::Publish => EMQ_ACTION_PUBLISH,
            Action::Renewed => EMQ_ACTION_RENEWED,
            Action::Pend => EMQ_ACTION_PEND,
            Action::Wait => EMQ_ACTION_WAIT,
            Action::Lose => EMQ_ACTION_LOSE,
            Action::Follow => EMQ_ACTION_FOLLOW,
            Action::Reroute => EMQ_ACTION_REROUTE,
            Action::Retry => EMQ_ACTION_RETRY,
            Action::Reconnect => EMQ_ACTION_RECONNECT,
            Action::GiveUp => EMQ_ACTION_GIVE_UP,
            Action::Released => EMQ_ACTION_RELEASED,
            _ => return Err(EMQ_ERR_PANIC),
        })
    }
}

impl TryFrom<Phase> for emq_lease_phase {
    type Error = branded_status;
    fn try_from(phase: Phase) -> Result<emq_lease_phase, branded_status> {
        use emq_lease_phase::*;
        Ok(match phase {
            Phase::Starting => EMQ_PHASE_STARTING,
            Phase::Unleased => EMQ_PHASE_UNLEASED,
            Phase::Pending => EMQ_PHASE_PENDING,
            Phase::Held => EMQ_PHASE_HELD,
            Phase::Releasing => EMQ_PHASE_RELEASING,
            _ => return Err(EMQ_ERR_PANIC),
        })
    }
}

/// The entry of `all` at index `value`, if it has one.
fn at<T: Copy>(all: &[T], value: c_int) -> Option<T> {
    usize::try_from(value).ok().and_then(|i| all.get(i).copied())
}

/// The outcome `value` names, or `BRANDED_ERR_RANGE`.
fn outcome(value: c_int) -> Result<Outcome, branded_status> {
    at(&Outcome::ALL, value).ok_or(BRANDED_ERR_RANGE)
}

/// The stable name of outcome `outcome` (`counted`, …, `not_run`, `fault`),
/// as the vector file spells it: a static text with no terminator whose
/// length goes to `len_out` (when non-NULL), or NULL for a value
/// `emq_lease_outcome` lacks.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_outcome_name(outcome: c_int, len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(at(&Outcome::ALL, outcome).map(Outcome::name), len_out) }
}

/// The stable name of write `next` (`acquire`, `renew`, `expired`,
/// `release`); as `emq_lease_outcome_name`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_next_name(next: c_int, len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(at(&Next::ALL, next).map(Next::name), len_out) }
}

/// The stable name of action `action` (`publish`, …, `give_up`,
/// `released`); as `emq_lease_outcome_name`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_action_name(action: c_int, len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(at(&Action::ALL, action).map(Action::name), len_out) }
}

/// The stable name of phase `phase` (`starting`, `unleased`, `pending`,
/// `held`, `releasing`); as `emq_lease_outcome_name`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_phase_name(phase: c_int, len_out: *mut usize) -> *const u8 {
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(at(&Phase::ALL, phase).map(Phase::name), len_out) }
}

/// Reads an error reply to a lease script (the text after `-`, as clients
/// give it) into what the write came to, to `outcome_out`. `asked` is
/// non-zero for a write sent after `ASKING` (following an `ASK`): a node that
/// redirects it again is not followed a second time, and the write is a
/// fault. Text that is not UTF-8 is no reply the protocol knows: a fault.
///
/// # Safety
/// `text` readable for `len` bytes (NULL only with `len` 0); `outcome_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_read_lease_error(
    text: *const u8,
    len: usize,
    asked: c_int,
    outcome_out: *mut emq_lease_outcome,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes.
        let text = unsafe { bytes(text, len)? };
        let read = std::str::from_utf8(text).map_or(Outcome::Fault, |t| emq_id::read_lease_error(t, asked != 0));
        // SAFETY: the caller's promise for `outcome_out`.
        unsafe { put(outcome_out, read.into()) }
    })
}

/// What a write whose script answered without an error came to: `held`
/// non-zero when the script's answer holds the lease (an acquire's reply
/// read by `emq_parse_acquire`, a renewal's `1` by `emq_parse_renewal`),
/// `acknowledged` non-zero when `emq_parse_wait` accepted its `WAIT` (or no
/// `WAIT` was wanted).
///
/// # Safety
/// None needed.
#[no_mangle]
pub extern "C" fn emq_lease_outcome_of_write(held: c_int, acknowledged: c_int) -> emq_lease_outcome {
    Outcome::of_write(held != 0, acknowledged != 0).into()
}

/// Reads a `MOVED` or `ASK` reply (`<CODE> <slot> <host>:<port>`) into the
/// node it names, to `redirect_out`, the host as a range of `text`.
/// `EMQ_ERR_VALKEY` for any other text (another error reply, or a slot or
/// port out of range): it names no node.
///
/// # Safety
/// `text` readable for `len` bytes (NULL only with `len` 0); `redirect_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_parse_redirect(
    text: *const u8,
    len: usize,
    redirect_out: *mut emq_redirect,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller promises `len` readable bytes.
        let text = unsafe { bytes(text, len)? };
        let text = std::str::from_utf8(text).map_err(|_| EMQ_ERR_VALKEY)?;
        let to = emq_id::redirect(text).ok_or(EMQ_ERR_VALKEY)?;
        // The host is a slice of `text`: its offset is the distance between their starts.
        let (host_offset, host_len) =
            to.host.map_or((0, 0), |h| (h.as_ptr() as usize - text.as_ptr() as usize, h.len()));
        let redirect = emq_redirect { host_offset, host_len, slot: to.slot, port: to.port, ask: c_int::from(to.ask) };
        // SAFETY: the caller's promise for `redirect_out`.
        unsafe { put(redirect_out, redirect) }
    })
}

/// A keeper of leases on the terms `ttl_ms` and `margin_ms`, before its
/// first acquire, begun at `since_mono_ms` on the host's monotonic clock (the
/// clock of every time it is given after: `emq_monotonic_ms`, or the host's
/// own). `BRANDED_ERR_RANGE` for terms `emq_lease_terms_check` refuses.
/// Writes the handle to `keeper_out`; free it with `emq_lease_keeper_free`.
///
/// # Safety
/// `keeper_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_keeper_new(
    ttl_ms: u64,
    margin_ms: u64,
    since_mono_ms: u64,
    keeper_out: *mut *mut emq_lease_keeper,
) -> branded_status {
    guard(|| {
        let keeper = Keeper::starting(LeaseTerms::new(ttl_ms, margin_ms)?, since_mono_ms);
        // SAFETY: the caller's promise for `keeper_out`.
        unsafe { boxed(keeper_out, emq_lease_keeper(keeper)) }
    })
}

/// Releases a keeper. NULL is ignored.
///
/// # Safety
/// `keeper` must come from `emq_lease_keeper_new`, and no other thread may
/// use it during or after this call.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_keeper_free(keeper: *mut emq_lease_keeper) {
    // SAFETY: from emq_lease_keeper_new and freed once, by the caller's promise.
    unsafe { unbox(keeper) }
}

/// The live keeper behind `keeper`, or `EMQ_ERR_NULL`.
///
/// # Safety
/// `keeper` NULL or a live handle no other thread uses during the borrow.
unsafe fn live<'a>(keeper: *mut emq_lease_keeper) -> Result<&'a mut Keeper, branded_status> {
    non_null(keeper)?;
    // SAFETY: non-NULL, and a live handle used by this thread alone by the caller's promise.
    Ok(unsafe { &mut (*keeper).0 })
}

/// The write due at `now_mono_ms`, to `next_out`. A held lease none of whose
/// writes the server answered for a whole TTL has expired there:
/// `EMQ_NEXT_EXPIRED`, and the keeper is unleased. While releasing:
/// `EMQ_NEXT_RELEASE`.
///
/// # Safety
/// `keeper` a live handle no other thread uses during the call; `next_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_keeper_next(
    keeper: *mut emq_lease_keeper,
    now_mono_ms: u64,
    next_out: *mut emq_lease_next,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `keeper`.
        let keeper = unsafe { live(keeper)? };
        non_null(next_out)?;
        let next = keeper.next(now_mono_ms).try_into()?;
        // SAFETY: the caller's promise for `next_out`.
        unsafe { put(next_out, next) }
    })
}

/// Settles a write sent at `sent_mono_ms` that came to `outcome`, read at
/// `now_mono_ms`: what to do with the lease to `action_out`, and in how many
/// ms the next write is due to `after_ms_out` (0: at once, or no next write
/// when giving up). While starting, a write that did not run is tried again
/// for up to a TTL from the first try, then the first acquire gives up.
/// While releasing: `EMQ_ACTION_RELEASED` once the release ran (`counted`,
/// `unacknowledged` or `gone`); an `ASK` followed; `MOVED` rerouted and
/// `not_run` retried, three sends at most; then, or on anything else,
/// `EMQ_ACTION_GIVE_UP`.
/// `BRANDED_ERR_RANGE` for an `outcome` `emq_lease_outcome` lacks; the
/// keeper is unchanged by a refusal.
///
/// # Safety
/// `keeper` a live handle no other thread uses during the call;
/// `action_out` and `after_ms_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_keeper_settle(
    keeper: *mut emq_lease_keeper,
    outcome: c_int,
    sent_mono_ms: u64,
    now_mono_ms: u64,
    action_out: *mut emq_lease_action,
    after_ms_out: *mut u64,
) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `keeper`.
        let keeper = unsafe { live(keeper)? };
        let outcome = self::outcome(outcome)?;
        non_null(action_out)?;
        non_null(after_ms_out)?;
        let step = keeper.settle(outcome, sent_mono_ms, now_mono_ms);
        let action = step.action.try_into()?;
        // SAFETY: both non-NULL and writable by the caller's promise.
        unsafe {
            action_out.write_unaligned(action);
            after_ms_out.write_unaligned(step.after_ms);
        }
        Ok(())
    })
}

/// Where the holder is, to `phase_out`.
///
/// # Safety
/// `keeper` a live handle no other thread changes during the call; `phase_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_keeper_phase(
    keeper: *const emq_lease_keeper,
    phase_out: *mut emq_lease_phase,
) -> branded_status {
    guard(|| {
        // SAFETY: non-NULL, and a live handle by the caller's promise.
        let keeper = unsafe { &(*non_null(keeper)?).0 };
        let phase = keeper.phase().try_into()?;
        // SAFETY: the caller's promise for `phase_out`.
        unsafe { put(phase_out, phase) }
    })
}

/// Begins handing the held or pending lease back (the host has stopped its
/// minter): the phase is `EMQ_PHASE_RELEASING`, the write due
/// `EMQ_NEXT_RELEASE`. The host sends the release (without `WAIT`) and
/// settles what it came to until `EMQ_ACTION_RELEASED` (handed back: the
/// script's `1` says it was still the owner's) or `EMQ_ACTION_GIVE_UP` (not
/// run: the lease is left to its TTL, and the host reports the server's
/// reply or its own fault), following, rerouting and retrying as told.
///
/// # Safety
/// `keeper` a live handle no other thread uses during the call.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_keeper_release(keeper: *mut emq_lease_keeper) -> branded_status {
    guard(|| {
        // SAFETY: the caller's promise for `keeper`.
        unsafe { live(keeper)? }.release();
        Ok(())
    })
}

/// The first acquire's refusal when it gives up on `outcome`: `EMQ_ERR_NODE`
/// for every node leased, and for a write that did not run (or was moved)
/// for a whole TTL (the host adds the server's reply, which names the
/// state; `emq_lease_refusal_detail` says the rest). `BRANDED_OK` for the
/// outcomes whose refusal is another's: `WAIT`'s (`emq_parse_wait`) or the
/// host's own fault. `BRANDED_ERR_RANGE` for a value `emq_lease_outcome` lacks.
///
/// # Safety
/// None needed: any `int` is safe.
#[no_mangle]
pub extern "C" fn emq_lease_refusal(outcome: c_int) -> branded_status {
    guard(|| Keeper::refusal(self::outcome(outcome)?).map_or(Ok(()), |e| Err(e.into())))
}

/// What the refusal `emq_lease_refusal` answers for `outcome` says (the
/// core's words), as `emq_lease_outcome_name` answers a text; NULL when it
/// answers `BRANDED_OK` or `BRANDED_ERR_RANGE`.
///
/// # Safety
/// `len_out` NULL or writable for one `size_t`. The text is static: never free it.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_refusal_detail(outcome: c_int, len_out: *mut usize) -> *const u8 {
    let detail = at(&Outcome::ALL, outcome).and_then(Keeper::refusal).map(|e| e.detail());
    // SAFETY: the caller's promise for `len_out`.
    unsafe { static_text(detail, len_out) }
}

/// How often a held lease is renewed under the terms `ttl_ms` and
/// `margin_ms` (a third of the TTL, at least 1 ms), to `every_ms_out`;
/// `BRANDED_ERR_RANGE` for terms `emq_lease_terms_check` refuses.
///
/// # Safety
/// `every_ms_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_renew_every_ms(
    ttl_ms: u64,
    margin_ms: u64,
    every_ms_out: *mut u64,
) -> branded_status {
    // SAFETY: the caller's promise for `every_ms_out`.
    unsafe { of_terms(ttl_ms, margin_ms, LeaseTerms::renew_every_ms, every_ms_out) }
}

/// How soon a write that did not count is tried again under the terms
/// `ttl_ms` and `margin_ms` (a twentieth of the TTL, within 10 to 250 ms),
/// to `retry_ms_out`; as `emq_lease_renew_every_ms`.
///
/// # Safety
/// `retry_ms_out` writable.
#[no_mangle]
pub unsafe extern "C" fn emq_lease_retry_ms(ttl_ms: u64, margin_ms: u64, retry_ms_out: *mut u64) -> branded_status {
    // SAFETY: the caller's promise for `retry_ms_out`.
    unsafe { of_terms(ttl_ms, margin_ms, LeaseTerms::retry_ms, retry_ms_out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each C enumeration is the core's, in its order: a value is its index there.
    #[test]
    fn the_enumerations_are_the_cores_order() {
        for (i, o) in Outcome::ALL.into_iter().enumerate() {
            assert_eq!(emq_lease_outcome::from(o) as usize, i);
            assert_eq!(outcome(i as c_int), Ok(o));
        }
        for (i, a) in Action::ALL.into_iter().enumerate() {
            assert_eq!(emq_lease_action::try_from(a).map(|a| a as usize), Ok(i));
        }
        for (i, p) in Phase::ALL.into_iter().enumerate() {
            assert_eq!(emq_lease_phase::try_from(p).map(|p| p as usize), Ok(i));
        }
        for (i, n) in Next::ALL.into_iter().enumerate() {
            assert_eq!(emq_lease_next::try_from(n).map(|n| n as usize), Ok(i));
        }
        assert_eq!(outcome(-1), Err(BRANDED_ERR_RANGE));
        assert_eq!(outcome(Outcome::ALL.len() as c_int), Err(BRANDED_ERR_RANGE));
    }
}
