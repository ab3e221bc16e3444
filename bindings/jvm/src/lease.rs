//! Node leases on Valkey (`emq-lease/3`): the replies' parsers, the terms, and
//! the leased minter. The scripts and the lease key are facts (`facts.rs`).
//! A `LeaseTerms` crosses as its two numbers, which the core checks again
//! wherever it takes them (Java made them through the core's check).

use jni::objects::{JByteArray, JClass};
use jni::sys::{jclass, jint, jlong};
use jni::EnvUnowned;

use crate::handle::{borrow, free, into_handle};
use crate::jvm::{answer_raw, bytes_in, bytes_out, call, guard, longs_out, refuse_raw, Fail, RawEnv};

/// The terms of two numbers, checked by the core.
fn terms(ttl_ms: jlong, margin_ms: jlong) -> emq_id::Result<emq_id::LeaseTerms> {
    emq_id::LeaseTerms::new(ttl_ms as u64, margin_ms as u64)
}

/// `parseAcquire(long node, long previous, long[] out)`: out = {node, 1 and the
/// previous mark, or 0 and 0 for a node never leased}.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_parseAcquire<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    node: jlong,
    previous: jlong,
    out: jni::objects::JLongArray<'l>,
) {
    call(env, |env| {
        let acquired = emq_id::parse_acquire(node, previous)?;
        let (has, mark) = acquired.previous_mark.map_or((0, 0), |m| (1, m as i64));
        longs_out(env, &out, &[i64::from(acquired.node), has, mark])
    })
}

/// `parseAcquireError(byte[] message)`: the refusal's fields when the message
/// says every node is leased, else null.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_parseAcquireError<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    message: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let text = bytes_in(env, &message)?;
        match core::str::from_utf8(&text).ok().and_then(emq_id::parse_acquire_error) {
            Some(refusal) => bytes_out(env, crate::error::fields(&refusal)),
            None => Ok(JByteArray::default()),
        }
    })
}

/// `parseRenewal(long reply)`: returns on 1, throws `node` on 0.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_parseRenewal(env: RawEnv, _: jclass, reply: jlong) {
    guard(env, || answer_raw(env, emq_id::parse_renewal(reply)))
}

/// `parseWait(long acknowledged, long replicas)`: returns when enough replicas
/// acknowledged, throws `node` (with both counts) or `range`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_parseWait(
    env: RawEnv,
    _: jclass,
    acknowledged: jlong,
    replicas: jlong,
) {
    guard(env, || match u32::try_from(replicas) {
        Ok(wanted) => answer_raw(env, emq_id::parse_wait(acknowledged, wanted)),
        // The core counts replicas in a u32: a long outside it is no count, refused where it is converted.
        Err(_) => {
            refuse_raw(env, &emq_id::Error::from_gate(emq_id::Gate::Range, "replicas is a count from 0 to 2^32 - 1"))
        }
    })
}

/// `termsCheck(long ttlMs, long marginMs)`: returns when the core accepts them, else `range`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_termsCheck(env: RawEnv, _: jclass, ttl: jlong, margin: jlong) {
    guard(env, || answer_raw(env, terms(ttl, margin).map(drop)))
}

/// `termsForTtl(long ttlMs)`: the default margin for that TTL, else `range`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_termsForTtl(env: RawEnv, _: jclass, ttl: jlong) -> jlong {
    guard(env, || answer_raw(env, emq_id::LeaseTerms::for_ttl(ttl as u64).map(|t| t.margin_ms as jlong)))
}

/// `termsTiming(long ttlMs, long marginMs, long[] out)`: out = {wait, renew every, retry} ms.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_termsTiming<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    ttl: jlong,
    margin: jlong,
    out: jni::objects::JLongArray<'l>,
) {
    call(env, |env| {
        let t = terms(ttl, margin)?;
        longs_out(env, &out, &[t.wait_ms() as i64, t.renew_every_ms() as i64, t.retry_ms() as i64])
    })
}

/// `leasedStart(int node, long previousMark or -1, long nowMs, long sentMonoMs,
/// long ttlMs, long marginMs)`: a leased minter's handle, or the refusal.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedStart(
    env: RawEnv,
    _: jclass,
    node: jint,
    previous_mark: jlong,
    now: jlong,
    sent_mono: jlong,
    ttl: jlong,
    margin: jlong,
) -> jlong {
    guard(env, || {
        let started = emq_id::parse_acquire(i64::from(node), previous_mark)
            .and_then(|acquired| emq_id::LeasedMinter::start(acquired, now, sent_mono as u64, terms(ttl, margin)?));
        answer_raw(env, started.map(into_handle))
    })
}

/// The leased minter behind a handle.
fn leased<'a>(handle: jlong) -> &'a emq_id::LeasedMinter {
    // SAFETY: `Native`'s leased-minter methods pass only live handles of
    // `leasedStart` (the Java owner is reachable during the call).
    unsafe { borrow::<emq_id::LeasedMinter>(handle) }
}

/// `leasedFree(long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedFree(_: RawEnv, _: jclass, minter: jlong) {
    // SAFETY: Java's Cleaner frees each LeasedMinter's handle once, after its last call.
    unsafe { free::<emq_id::LeasedMinter>(minter) }
}

/// `leasedNext(long)`: a snowflake on the system and monotonic clocks.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedNext(env: RawEnv, _: jclass, minter: jlong) -> jlong {
    guard(env, || answer_raw(env, leased(minter).next().map(|s| s as jlong)))
}

/// `leasedNextAt(long, long nowMs, long monoMs)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedNextAt(
    env: RawEnv,
    _: jclass,
    minter: jlong,
    now: jlong,
    mono: jlong,
) -> jlong {
    guard(env, || answer_raw(env, leased(minter).next_at(now, mono as u64).map(|s| s as jlong)))
}

/// `leasedNextMark(long, long nowMs)`: the mark to send with a renewal.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedNextMark(
    env: RawEnv,
    _: jclass,
    minter: jlong,
    now: jlong,
) -> jlong {
    guard(env, || leased(minter).next_mark(now) as jlong)
}

/// `leasedRenewed(long, long sentMonoMs, long mark)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedRenewed(
    env: RawEnv,
    _: jclass,
    minter: jlong,
    sent: jlong,
    mark: jlong,
) {
    guard(env, || leased(minter).renewed(sent as u64, mark as u64))
}

/// `leasedStop(long)`: closes the fence for good.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedStop(env: RawEnv, _: jclass, minter: jlong) {
    guard(env, || leased(minter).stop())
}

/// `leasedState(long, long[] out)`: out = {node, high water, fence ms}.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_leasedState<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    minter: jlong,
    out: jni::objects::JLongArray<'l>,
) {
    call(env, |env| -> Result<(), Fail> {
        let m = leased(minter);
        longs_out(env, &out, &[i64::from(m.node()), m.high_water() as i64, m.fence_ms() as i64])
    })
}

/// `monotonicMs()`: the fence's clock.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_monotonicMs(env: RawEnv, _: jclass) -> jlong {
    guard(env, || emq_id::monotonic_ms() as jlong)
}
