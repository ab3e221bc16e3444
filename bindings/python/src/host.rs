//! Python values in, the core's types out (SPEC.md §9, Python's column):
//!
//! - bytes in (ids, keys, queues, types, names, namespaces, entry ids) are a
//!   `str`, taken as its UTF-8, or `bytes`, taken as they are. A `str` holding
//!   a lone surrogate has no UTF-8: it raises `UnicodeEncodeError` (a
//!   `ValueError`), as `str.encode()` and redis-py's encoder do, never a
//!   silently replaced key. Anything else is a `TypeError`.
//! - integers are `int` (or any object with `__index__`, such as numpy's); one
//!   outside the core's type (`0..2**64-1` for snowflakes, `-2**63..2**63-1`
//!   for clock readings) is the contract's `range`, never an `OverflowError`
//!   and never wrapped. `bool` and `float` are `TypeError`s: neither is a
//!   snowflake, a node or a clock reading.

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};

use crate::error::refused;

/// The bytes a `str` or `bytes` argument stands for. A `bytes` argument is
/// borrowed as it is; a `str` is encoded to UTF-8 once (below 3.10 the stable
/// ABI has no view of a `str`'s UTF-8).
pub fn bytes_in<'py>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(text) = value.cast::<PyString>() {
        text.encode_utf8()
    } else if let Ok(raw) = value.cast::<PyBytes>() {
        Ok(raw.clone())
    } else {
        Err(wrong_type(value, name, "str or bytes"))
    }
}

/// `TypeError: <name> must be <wanted>, not <type>`.
pub fn wrong_type(value: &Bound<'_, PyAny>, name: &str, wanted: &str) -> PyErr {
    let got = value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("{name} must be {wanted}, not {got}"))
}

/// An integer argument as the core's type `T`: `range` outside it, `TypeError`
/// for a value that is not an integer (or is a `bool`).
fn int_in<'py, T>(value: &Bound<'py, PyAny>, name: &str, outside: &'static str) -> PyResult<T>
where
    T: for<'a> FromPyObject<'a, 'py, Error = PyErr>,
{
    if value.is_instance_of::<PyBool>() {
        return Err(wrong_type(value, name, "int"));
    }
    value.extract::<T>().map_err(|e| {
        let py = value.py();
        if e.is_instance_of::<PyOverflowError>(py) {
            refused(py, emq_id::Error::from_gate(emq_id::Gate::Range, outside))
        } else if e.is_instance_of::<PyTypeError>(py) {
            wrong_type(value, name, "int")
        } else {
            e
        }
    })
}

/// A 64-bit value (snowflake, mint state, mark): `0..2**64-1`.
pub fn u64_in(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    const OUTSIDE: &str = "a 64-bit value is an int in 0..2**64-1";
    // Every snowflake is below 2**63: read it as a signed value first, which
    // CPython does digit by digit (its unsigned 64-bit reader goes through a
    // byte array, three times slower), and only a value past 2**63 - 1 the other way.
    match int_in::<i64>(value, name, OUTSIDE) {
        Ok(v) => {
            u64::try_from(v).map_err(|_| refused(value.py(), emq_id::Error::from_gate(emq_id::Gate::Range, OUTSIDE)))
        }
        Err(e) if e.is_instance_of::<PyTypeError>(value.py()) => Err(e),
        Err(_) => int_in(value, name, OUTSIDE),
    }
}

/// A signed instant or reply (unix ms, a clock reading, a script's reply): `-2**63..2**63-1`.
pub fn i64_in(value: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    int_in(value, name, "an instant or a reply is an int in -2**63..2**63-1")
}

/// A node (`0..=MAX_NODE` is the core's to decide): anything past `u16` is
/// above `MAX_NODE` either way, so the core's own `range` answers it.
pub fn node_in(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u16> {
    Ok(u16::try_from(u64_in(value, name)?).unwrap_or(u16::MAX))
}

/// A count of replicas (`WAIT`'s numreplicas, the core's `u32`): `0..2**32-1`.
pub fn replicas_in(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u32> {
    int_in(value, name, "a count of replicas is an int in 0..2**32-1")
}

/// A count of things to make: `0..` (a negative is `range`).
pub fn count_in(value: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    int_in(value, name, "a count is an int of at least 0")
}

/// ASCII text the core built (ids, keys, entry ids) as a `str`.
pub fn text(bytes: &[u8]) -> &str {
    core::str::from_utf8(bytes).unwrap_or_default()
}
