//! The C ABI of emq-id. One file per concept: [`status`] (the one status
//! type and the panic guard), [`codec`] (the bus's four `branded_*` symbols),
//! [`place`] (slot and hashtag), [`keyspace`], [`mint`], [`process`] (the
//! process-wide minter and its node), [`lease`] (node leases on Valkey), [`keeper`] (the lease
//! keeper's decisions: what a holder writes next, and what a write came to), [`stream`] (entry ids),
//! [`contract`] (gates, self-check vectors, validity and order) and [`check`];
//! built for the Go module's WebAssembly host, `wasm_host` (what the host supplies and calls).
//!
//! Every function here is a thin translation: pointers to slices, the core's
//! `Error` to a status. No logic of the contract lives in this crate.
#![allow(non_camel_case_types)]
#![deny(missing_docs)]

pub mod check;
pub mod codec;
pub mod contract;
pub mod keeper;
pub mod keyspace;
pub mod lease;
pub mod mint;
pub mod place;
pub mod process;
pub mod status;
pub mod stream;
#[cfg(all(target_arch = "wasm32", feature = "go-wasm"))]
pub mod wasm_host;

#[cfg(test)]
mod tests {
    use crate::status::{branded_status::*, guard, guard_value};

    #[test]
    fn a_panic_becomes_a_status_not_an_unwind() {
        assert_eq!(guard(|| panic!("bug")), EMQ_ERR_PANIC);
        assert_eq!(guard_value::<i64>(|| panic!("bug")), -(EMQ_ERR_PANIC as i64));
        assert_eq!(guard_value(|| Err::<i64, _>(BRANDED_ERR_RANGE)), -4);
        assert_eq!(guard_value(|| Ok::<i64, _>(7)), 7);
    }
}
