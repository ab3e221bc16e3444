//! Instants between Python and the core: an aware `datetime` is the unix
//! milliseconds it names (floored, so an id minted at or after it is at or
//! after its millisecond), and unix milliseconds are an aware UTC `datetime`.
//! Exact integer arithmetic on `timedelta`s, never floats. The `datetime` C
//! API is outside the stable ABI, so these are Python-level calls on objects
//! looked up once.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

/// `datetime.datetime`, the Unix epoch as an aware UTC `datetime`, and `timedelta(milliseconds=1)`.
struct Datetime {
    class: Py<PyAny>,
    epoch: Py<PyAny>,
    millisecond: Py<PyAny>,
}

static DATETIME: PyOnceLock<Datetime> = PyOnceLock::new();

fn datetime(py: Python<'_>) -> PyResult<&Datetime> {
    DATETIME.get_or_try_init(py, || {
        let module = py.import("datetime")?;
        let class = module.getattr("datetime")?;
        let utc = module.getattr("timezone")?.getattr("utc")?;
        let epoch = class.call1((1970, 1, 1, 0, 0, 0, 0, utc))?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("milliseconds", 1)?;
        let millisecond = module.getattr("timedelta")?.call((), Some(&kwargs))?;
        Ok(Datetime { class: class.unbind(), epoch: epoch.unbind(), millisecond: millisecond.unbind() })
    })
}

/// Whether `value` is a `datetime.datetime` (or a subclass).
pub fn is_datetime(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value.is_instance(datetime(value.py())?.class.bind(value.py()))
}

/// The unix ms an aware `datetime` names, floored. A naive one names no
/// instant (it is a wall-clock reading in an unknown zone): `ValueError`.
pub fn unix_ms_of<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    if value.call_method0("utcoffset")?.is_none() {
        return Err(PyValueError::new_err(
            "a naive datetime names no instant (its time zone is unknown): give it a tzinfo, \
             e.g. datetime.now(timezone.utc) or dt.replace(tzinfo=timezone.utc)",
        ));
    }
    let dt = datetime(py)?;
    value.sub(dt.epoch.bind(py))?.floor_div(dt.millisecond.bind(py))
}

/// The aware UTC `datetime` of unix ms `ms`.
pub fn datetime_of(py: Python<'_>, ms: u64) -> PyResult<Bound<'_, PyAny>> {
    let dt = datetime(py)?;
    dt.epoch.bind(py).add(dt.millisecond.bind(py).mul(ms)?)
}
