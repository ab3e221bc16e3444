//! `libemqid_jni`: the native library under the Maven artifact `io.echomq:emq-id`,
//! loaded by `io.echomq.emqid.NativeLibrary` from the jar's resources.
//!
//! Every native method is a `static native` method of the package-private Java
//! class `io.echomq.emqid.Native`; nothing else of Java is known here but the
//! exception it throws (`error.rs`). Texts cross as UTF-8 `byte[]` (Java decides
//! how its strings become bytes: always UTF-8, never the platform charset), and
//! a few answers with several parts cross as one `byte[]` of length-prefixed
//! fields (`fields.rs`), so no native builds Java objects but byte arrays.
//!
//! Hot calls (decode, encode, slot, the snowflake's fields, minting, batches)
//! are raw `jni::sys` entry points (`jvm.rs`): the `jni` crate's safe frame
//! costs about 30 ns a call, more than the work. Everything else goes through
//! its safe `Env`. Either way a refusal of the core becomes an
//! `EmqIdException` through one helper, and a panic is caught at the boundary.
//!
//! `codec.rs` holds the id, `place.rs` slots and the keyspace, `mint.rs` the
//! minters, `lease.rs` node leases, `keeper.rs` the lease keeper's decisions,
//! `facts.rs` the contract's tables, `floor.rs` the benchmark's empty calls.

mod codec;
mod error;
mod facts;
mod fields;
#[cfg(feature = "bench")]
mod floor;
mod handle;
mod jvm;
mod keeper;
mod lease;
mod mint;
mod place;
