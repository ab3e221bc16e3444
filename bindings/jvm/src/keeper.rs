//! The lease keeper's decisions (the core's `keeper.rs`): what an error reply
//! means, where a redirect sends a write, and the `Keeper` itself. The core's
//! enums cross as their index in the core's `ALL` lists, whose names Java
//! checks against its own enums when it loads (`facts.rs`).

use jni::objects::{JByteArray, JClass};
use jni::sys::{jboolean, jclass, jint, jlong};
use jni::EnvUnowned;

use crate::fields::Fields;
use crate::handle::{borrow, borrow_mut, free, into_handle};
use crate::jvm::{answer_raw, bytes_in, bytes_out, call, guard, longs_out, Fail, RawEnv};

/// The index of a value in its `ALL` list.
fn index_of<T: PartialEq>(all: &[T], value: T) -> jint {
    all.iter().position(|v| *v == value).map_or(-1, |i| i as jint)
}

/// An outcome by its index, else `range`.
fn outcome_at(index: jint) -> emq_id::Result<emq_id::Outcome> {
    usize::try_from(index)
        .ok()
        .and_then(|i| emq_id::Outcome::ALL.get(i).copied())
        .ok_or(emq_id::Error::from_gate(emq_id::Gate::Range, "no outcome of the core at this index"))
}

/// `readLeaseError(byte[] text, boolean asked)`: the outcome's index.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_readLeaseError<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    text: JByteArray<'l>,
    asked: jboolean,
) -> jint {
    call(env, |env| {
        let bytes = bytes_in(env, &text)?;
        let outcome =
            core::str::from_utf8(&bytes).map_or(emq_id::Outcome::Fault, |t| emq_id::read_lease_error(t, asked));
        Ok(index_of(&emq_id::Outcome::ALL, outcome))
    })
}

/// `redirect(byte[] text)`: fields ask ("1"/"0"), slot, host (absent when the
/// reply leaves it out), port; or null for a text that is no redirect.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_redirect<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    text: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let bytes = bytes_in(env, &text)?;
        match core::str::from_utf8(&bytes).ok().and_then(emq_id::redirect) {
            Some(to) => {
                let fields =
                    Fields::default().number(u8::from(to.ask)).number(to.slot).optional(to.host).number(to.port);
                bytes_out(env, fields.into_bytes())
            }
            None => Ok(JByteArray::default()),
        }
    })
}

/// `outcomeOfWrite(boolean held, boolean acknowledged)`: the outcome's index.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_outcomeOfWrite(
    env: RawEnv,
    _: jclass,
    held: jboolean,
    acked: jboolean,
) -> jint {
    guard(env, || index_of(&emq_id::Outcome::ALL, emq_id::Outcome::of_write(held, acked)))
}

/// `keeperRefusal(int outcome)`: the first acquire's refusal as fields, or null.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperRefusal<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    outcome: jint,
) -> JByteArray<'l> {
    call(env, |env| match emq_id::Keeper::refusal(outcome_at(outcome)?) {
        Some(refusal) => bytes_out(env, crate::error::fields(&refusal)),
        None => Ok(JByteArray::default()),
    })
}

/// `keeperNew(long ttlMs, long marginMs, long sinceMonoMs)`: a keeper's handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperNew(
    env: RawEnv,
    _: jclass,
    ttl: jlong,
    margin: jlong,
    since: jlong,
) -> jlong {
    guard(env, || {
        let terms = emq_id::LeaseTerms::new(ttl as u64, margin as u64);
        answer_raw(env, terms.map(|t| into_handle(emq_id::Keeper::starting(t, since as u64))))
    })
}

/// `keeperFree(long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperFree(_: RawEnv, _: jclass, keeper: jlong) {
    // SAFETY: Java's Cleaner frees each LeaseKeeper's handle once, after its last call.
    unsafe { free::<emq_id::Keeper>(keeper) }
}

/// The keeper behind a handle, to read.
fn keeper<'a>(handle: jlong) -> &'a emq_id::Keeper {
    // SAFETY: `Native`'s keeper methods pass only live handles of `keeperNew`
    // (the Java owner is reachable during the call and serialises its calls).
    unsafe { borrow::<emq_id::Keeper>(handle) }
}

/// The keeper behind a handle, to change.
fn keeper_mut<'a>(handle: jlong) -> &'a mut emq_id::Keeper {
    // SAFETY: as `keeper`; the Java owner's methods are synchronized, so no
    // other reference to it is alive.
    unsafe { borrow_mut::<emq_id::Keeper>(handle) }
}

/// `keeperNext(long, long nowMonoMs)`: the index of the write due.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperNext(
    env: RawEnv,
    _: jclass,
    handle: jlong,
    now: jlong,
) -> jint {
    guard(env, || index_of(&emq_id::Next::ALL, keeper_mut(handle).next(now as u64)))
}

/// `keeperSettle(long, int outcome, long sentMonoMs, long nowMonoMs, long[] out)`:
/// out = {action's index, after ms}.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperSettle<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    handle: jlong,
    outcome: jint,
    sent: jlong,
    now: jlong,
    out: jni::objects::JLongArray<'l>,
) {
    call(env, |env| -> Result<(), Fail> {
        let step = keeper_mut(handle).settle(outcome_at(outcome)?, sent as u64, now as u64);
        longs_out(env, &out, &[i64::from(index_of(&emq_id::Action::ALL, step.action)), step.after_ms as i64])
    })
}

/// `keeperRelease(long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperRelease(env: RawEnv, _: jclass, handle: jlong) {
    guard(env, || keeper_mut(handle).release())
}

/// `keeperPhase(long)`: the phase's index.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperPhase(env: RawEnv, _: jclass, handle: jlong) -> jint {
    guard(env, || index_of(&emq_id::Phase::ALL, keeper(handle).phase()))
}

/// `keeperAsked(long)`: whether the write about to be sent follows an `ASK`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_keeperAsked(env: RawEnv, _: jclass, handle: jlong) -> jboolean {
    guard(env, || keeper(handle).asked())
}
