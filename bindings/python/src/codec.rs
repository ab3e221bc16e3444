//! The branded id: encode, decode (and its `Decoded` value), validity, order,
//! and the snowflake's fields.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::error::{answer, refused};
use crate::host::{bytes_in, i64_in, text, u64_in, wrong_type};
use crate::time;

/// An id read back: its namespace and snowflake, and the snowflake's fields.
/// Immutable, hashable, ordered as the ids are (namespace, then snowflake).
// A freelist: decode's answer is made and dropped at the rate ids are read.
// (Comparison and hash are methods below: PyO3 0.30 cannot combine a
// freelist with its generated `eq`/`ord`/`hash` slots.)
#[pyclass(freelist = 64, frozen, module = "emq_id", name = "Decoded")]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Decoded {
    ns: [u8; emq_id::NS_LEN],
    snowflake: u64,
}

#[pymethods]
impl Decoded {
    /// The namespace: three letters A-Z.
    #[getter]
    fn ns(&self) -> &str {
        text(&self.ns)
    }

    #[getter]
    fn snowflake(&self) -> u64 {
        self.snowflake
    }

    /// Unix ms of minting.
    #[getter]
    fn unix_ms(&self) -> u64 {
        emq_id::unix_ms(self.snowflake)
    }

    #[getter]
    fn node(&self) -> u16 {
        emq_id::node(self.snowflake)
    }

    #[getter]
    fn seq(&self) -> u16 {
        emq_id::seq(self.snowflake)
    }

    /// The instant of minting as an aware UTC `datetime` (millisecond precision).
    #[getter]
    fn datetime<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_of(py, emq_id::unix_ms(self.snowflake))
    }

    /// Equal and ordered as the ids are: namespace, then snowflake.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        match other.cast::<Decoded>() {
            Ok(other) => PyBool::new(py, op.matches(self.cmp(other.get()))).to_owned().into_any().unbind(),
            Err(_) => py.NotImplemented(),
        }
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        core::hash::Hash::hash(self, &mut hasher);
        core::hash::Hasher::finish(&hasher)
    }

    fn __repr__(&self) -> String {
        format!(
            "Decoded(ns='{}', snowflake={}, unix_ms={}, node={}, seq={})",
            text(&self.ns),
            self.snowflake,
            emq_id::unix_ms(self.snowflake),
            emq_id::node(self.snowflake),
            emq_id::seq(self.snowflake)
        )
    }
}

/// The 14-character id of a namespace (three letters A-Z) and a snowflake below 2**63.
#[pyfunction]
pub fn encode<'py>(ns: &Bound<'py, PyAny>, snowflake: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    let py = ns.py();
    let ns = bytes_in(ns, "ns")?;
    let snowflake = u64_in(snowflake, "snowflake")?;
    let id = answer(py, emq_id::encode(ns.as_bytes(), snowflake))?;
    // From the bytes: CPython checks them once (a `&str` would be checked twice).
    PyString::from_bytes(py, &id)
}

/// Reads an id: `length`, `namespace`, `charset` or `range`, checked in that order.
#[pyfunction]
pub fn decode(text: &Bound<'_, PyAny>) -> PyResult<Decoded> {
    let bytes = bytes_in(text, "text")?;
    let (ns, snowflake) = answer(text.py(), emq_id::decode(bytes.as_bytes()))?;
    Ok(Decoded { ns, snowflake })
}

/// decode's gates, answering `(ns, snowflake)` with no object to build.
#[pyfunction]
pub fn parse(text: &Bound<'_, PyAny>) -> PyResult<(String, u64)> {
    let bytes = bytes_in(text, "text")?;
    let (ns, snowflake) = answer(text.py(), emq_id::decode(bytes.as_bytes()))?;
    Ok((crate::host::text(&ns).to_owned(), snowflake))
}

/// Whether decode would accept the value. Any other value, of any type, is
/// simply not an id: never raises.
#[pyfunction]
pub fn is_valid(text: &Bound<'_, PyAny>) -> bool {
    bytes_in(text, "text").is_ok_and(|b| emq_id::is_valid(b.as_bytes()))
}

/// The order of two ids (namespace, then snowflake: their byte order): -1, 0 or 1.
#[pyfunction]
pub fn compare(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<i8> {
    let (left, right) = (bytes_in(a, "a")?, bytes_in(b, "b")?);
    Ok(answer(a.py(), emq_id::compare(left.as_bytes(), right.as_bytes()))? as i8)
}

/// The contract's 32-bit placement hash of a snowflake.
#[pyfunction]
pub fn hash32(snowflake: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(emq_id::hash32(u64_in(snowflake, "snowflake")?))
}

/// Unix ms of a snowflake's minting.
#[pyfunction]
pub fn unix_ms(snowflake: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(emq_id::unix_ms(u64_in(snowflake, "snowflake")?))
}

/// The node that minted a snowflake.
#[pyfunction]
pub fn node(snowflake: &Bound<'_, PyAny>) -> PyResult<u16> {
    Ok(emq_id::node(u64_in(snowflake, "snowflake")?))
}

/// A snowflake's sequence within its millisecond and node.
#[pyfunction]
pub fn seq(snowflake: &Bound<'_, PyAny>) -> PyResult<u16> {
    Ok(emq_id::seq(u64_in(snowflake, "snowflake")?))
}

/// The smallest snowflake minted at or after `t` (an aware `datetime`, or unix
/// ms as an `int`): 0 before 2024, `range` past 2093. A naive `datetime` is a
/// `ValueError`: it names no instant.
#[pyfunction]
pub fn min_for(t: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = t.py();
    let ms = if !t.is_instance_of::<PyInt>() && time::is_datetime(t)? {
        i64_in(&time::unix_ms_of(t)?, "t")?
    } else {
        i64_in(t, "t").map_err(|e| {
            if e.is_instance_of::<PyTypeError>(py) {
                wrong_type(t, "t", "an aware datetime or int")
            } else {
                e
            }
        })?
    };
    emq_id::min_for(ms).map_err(|e| refused(py, e))
}
