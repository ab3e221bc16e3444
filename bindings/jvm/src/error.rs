//! The one place an `emq_id::Error` becomes Java's: an
//! `io.echomq.emqid.EmqIdException` made from the refusal's fields (`fields`),
//! thrown ([`throw`]) or handed back as a value for Java to hold
//! (`parseAcquireError`, `LeaseKeeper.refusal`). Java reads the same fields
//! with the same constructor either way.

use jni::objects::{JObject, JThrowable, JValue};
use jni::{jni_sig, jni_str, Env};

use crate::fields::Fields;

/// A refusal as fields: the gate's name, the core's message, and for
/// `parse_wait`'s refusal the replicas that acknowledged and those wanted.
pub fn fields(e: &emq_id::Error) -> Vec<u8> {
    let (acknowledged, replicas) = match e.acknowledged() {
        Some((got, wanted)) => (Some(got.to_string()), Some(wanted.to_string())),
        None => (None, None),
    };
    Fields::default()
        .text(e.gate().name())
        .text(e.message().to_string())
        .optional(acknowledged)
        .optional(replicas)
        .into_bytes()
}

/// Throws `e` as an `EmqIdException`; the error to hand back up (the
/// exception is pending).
pub fn throw(env: &mut Env<'_>, e: &emq_id::Error) -> jni::errors::Error {
    match thrown(env, e) {
        Ok(()) => jni::errors::Error::JavaException,
        Err(failed) => failed,
    }
}

fn thrown(env: &mut Env<'_>, e: &emq_id::Error) -> jni::errors::Result<()> {
    let fields = env.byte_array_from_slice(&fields(e))?;
    let exception: JObject<'_> =
        env.new_object(jni_str!("io/echomq/emqid/EmqIdException"), jni_sig!("([B)V"), &[JValue::Object(&fields)])?;
    let exception = env.cast_local::<JThrowable>(exception)?;
    env.throw(exception)
}
