//! The branded id: decode (a packed form with no array, and the bytes form),
//! encode, order, the snowflake's fields, `min_for`, and the batches, which
//! cross once for the whole batch.
//!
//! Java's `long` carries the core's `u64` snowflake as its bits (a snowflake is
//! below 2^63, so it is never negative; a negative `long` reads as a value at
//! or past 2^63, which `encode` refuses with `range`).

use jni::sys::{jboolean, jbyteArray, jclass, jint, jlong, jlongArray};

use crate::jvm::{answer_raw, guard, refuse_raw, with_bytes, with_pinned, write_bytes, RawEnv};

/// The id's 14 bytes from the two `long`s Java packed them into, little-endian:
/// bytes 0-7 in `low`, 8-13 in `high` (its top two bytes unused).
fn unpacked(low: jlong, high: jlong) -> [u8; emq_id::ID_LEN] {
    let mut text = [0u8; emq_id::ID_LEN];
    let (head, tail) = text.split_at_mut(8);
    head.copy_from_slice(&low.to_le_bytes());
    tail.copy_from_slice(&high.to_le_bytes()[..emq_id::ID_LEN - 8]);
    text
}

/// `decodePacked(long, long)`: the snowflake of a 14-byte text packed into two
/// longs, or `-1` when the core refuses it (Java then asks `decode(byte[])` for
/// the refusal, a path taken only by bad input). No array crosses.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_decodePacked(
    env: RawEnv,
    _: jclass,
    low: jlong,
    high: jlong,
) -> jlong {
    guard(env, || emq_id::decode(&unpacked(low, high)).map_or(-1, |(_, snowflake)| snowflake as jlong))
}

/// `decode(byte[])`: the snowflake of a text (its namespace is its first three
/// bytes once accepted), or the refusal thrown.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_decode(env: RawEnv, _: jclass, text: jbyteArray) -> jlong {
    guard(env, || {
        let decoded = with_bytes(env, text, emq_id::decode);
        decoded.map_or(0, |d| answer_raw(env, d.map(|(_, snowflake)| snowflake as jlong)))
    })
}

/// `isValid(byte[])`: whether the core accepts the text.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_isValid(env: RawEnv, _: jclass, text: jbyteArray) -> jboolean {
    guard(env, || with_bytes(env, text, emq_id::is_valid).unwrap_or(false))
}

/// `compare(byte[], byte[])`: -1, 0 or 1, or the first invalid id's refusal.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_compare(
    env: RawEnv,
    _: jclass,
    a: jbyteArray,
    b: jbyteArray,
) -> jint {
    guard(env, || {
        // No JNI call after a failed pin: its exception is pending.
        let Some(left) = with_bytes(env, a, <[u8]>::to_vec) else { return 0 };
        let Some(right) = with_bytes(env, b, <[u8]>::to_vec) else { return 0 };
        answer_raw(env, emq_id::compare(&left, &right).map(|o| o as jint))
    })
}

/// `encode(byte[] ns, long snowflake, byte[] out)`: writes the 14-byte id into
/// `out` (which Java sized from `ID_LEN`), or throws the refusal.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_encode(
    env: RawEnv,
    _: jclass,
    ns: jbyteArray,
    snowflake: jlong,
    out: jbyteArray,
) {
    guard(env, || match with_bytes(env, ns, |ns| emq_id::encode(ns, snowflake as u64)) {
        Some(Ok(text)) => write_bytes(env, out, &text),
        Some(Err(e)) => refuse_raw(env, &e),
        None => {}
    })
}

/// `encodePacked(int ns, long snowflake, byte[] out)`: `encode` for a namespace
/// of three ASCII characters Java packed little-endian into an int, so only the
/// answer crosses as an array.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_encodePacked(
    env: RawEnv,
    _: jclass,
    ns: jint,
    snowflake: jlong,
    out: jbyteArray,
) {
    guard(env, || {
        let ns = ns.to_le_bytes();
        match emq_id::encode(&ns[..emq_id::NS_LEN], snowflake as u64) {
            Ok(text) => write_bytes(env, out, &text),
            Err(e) => refuse_raw(env, &e),
        }
    })
}

/// `hash32(long)`: the placement hash, 0..2^32-1.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_hash32(env: RawEnv, _: jclass, snowflake: jlong) -> jlong {
    guard(env, || emq_id::hash32(snowflake as u64) as jlong)
}

/// `unixMs(long)`: the unix ms a snowflake was minted in.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_unixMs(env: RawEnv, _: jclass, snowflake: jlong) -> jlong {
    guard(env, || emq_id::unix_ms(snowflake as u64) as jlong)
}

/// `node(long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_node(env: RawEnv, _: jclass, snowflake: jlong) -> jint {
    guard(env, || jint::from(emq_id::node(snowflake as u64)))
}

/// `seq(long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_seq(env: RawEnv, _: jclass, snowflake: jlong) -> jint {
    guard(env, || jint::from(emq_id::seq(snowflake as u64)))
}

/// `minFor(long unixMs)`: the smallest snowflake minted at or after it, or `range`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_minFor(env: RawEnv, _: jclass, unix_ms: jlong) -> jlong {
    guard(env, || answer_raw(env, emq_id::min_for(unix_ms).map(|s| s as jlong)))
}

/// `decodeMany(byte[] packed, long[] out)`: the ids packed end to end, 14 bytes
/// each, decoded into `out`; `-1` when all were accepted, else the index of the
/// first the core refused (Java asks `decode` for that one's refusal).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_decodeMany(
    env: RawEnv,
    _: jclass,
    packed: jbyteArray,
    out: jlongArray,
) -> jint {
    guard(env, || {
        let decoded = with_pinned(env, packed, out, |texts: &[u8], snowflakes: &mut [i64]| {
            for (i, (text, slot)) in texts.chunks_exact(emq_id::ID_LEN).zip(snowflakes.iter_mut()).enumerate() {
                match emq_id::decode(text) {
                    Ok((_, snowflake)) => *slot = snowflake as i64,
                    Err(_) => return i as jint,
                }
            }
            -1
        });
        decoded.unwrap_or(0)
    })
}

/// `encodeMany(byte[] ns, long[] snowflakes, byte[] out)`: every snowflake's id
/// under one namespace, end to end into `out`; `-1` when all were accepted, else
/// the index of the first refused (or `-2` for the namespace itself).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_encodeMany(
    env: RawEnv,
    _: jclass,
    ns: jbyteArray,
    snowflakes: jlongArray,
    out: jbyteArray,
) -> jint {
    guard(env, || {
        let Some(ns) = with_bytes(env, ns, <[u8]>::to_vec) else { return 0 };
        if emq_id::check_namespace(&ns).is_err() {
            return -2;
        }
        let encoded = with_pinned(env, snowflakes, out, |snowflakes: &[i64], texts: &mut [u8]| {
            for (i, (snowflake, text)) in snowflakes.iter().zip(texts.chunks_exact_mut(emq_id::ID_LEN)).enumerate() {
                let Ok(text) = <&mut [u8; emq_id::ID_LEN]>::try_from(text) else { return i as jint };
                if emq_id::encode_into(&ns, *snowflake as u64, text).is_err() {
                    return i as jint;
                }
            }
            -1
        });
        encoded.unwrap_or(0)
    })
}
