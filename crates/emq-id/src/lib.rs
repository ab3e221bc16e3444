//! # emq-id
//!
//! The single source of truth for EchoMQ's two cross-runtime facts:
//!
//! 1. **Branded ids** (contract `branded-snowflake/1.0.0`): 14 bytes, a
//!    namespace of three letters `A`–`Z` and 11 base62 digits of a 63-bit
//!    snowflake `ts(41) | node(10) | seq(12)`. Their byte order is their
//!    numeric order is their mint order.
//! 2. **Placement on a Valkey Cluster** (`emq-keyspace/2`): the hash slot of a
//!    key, and key builders that brace the queue name so every key of a queue
//!    shares one slot.
//!
//! ```
//! use emq_id::{Id, Minter, slot, job_key};
//!
//! let minter = Minter::new(42)?;                 // node 42 of 0..=1023
//! let id = Id::new(b"JOB", minter.next_at(1_769_526_697_641)?)?;
//! assert_eq!(id.node(), 42);
//! let key = job_key(b"orders", &id.to_bytes())?;
//! assert_eq!(slot(key.as_bytes()), slot(b"orders"));
//! # Ok::<(), emq_id::Error>(())
//! ```
//!
//! Every refusal is an [`Error`] naming a [`Gate`], whose stable name is the
//! code every binding surfaces. The crate is `no_std` without its default
//! `std` feature (which adds the wall clock and the `EMQ_NODE` minter).
//! SPEC.md in the repository states the contract with its reasons.
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
// No unsafe code, but in the one build whose operating system is its host's
// imports (feature `host` on wasm32): there `host.rs` alone calls them.
#![cfg_attr(not(all(target_arch = "wasm32", feature = "host")), forbid(unsafe_code))]
#![cfg_attr(all(target_arch = "wasm32", feature = "host"), deny(unsafe_code))]

mod base62;
mod check;
#[cfg(feature = "std")]
mod claim;
#[cfg(feature = "std")]
mod claim_host;
#[cfg(feature = "std")]
mod clock;
mod codec;
mod error;
mod facts;
mod family;
mod hash;
mod high_water;
#[cfg(all(target_arch = "wasm32", feature = "host"))]
mod host;
mod id;
mod keeper;
mod keyspace;
mod lease;
mod mint;
#[cfg(feature = "std")]
mod process;
mod slot;
mod snowflake;
mod stream;

pub use base62::{ALPHABET, PAYLOAD_LEN};
pub use check::{self_check, Mismatch, SELF_CHECK_VECTORS};
#[cfg(feature = "std")]
pub use claim::{claim_dir, NodeClaim, NODE_DIR_ENV};
#[cfg(feature = "std")]
pub use claim_host::{set_claim_host, ClaimHost};
#[cfg(feature = "std")]
pub use clock::{monotonic_ms, now_ms};
pub use codec::{
    check_namespace, compare, decode, encode, encode_into, is_namespace, is_valid, ID_LEN, MAX_PAYLOAD, NS_LEN,
};
pub use error::{Error, Gate, Message, Result};
pub use facts::{NUMBERS, TEXTS};
pub use family::{check_name, Family, Param, Pattern, JOB_NS, MAX_NAME_LEN};
pub use hash::hash32;
pub use high_water::{raise_mark, state_after, state_ms, step_shared_under, step_under};
pub use id::{Id, BINARY_LEN};
pub use keeper::{read_lease_error, redirect, Action, Keeper, Next, Outcome, Phase, Redirect, Step};
pub use keyspace::{
    check_queue, job_key, job_prefix, key, parse_key, prefix_bytes, queue_key, queue_prefix, reserve, Key, ParsedKey,
    BUS_VERSION, KEYSPACE, MAX_KEY_LEN, MAX_QUEUE_LEN, VERSION_KEY,
};
pub use lease::{
    parse_acquire, parse_acquire_error, parse_renewal, parse_wait, Acquired, LeaseTerms, LeasedMinter, Script, ACQUIRE,
    EVERY_NODE_LEASED, LEASE_KEY, LEASE_NODES, LEASE_PROTOCOL, LEASE_REPLICAS, MAX_WAIT_MS, RELEASE, RENEW, SCRIPTS,
};
pub use mint::{parse_node, step, step_shared, Minter};
#[cfg(all(feature = "std", unix))]
pub use process::process_claim_fd;
#[cfg(feature = "std")]
pub use process::{mint, process_forked, process_minter, set_process_node, NodeSource, ProcessMinter, NODE_ENV};
pub use slot::{crc16, hashtag, slot, SLOTS};
pub use snowflake::{compose, min_for, node, seq, unix_ms, EPOCH_MS, MAX_NODE, MAX_SEQ, MAX_SNOWFLAKE, MAX_TS};
pub use stream::{from_xadd_id, xadd_id, EntryId, EVENT_NS, MAX_ENTRY_ID_LEN};

/// The contract this crate implements, as written in the vector file.
///
/// ```
/// assert_eq!(emq_id::CONTRACT, "branded-snowflake/1.0.0");
/// ```
pub const CONTRACT: &str = "branded-snowflake/1.0.0";

/// The project README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// This crate's own README's examples (its crates.io page), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
