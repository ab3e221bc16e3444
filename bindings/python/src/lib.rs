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
//! `time.rs` the `datetime` conversions.
//!
//! A panic inside a call reaches Python as `pyo3_runtime.PanicException` in
//! the caller; the interpreter lives on.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

mod codec;
mod error;
mod host;
mod lease;
mod mint;
mod place;
mod time;

/// A call that does nothing: the floor under every call, for the benchmark;
/// only in a build with the `bench` feature, which no wheel ships.
#[cfg(feature = "bench")]
#[pyfunction]
fn _noop(_value: &Bound<'_, PyAny>) {}

#[pymodule]
#[pyo3(name = "_emq_id")]
fn extension(m: &Bound<'_, PyModule>) -> PyResult<()> {
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
    let mappingproxy = py.import("types")?.getattr("MappingProxyType")?;
    m.add("LEASE_SCRIPTS", mappingproxy.call1((lease::scripts(py)?,))?)?;

    m.add_class::<codec::Decoded>()?;
    m.add_function(wrap_pyfunction!(codec::encode, m)?)?;
    m.add_function(wrap_pyfunction!(codec::decode, m)?)?;
    m.add_function(wrap_pyfunction!(codec::parse, m)?)?;
    m.add_function(wrap_pyfunction!(codec::is_valid, m)?)?;
    m.add_function(wrap_pyfunction!(codec::compare, m)?)?;
    m.add_function(wrap_pyfunction!(codec::hash32, m)?)?;
    m.add_function(wrap_pyfunction!(codec::unix_ms, m)?)?;
    m.add_function(wrap_pyfunction!(codec::node, m)?)?;
    m.add_function(wrap_pyfunction!(codec::seq, m)?)?;
    m.add_function(wrap_pyfunction!(codec::min_for, m)?)?;

    m.add_class::<place::ParsedKey>()?;
    m.add_function(wrap_pyfunction!(place::slot, m)?)?;
    m.add_function(wrap_pyfunction!(place::slot_many, m)?)?;
    m.add_function(wrap_pyfunction!(place::hashtag, m)?)?;
    m.add_function(wrap_pyfunction!(place::key, m)?)?;
    m.add_function(wrap_pyfunction!(place::queue_key, m)?)?;
    m.add_function(wrap_pyfunction!(place::job_key, m)?)?;
    m.add_function(wrap_pyfunction!(place::parse_key, m)?)?;
    m.add_function(wrap_pyfunction!(place::reserve, m)?)?;
    m.add_function(wrap_pyfunction!(place::queue_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(place::job_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(place::prefix_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(place::xadd_id, m)?)?;
    m.add_function(wrap_pyfunction!(place::from_xadd_id, m)?)?;

    m.add_class::<mint::Minter>()?;
    m.add_function(wrap_pyfunction!(mint::mint_step, m)?)?;
    m.add_function(wrap_pyfunction!(mint::mint, m)?)?;
    m.add_function(wrap_pyfunction!(mint::process_node, m)?)?;
    m.add_function(wrap_pyfunction!(mint::set_node, m)?)?;
    m.add_function(wrap_pyfunction!(mint::_forked, m)?)?;
    m.add_function(wrap_pyfunction!(mint::_claim_fd, m)?)?;

    m.add_class::<lease::LeaseScript>()?;
    m.add_class::<lease::Acquired>()?;
    m.add_class::<lease::LeaseTerms>()?;
    m.add_class::<lease::LeasedMinter>()?;
    m.add_function(wrap_pyfunction!(lease::lease_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(lease::lease_key, m)?)?;
    m.add_function(wrap_pyfunction!(lease::mark_key, m)?)?;
    m.add_function(wrap_pyfunction!(lease::parse_acquire, m)?)?;
    m.add_function(wrap_pyfunction!(lease::parse_acquire_error, m)?)?;
    m.add_function(wrap_pyfunction!(lease::parse_renewal, m)?)?;
    m.add_function(wrap_pyfunction!(lease::parse_wait, m)?)?;
    m.add_function(wrap_pyfunction!(lease::monotonic_ms, m)?)?;

    m.add_function(wrap_pyfunction!(error::_gate_refusal, m)?)?;
    #[cfg(feature = "bench")]
    m.add_function(wrap_pyfunction!(_noop, m)?)?;
    Ok(())
}
