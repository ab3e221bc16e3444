//! Placement and the keyspace: the slot (raw, one key or a batch), the hash
//! tag's place in a key, and every key the keyspace builds or reads, over the
//! UTF-8 bytes Java hands in.

use jni::objects::{JByteArray, JClass};
use jni::sys::{jbyteArray, jclass, jint, jintArray, jlong};
use jni::EnvUnowned;

use crate::fields::Fields;
use crate::jvm::{bytes_in, bytes_out, call, guard, optional_bytes_in, with_bytes, with_pinned, RawEnv};

/// `slot(byte[] key)`: the key's hash slot.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_slot(env: RawEnv, _: jclass, key: jbyteArray) -> jint {
    guard(env, || with_bytes(env, key, emq_id::slot).map_or(0, jint::from))
}

/// The longest key [`Java_io_echomq_emqid_Native_slotPacked`] takes: five longs.
const PACKED_KEY: usize = 40;

/// `slotPacked(long, long, long, long, long, int len)`: the slot of a key of at
/// most 40 bytes that Java packed little-endian into five longs, so no array
/// crosses (most keys are that short: `emq:{orders}:job:JOB0KHTOWnGLuC:lock`
/// is 36 bytes). A length past 40 answers -1 (Java never sends one).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_slotPacked(
    env: RawEnv,
    _: jclass,
    w0: jlong,
    w1: jlong,
    w2: jlong,
    w3: jlong,
    w4: jlong,
    len: jint,
) -> jint {
    guard(env, || {
        let mut key = [0u8; PACKED_KEY];
        for (chunk, word) in key.chunks_exact_mut(8).zip([w0, w1, w2, w3, w4]) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        usize::try_from(len).ok().and_then(|n| key.get(..n)).map_or(-1, |k| jint::from(emq_id::slot(k)))
    })
}

/// `hashtagSpan(byte[] key)`: where the part hashed lies in the key, as
/// `offset << 32 | length` (Java cuts it from the bytes or text it holds).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_hashtagSpan(env: RawEnv, _: jclass, key: jbyteArray) -> jlong {
    guard(env, || {
        with_bytes(env, key, |key| {
            let tag = emq_id::hashtag(key);
            // The tag is a part of the key: its offset is the distance between their starts.
            let offset = tag.as_ptr() as usize - key.as_ptr() as usize;
            ((offset as jlong) << 32) | tag.len() as jlong
        })
        .unwrap_or(0)
    })
}

/// `slotMany(byte[] packed, int[] ends)`: the keys packed end to end, `ends[i]`
/// where key `i` ends; each end is replaced by that key's slot. `-1` when done,
/// else the index of an end out of order or past the bytes (nothing after it
/// is written).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_slotMany(
    env: RawEnv,
    _: jclass,
    packed: jbyteArray,
    ends: jintArray,
) -> jint {
    guard(env, || {
        let done = with_pinned(env, packed, ends, |keys: &[u8], ends: &mut [i32]| {
            let mut start = 0usize;
            for (i, end) in ends.iter_mut().enumerate() {
                let Some(key) = usize::try_from(*end).ok().and_then(|e| keys.get(start..e)) else {
                    return i as jint;
                };
                start += key.len();
                *end = i32::from(emq_id::slot(key));
            }
            -1
        });
        done.unwrap_or(0)
    })
}

/// `key(byte[] queue, byte[] type, byte[] id or null)`: a key of a queue.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_key<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    queue: JByteArray<'l>,
    ty: JByteArray<'l>,
    id: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let (q, t, i) = (bytes_in(env, &queue)?, bytes_in(env, &ty)?, optional_bytes_in(env, &id)?);
        let key = emq_id::key(&q, &t, i.as_deref())?;
        bytes_out(env, key.as_bytes())
    })
}

/// `jobKey(byte[] queue, byte[] id)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_jobKey<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    queue: JByteArray<'l>,
    id: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let (q, i) = (bytes_in(env, &queue)?, bytes_in(env, &id)?);
        let key = emq_id::job_key(&q, &i)?;
        bytes_out(env, key.as_bytes())
    })
}

/// `parseKey(byte[] key)`: fields queue, family (its pattern), param (absent
/// for a family without one).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_parseKey<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    key: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let k = bytes_in(env, &key)?;
        let parsed = emq_id::parse_key(&k)?;
        let fields =
            Fields::default().text(parsed.queue).text(parsed.family.pattern().to_string()).optional(parsed.param);
        bytes_out(env, fields.into_bytes())
    })
}

/// A key the core builds from one argument's bytes, as UTF-8 bytes.
fn key_of<'l>(
    env: EnvUnowned<'l>,
    arg: &JByteArray<'l>,
    build: fn(&[u8]) -> emq_id::Result<emq_id::Key>,
) -> JByteArray<'l> {
    call(env, |env| {
        let bytes = bytes_in(env, arg)?;
        let key = build(&bytes)?;
        bytes_out(env, key.as_bytes())
    })
}

/// `reserve(byte[] name)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_reserve<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    name: JByteArray<'l>,
) -> JByteArray<'l> {
    key_of(env, &name, emq_id::reserve)
}

/// `queuePrefix(byte[] queue)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_queuePrefix<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    queue: JByteArray<'l>,
) -> JByteArray<'l> {
    key_of(env, &queue, emq_id::queue_prefix)
}

/// `jobPrefix(byte[] queue)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_jobPrefix<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    queue: JByteArray<'l>,
) -> JByteArray<'l> {
    key_of(env, &queue, emq_id::job_prefix)
}

/// `prefixBytes(byte[] queue, byte[] type)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_prefixBytes<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    queue: JByteArray<'l>,
    ty: JByteArray<'l>,
) -> jint {
    call(env, |env| {
        let (q, t) = (bytes_in(env, &queue)?, bytes_in(env, &ty)?);
        // A key is at most MAX_KEY_LEN bytes: its prefix fits an int.
        Ok(emq_id::prefix_bytes(&q, &t)? as jint)
    })
}

/// `xaddId(byte[] id)`: the stream entry id of an EVT id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_xaddId<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    id: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let i = bytes_in(env, &id)?;
        let entry = emq_id::xadd_id(&i)?;
        bytes_out(env, entry.as_str())
    })
}

/// `fromXaddId(byte[] entry, byte[] ns or null)`: the id behind an entry id
/// (namespace the core's `EVENT_NS` when null).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_fromXaddId<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    entry: JByteArray<'l>,
    ns: JByteArray<'l>,
) -> JByteArray<'l> {
    call(env, |env| {
        let (e, n) = (bytes_in(env, &entry)?, optional_bytes_in(env, &ns)?);
        let id = emq_id::from_xadd_id(&e, n.as_deref().unwrap_or(&emq_id::EVENT_NS[..]))?;
        bytes_out(env, id.to_bytes())
    })
}
