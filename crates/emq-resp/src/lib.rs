//! A minimal, blocking RESP2 client: commands are arrays of byte strings, so
//! keys travel as the exact bytes given (NUL, invalid UTF-8, any length).
//!
//! Why not a client crate: the CLI's `route` and xtask's cluster checks send a
//! handful of commands and must see `MOVED`/`ASK`/`CROSSSLOT` replies raw,
//! where a cluster-aware client would follow or hide them. It is a few hundred
//! lines with no dependency.
//!
//! The server is not trusted (no panic, no hang): [`read_reply`]
//! never panics and allocates only as bytes arrive, under the caps
//! [`MAX_BULK`], [`MAX_ARRAY`], [`MAX_DEPTH`] and [`MAX_LINE`]; every wait of a
//! [`Connection`] is bounded by its [`Timeouts`]; every fault is an
//! `io::Error` that says what was wrong. The lints below hold the non-test
//! code to it.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented,
        clippy::arithmetic_side_effects
    )
)]

mod connection;
mod reply;
mod slots;

pub use connection::{Connection, Timeouts};
pub use reply::{read_reply, Reply, MAX_ARRAY, MAX_BULK, MAX_DEPTH, MAX_LINE};
pub use slots::{owner, slot_map};

#[cfg(test)]
mod tests;
