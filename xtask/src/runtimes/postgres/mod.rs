//! The PostgreSQL 15 extension (bindings/postgres, pgrx): its prerequisites,
//! its build and install, a throwaway server, the `postgres` target's SQL
//! adapter, the live tests beyond the vector file (standbys, crashes and
//! failovers among them), the `COMMENT ON` of every object and the SQL
//! reference generated from them, and its benchmark.

pub mod adapter;
pub mod bench;
pub mod binary_copy;
pub mod build;
pub mod clock;
pub mod comments;
pub mod dist;
pub mod faults;
pub mod regress;
pub mod server;
pub mod setup;
pub mod standby;
pub mod tests;

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";
const PG_CONFIG: &str = "/usr/lib/postgresql/15/bin/pg_config";
pub const EXTENSION: &str = "bindings/postgres";
