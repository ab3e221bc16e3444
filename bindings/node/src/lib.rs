//! The Node.js binding of emq-id: a thin napi-rs layer over the core.
//!
//! [`convert`] moves values across the boundary without heap allocation on
//! the hot paths (BigInt ⇄ u64 directly, strings into a stack buffer, bytes
//! borrowed from the Uint8Array); [`error`] is the one place an `emq_id::Error`
//! becomes a JS error whose `code` is the gate. The functions only translate.
#![deny(clippy::all)]
// napi-derive registers the exports only outside `cfg(test)`.
#![cfg_attr(test, allow(dead_code))]

mod api;
mod contract;
mod convert;
mod error;
#[cfg(feature = "bench")]
mod floors;
mod keeper;
mod lease;
mod minter;
mod raw;
