//! The one place an `emq_id::Error` becomes a Python exception:
//! `emq_id.EmqIdError(gate, message)`, a `ValueError` whose `.gate` is the
//! contract's name (SPEC.md §9). Every call that can be refused raises through
//! [`refused`]; [`_gate_refusal`] lets the gate-coverage test see what the
//! helper makes of each gate of the core.
//!
//! The class is Python (`emq_id/_errors.py`, so it pickles with its gate and
//! reads like any Python exception); this file looks it up once per process.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// The Python module holding the package's exception and warning classes.
pub const ERRORS: &str = "emq_id._errors";

static EMQ_ID_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `EmqIdError(gate, message)` for a refusal of the core: the one error
/// helper. An unacknowledged lease write's counts go to `acknowledged` and `replicas`.
pub fn refused(py: Python<'_>, e: emq_id::Error) -> PyErr {
    let raised = EMQ_ID_ERROR.import(py, ERRORS, "EmqIdError").and_then(|class| {
        let exception = class.call1((e.gate().name(), e.message().to_string()))?;
        if let Some((got, wanted)) = e.acknowledged() {
            exception.setattr("acknowledged", got)?;
            exception.setattr("replicas", wanted)?;
        }
        Ok(exception)
    });
    match raised {
        Ok(exception) => PyErr::from_value(exception),
        // The package's own module could not be imported: say that instead.
        Err(import_failed) => import_failed,
    }
}

/// [`refused`] for a `Result`: the value, or the exception.
pub fn answer<T>(py: Python<'_>, result: emq_id::Result<T>) -> PyResult<T> {
    result.map_err(|e| refused(py, e))
}

/// The mapping's probe: `(name, exception)` for gate `index` of the core's list
/// (`Gate::ALL`, the contract's order): the name as the core spells it and the
/// exception [`refused`] builds for an error of that gate. An index past the
/// last gate is an `IndexError`. The gate-coverage test walks every index, so a
/// gate added to the core fails that test until Python maps it.
#[pyfunction]
pub fn _gate_refusal(py: Python<'_>, index: usize) -> PyResult<(&'static str, Py<PyAny>)> {
    let gate = *emq_id::Gate::ALL
        .get(index)
        .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no gate at this index of the core's list"))?;
    let exception = refused(py, emq_id::Error::from_gate(gate, "the mapping's probe"));
    Ok((gate.name(), exception.into_value(py).into_any()))
}
