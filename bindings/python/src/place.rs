//! Placement on a Valkey Cluster: the slot and hashtag of a key, and the
//! keyspace (`emq-keyspace/2`): builders, the parser, the reserve, prefixes
//! and stream entry ids.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::error::answer;
use crate::host::{bytes_in, text};

/// The Valkey Cluster hash slot (0-16383) of a key's bytes.
#[pyfunction]
pub fn slot(key: &Bound<'_, PyAny>) -> PyResult<u16> {
    Ok(emq_id::slot(bytes_in(key, "key")?.as_bytes()))
}

/// The slots of many keys in one call, the keys hashed with the GIL released.
/// A `str` or `bytes` is one key, not a collection of them: `TypeError`.
#[pyfunction]
pub fn slot_many<'py>(keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let py = keys.py();
    if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
        return Err(crate::host::wrong_type(keys, "keys", "an iterable of keys (str or bytes)"));
    }
    let mut held = Vec::with_capacity(keys.len().unwrap_or(0));
    for key in keys.try_iter()? {
        held.push(bytes_in(&key?, "each key")?);
    }
    let views: Vec<&[u8]> = held.iter().map(|k| k.as_bytes()).collect();
    let slots: Vec<u16> = py.detach(|| views.iter().map(|k| emq_id::slot(k)).collect());
    PyList::new(py, slots)
}

/// The part of the key the cluster hashes: a `str` for a `str` key, `bytes` for `bytes`.
#[pyfunction]
pub fn hashtag<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = key.py();
    let bytes = bytes_in(key, "key")?;
    let tag = emq_id::hashtag(bytes.as_bytes());
    if tag.len() == bytes.as_bytes().len() {
        return Ok(key.clone()); // the whole key: the same object
    }
    Ok(if key.is_instance_of::<PyString>() {
        // Braces are ASCII, so the tag of a str's UTF-8 is whole characters.
        PyString::new(py, text(tag)).into_any()
    } else {
        PyBytes::new(py, tag).into_any()
    })
}

