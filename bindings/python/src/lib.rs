//! `emq_id._emq_id`: the CPython extension over emq-id (PyO3, the stable ABI
//! of CPython 3.9 and later), imported by the Python package `emq_id`
//! (`python/emq_id`), which re-exports it, runs the contract's self-check
//! through it and registers the fork handler.
//!
//! Each function converts Python values to the core's types and back
//! (`host.rs`, the one place Python's types are decided) and every refusal
//! becomes `EmqIdError` through one helper (`error.rs`). The contract's facts
//! (limits, names, gates, self-check vectors) are the core's tables, added to
//! the module here, so Python copies none. `codec.rs` holds the id, `place.rs`
//! slots and the keyspace, `mint.rs` the minters, `lease.rs` node leases,
//! `keeper.rs` the lease keeper's decisions, `time.rs` the `datetime`
//! conversions.
//!
//! A panic inside a call reaches Python as `pyo3_runtime.PanicException` in
//! the caller; the interpreter lives on.

use pyo3::prelude::*;

mod codec;
mod error;
mod host;
mod keeper;
mod lease;
mod mint;
mod place;
mod time;

/// A call that does nothing: the floor under every call, for the benchmark;
/// only in a build with the `bench` feature, which no wheel ships.
#[cfg(feature = "bench")]
#[pyfunction]
fn _noop(_value: &Bound<'_, PyAny>) {}

// The extension module (a `//` comment: a doc comment would become its
// `__doc__`). Each `use` below exports what it names; `init` adds the
// contract's facts from the core's tables.
#[pymodule(name = "_emq_id")]
mod extension {
    use pyo3::prelude::*;
    use pyo3::types::PyTuple;

    #[cfg(feature = "bench")]
    #[pymodule_export]
    use super::_noop;
    #[pymodule_export]
    use super::codec::{compare, decode, encode, hash32, is_valid, min_for, node, parse, seq, unix_ms, Decoded};
    #[pymodule_export]
    use super::error::_gate_refusal;
    #[pymodule_export]
    use super::keeper::{read_lease_error, redirect, LeaseKeeper, Redirect, Step};
    #[pymodule_export]
    use super::lease::{
        monotonic_ms, parse_acquire, parse_acquire_error, parse_renewal, parse_wait, Acquired, LeaseScript, LeaseTerms,
        LeasedMinter,
    };
    #[pymodule_export]
    use super::mint::{_claim_fd, _forked, mint, mint_step, process_node, set_node, Minter};
    #[pymodule_export]
    use super::place::{
        from_xadd_id, hashtag, job_key, job_prefix, key, parse_key, prefix_bytes, queue_key, queue_prefix, reserve,
        slot, slot_many, xadd_id, ParsedKey,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let py = m.py();
        // The package's version is the workspace's: maturin gives the wheel this crate's.
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        for (name, value) in emq_id::NUMBERS {
            m.add(*name, *value)?;
        }
        for (name, value) in emq_id::TEXTS {
            m.add(*name, *value)?;
        }
        let names: Vec<&str> = emq_id::NUMBERS.iter().map(|f| f.0).chain(emq_id::TEXTS.iter().map(|f| f.0)).collect();
        m.add("_FACTS", PyTuple::new(py, names)?)?;
        m.add("GATES", PyTuple::new(py, emq_id::Gate::ALL.iter().map(|g| g.name()))?)?;
        m.add("SELF_CHECK_VECTORS", emq_id::SELF_CHECK_VECTORS)?;
        m.add("_KEEPER_NAMES", super::keeper::names(py)?)?;
        let mappingproxy = py.import("types")?.getattr("MappingProxyType")?;
        m.add("LEASE_SCRIPTS", mappingproxy.call1((super::lease::scripts(py)?,))?)?;
        Ok(())
    }
}
