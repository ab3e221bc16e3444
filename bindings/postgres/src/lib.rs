//! `CREATE EXTENSION emq_id`: the emq-id contract in PostgreSQL, through pgrx.
//!
//! - [`error`]: the one place an `emq_id::Error` becomes an `ERROR` (SQLSTATE
//!   22P02 for text that is not an id, 22P03 for such binary input, 22023 for
//!   other values; the gate opens the message), shown to SQL by `emq_gates()`.
//! - [`scalar`]: functions over `bigint` snowflakes, `text` ids, `bytea` keys.
//! - [`keyspace`]: keys read back, the reserve, prefixes, stream entry ids.
//! - [`mint`]: minting from a state in shared memory, one per server; a standby refuses.
//! - [`mark`]: the durable high-water mark no id passes, kept by a background worker.
//! - [`branded`]: the `branded_id` type (12 bytes, fixed size) with btree and hash opclasses.
//! - [`check`]: the self-check at `CREATE EXTENSION`: the core's vectors through the SQL functions.
//!
//! Every function only translates between SQL values and the core.
//!
//! Every SQL object the extension creates carries a `COMMENT ON` for its users
//! (`\df+`, `\dT+`, the generated SQL reference), written beside its
//! definition: in the same SQL for objects declared in SQL, and as an
//! `extension_sql!` that `requires` the function right after each
//! `#[pg_extern]`, because pgrx 0.18 does not turn `///` into a `COMMENT ON`.
//! The live tests fail naming any object without one
//! (`xtask/src/runtimes/postgres/comments.rs`).

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod branded;
mod check;
mod error;
pub mod keyspace;
pub mod mark;
pub mod mint;
pub mod scalar;

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    mint::init();
}

/// Required by pgrx's test harness (unused: the tests run against a live server from xtask).
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