/// A key of `queue` from its type as the bus writes it (`pending`,
/// `g:vip:pending`, `job:<id>:lock`); the emq-keyspace/1 form
/// `key(queue, "job", id)` is kept. `queue`, then `kind` or the id's gate.
#[pyfunction]
#[pyo3(signature = (queue, r#type, id = None))]
pub fn key(queue: &Bound<'_, PyAny>, r#type: &Bound<'_, PyAny>, id: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let (q, t) = (bytes_in(queue, "queue")?, bytes_in(r#type, "type")?);
    let id = id.map(|i| bytes_in(i, "id")).transpose()?;
    let built = emq_id::key(q.as_bytes(), t.as_bytes(), id.as_ref().map(|i| i.as_bytes()));
    Ok(answer(queue.py(), built)?.as_str().to_owned())
}

/// `emq:{queue}:<kind>` for a type without an id (`pending`, `g:vip:pending`, …).
#[pyfunction]
pub fn queue_key(queue: &Bound<'_, PyAny>, kind: &Bound<'_, PyAny>) -> PyResult<String> {
    let (q, k) = (bytes_in(queue, "queue")?, bytes_in(kind, "kind")?);
    Ok(answer(queue.py(), emq_id::key(q.as_bytes(), k.as_bytes(), None))?.as_str().to_owned())
}

/// `emq:{queue}:job:<id>`; the id must be a valid `JOB` id (else its gate, or `kind`).
#[pyfunction]
pub fn job_key(queue: &Bound<'_, PyAny>, id: &Bound<'_, PyAny>) -> PyResult<String> {
    let (q, i) = (bytes_in(queue, "queue")?, bytes_in(id, "id")?);
    Ok(answer(queue.py(), emq_id::job_key(q.as_bytes(), i.as_bytes()))?.as_str().to_owned())
}

/// A queue key read back: its queue, its family as a pattern (`g:<name>:pending`)
/// and its parameter (`None` for a family that takes none).
#[pyclass(frozen, eq, hash, module = "emq_id", name = "ParsedKey")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ParsedKey {
    #[pyo3(get)]
    queue: String,
    #[pyo3(get)]
    family: String,
    #[pyo3(get)]
    param: Option<String>,
}

#[pymethods]
impl ParsedKey {
    fn __repr__(&self) -> String {
        // Queue, family and parameter are ASCII without quotes (the keyspace's grammar).
        let param = self.param.as_ref().map_or("None".to_owned(), |p| format!("'{p}'"));
        format!("ParsedKey(queue='{}', family='{}', param={param})", self.queue, self.family)
    }
}

/// Reads a queue key back (the exact inverse of `key`): `queue` when it is not
/// `emq:{Q}:<type>`, else the type's error.
#[pyfunction]
pub fn parse_key(key: &Bound<'_, PyAny>) -> PyResult<ParsedKey> {
    let bytes = bytes_in(key, "key")?;
    let parsed = answer(key.py(), emq_id::parse_key(bytes.as_bytes()))?;
    Ok(ParsedKey {
        queue: text(parsed.queue).to_owned(),
        family: parsed.family.pattern().to_string(),
        param: parsed.param.map(|p| text(p).to_owned()),
    })
}

/// The reserve's cross-queue key `{emq}:<name>`; `kind` for a bad name.
#[pyfunction]
pub fn reserve(name: &Bound<'_, PyAny>) -> PyResult<String> {
    let n = bytes_in(name, "name")?;
    Ok(answer(name.py(), emq_id::reserve(n.as_bytes()))?.as_str().to_owned())
}

/// `emq:{queue}:`, the prefix every key of a queue starts with (the bus's scripts append a type to it).
#[pyfunction]
pub fn queue_prefix(queue: &Bound<'_, PyAny>) -> PyResult<String> {
    let q = bytes_in(queue, "queue")?;
    Ok(answer(queue.py(), emq_id::queue_prefix(q.as_bytes()))?.as_str().to_owned())
}

/// `emq:{queue}:job:`, the prefix the bus's scripts append job ids to.
#[pyfunction]
pub fn job_prefix(queue: &Bound<'_, PyAny>) -> PyResult<String> {
    let q = bytes_in(queue, "queue")?;
    Ok(answer(queue.py(), emq_id::job_prefix(q.as_bytes()))?.as_str().to_owned())
}

/// The bytes a family's keys spend before their parameter (type `job:`, `g:`, … or a fixed type).
#[pyfunction]
pub fn prefix_bytes(queue: &Bound<'_, PyAny>, r#type: &Bound<'_, PyAny>) -> PyResult<usize> {
    let (q, t) = (bytes_in(queue, "queue")?, bytes_in(r#type, "type")?);
    answer(queue.py(), emq_id::prefix_bytes(q.as_bytes(), t.as_bytes()))
}

/// The stream entry id `<unix_ms>-<tail22>` of an `EVT` id; `kind` for another namespace.
#[pyfunction]
pub fn xadd_id(id: &Bound<'_, PyAny>) -> PyResult<String> {
    let i = bytes_in(id, "id")?;
    Ok(answer(id.py(), emq_id::xadd_id(i.as_bytes()))?.as_str().to_owned())
}

/// The id (namespace `ns`, by default the core's `EVT`) behind a stream entry
/// id: `charset` or `range` when no id has it.
#[pyfunction]
#[pyo3(signature = (entry, ns = None))]
pub fn from_xadd_id(entry: &Bound<'_, PyAny>, ns: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let e = bytes_in(entry, "entry")?;
    let ns = ns.map(|n| bytes_in(n, "ns")).transpose()?;
    let ns = ns.as_ref().map_or(&emq_id::EVENT_NS[..], |n| n.as_bytes());
    Ok(answer(entry.py(), emq_id::from_xadd_id(e.as_bytes(), ns))?.to_string())
}
