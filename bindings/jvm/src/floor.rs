//! The benchmark's floor: natives that do nothing, one per signature of a hot
//! call, so `cargo xtask bench jvm` can say what the crossing alone costs.
//! Only in a build with the `bench` feature, which no jar a user gets carries.

use jni::sys::{jbyteArray, jclass, jint, jlong, jlongArray};

use crate::jvm::RawEnv;

/// The floor of `decodePacked(long, long)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorLongLong(_: RawEnv, _: jclass, _: jlong, _: jlong) -> jlong {
    0
}

/// The floor of `slot(byte[])` and `decode(byte[])`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorBytes(_: RawEnv, _: jclass, _: jbyteArray) -> jint {
    0
}

/// The floor of `encode(byte[], long, byte[])`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorEncode(
    _: RawEnv,
    _: jclass,
    _: jbyteArray,
    _: jlong,
    _: jbyteArray,
) {
}

/// The floor of `hash32(long)` and the snowflake's fields.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorLong(_: RawEnv, _: jclass, _: jlong) -> jlong {
    0
}

/// The floor of the batches (`decodeMany(byte[], long[])`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorBatch(
    _: RawEnv,
    _: jclass,
    _: jbyteArray,
    _: jlongArray,
) -> jint {
    0
}

/// The floor of `slotPacked(long × 5, int)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorSlotPacked(
    _: RawEnv,
    _: jclass,
    _: jlong,
    _: jlong,
    _: jlong,
    _: jlong,
    _: jlong,
    _: jint,
) -> jint {
    0
}

/// The floor of `encodePacked(int, long, byte[])`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_floorEncodePacked(
    _: RawEnv,
    _: jclass,
    _: jint,
    _: jlong,
    _: jbyteArray,
) {
}
