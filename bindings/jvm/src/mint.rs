//! Minting: the `Minter` of one node (lock-free, shared by threads), the pure
//! step, and the process-wide minter (the core's `process.rs`: one mint state
//! per process, on a node claimed on this host, so a JVM and a native process
//! on one node refuse each other).

use jni::sys::{jbyteArray, jclass, jint, jlong, jlongArray, jsize};

use crate::handle::{borrow, free, into_handle};
use crate::jvm::{answer_raw, guard, refuse_raw, with_bytes, write_bytes, RawEnv};

/// A node the core takes as `u16`: a Java `int` outside that is refused by the
/// core's own check, as `u16::MAX` (past `MAX_NODE`).
fn node_in(node: jint) -> u16 {
    u16::try_from(node).unwrap_or(u16::MAX)
}

/// Copies `values` into the start of a Java `long[]`.
fn write_longs(env: RawEnv, array: jlongArray, values: &[i64]) {
    // SAFETY: `env` is the calling thread's JNIEnv and `array` a live long[];
    // SetLongArrayRegion checks the bounds itself (it throws, never writes past).
    unsafe { ((**env).v1_1.SetLongArrayRegion)(env, array, 0, values.len() as jsize, values.as_ptr()) }
}

/// `minterNew(int node)`: a handle, or `range`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_minterNew(env: RawEnv, _: jclass, node: jint) -> jlong {
    guard(env, || answer_raw(env, emq_id::Minter::new(node_in(node)).map(into_handle)))
}

/// `minterFree(long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_minterFree(_: RawEnv, _: jclass, minter: jlong) {
    // SAFETY: Java's Cleaner frees each Minter's handle once, after its last call.
    unsafe { free::<emq_id::Minter>(minter) }
}

/// `minterNext(long)`: a snowflake on the system clock.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_minterNext(env: RawEnv, _: jclass, minter: jlong) -> jlong {
    // SAFETY: a live handle of a Minter (its Java owner is reachable during the call).
    let minter = unsafe { borrow::<emq_id::Minter>(minter) };
    guard(env, || answer_raw(env, minter.next().map(|s| s as jlong)))
}

/// `minterNextAt(long, long nowMs)`: the contract's step on a clock reading.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_minterNextAt(
    env: RawEnv,
    _: jclass,
    minter: jlong,
    now: jlong,
) -> jlong {
    // SAFETY: a live handle of a Minter (its Java owner is reachable during the call).
    let minter = unsafe { borrow::<emq_id::Minter>(minter) };
    guard(env, || answer_raw(env, minter.next_at(now).map(|s| s as jlong)))
}

/// `minterNextMany(long, long[] out)`: fills `out` with snowflakes minted on
/// one clock reading, or throws the first refusal (nothing written).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_minterNextMany(
    env: RawEnv,
    _: jclass,
    minter: jlong,
    out: jlongArray,
) {
    // SAFETY: a live handle of a Minter (its Java owner is reachable during the call).
    let minter = unsafe { borrow::<emq_id::Minter>(minter) };
    guard(env, || {
        // SAFETY: `env` is the calling thread's JNIEnv and `out` a live long[].
        let n = unsafe { ((**env).v1_1.GetArrayLength)(env, out) } as usize;
        let now = emq_id::now_ms();
        let minted: emq_id::Result<Vec<i64>> = (0..n).map(|_| minter.next_at(now).map(|s| s as i64)).collect();
        match minted {
            Ok(snowflakes) => write_longs(env, out, &snowflakes),
            Err(e) => refuse_raw(env, &e),
        }
    })
}

/// `mintStep(long state, int node, long nowMs, long[] out)`: the pure step,
/// `out` = {state', snowflake}.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_mintStep(
    env: RawEnv,
    _: jclass,
    state: jlong,
    node: jint,
    now: jlong,
    out: jlongArray,
) {
    guard(env, || match emq_id::step(state as u64, node_in(node), now) {
        Ok((next, snowflake)) => write_longs(env, out, &[next as i64, snowflake as i64]),
        Err(e) => refuse_raw(env, &e),
    })
}

/// `mint(byte[] ns, byte[] out)`: an id of the process-wide minter into `out`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_mint(env: RawEnv, _: jclass, ns: jbyteArray, out: jbyteArray) {
    guard(env, || match with_bytes(env, ns, emq_id::mint) {
        Some(Ok(id)) => write_bytes(env, out, &id.to_bytes()),
        Some(Err(e)) => refuse_raw(env, &e),
        None => {}
    })
}

/// The process minter's node and where it came from, as `source << 32 | node`
/// (source 0: `EMQ_NODE`, 1: set, 2: drawn).
fn reported(env: RawEnv, minter: emq_id::Result<&emq_id::ProcessMinter>) -> jlong {
    match minter {
        Ok(minter) => {
            let source: jlong = match minter.source() {
                emq_id::NodeSource::Env => 0,
                emq_id::NodeSource::Explicit => 1,
                _ => 2,
            };
            (source << 32) | jlong::from(minter.node())
        }
        Err(e) => refuse_raw(env, &e),
    }
}

/// `processNode()`: the process's node, taken on first use.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_processNode(env: RawEnv, _: jclass) -> jlong {
    guard(env, || reported(env, emq_id::process_minter()))
}

/// `setNode(int)`: makes `node` the process's node.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_setNode(env: RawEnv, _: jclass, node: jint) -> jlong {
    guard(env, || reported(env, emq_id::set_process_node(node_in(node))))
}
