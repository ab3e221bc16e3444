//! Node leases on Valkey (`emq-lease/3`, SPEC.md §5.2): the core's scripts,
//! reply parsers, terms and leased minter, for a Python host that runs the
//! scripts through its own client (redis-py, valkey-py); the lease key,
//! `LEASE_KEY`, is one of the core's texts (`lib.rs` adds them). Nothing here
//! talks to Valkey or decides anything; every refusal is the core's, through
//! `refused`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

use crate::error::{answer, refused};
use crate::host::{i64_in, replicas_in, u64_in};

/// One of the protocol's Lua scripts, byte for byte the core's, with what its
/// `KEYS` and `ARGV` hold.
#[pyclass(frozen, module = "emq_id", name = "LeaseScript")]
pub struct LeaseScript(emq_id::Script);

#[pymethods]
impl LeaseScript {
    /// `acquire`, `renew` or `release`.
    #[getter]
    fn name(&self) -> &'static str {
        self.0.name
    }

    /// The Lua source.
    #[getter]
    fn text(&self) -> &'static str {
        self.0.text
    }

    /// What `KEYS` holds, in order.
    #[getter]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.keys)
    }

    /// What `ARGV` holds, in order.
    #[getter]
    fn args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.args)
    }

    fn __repr__(&self) -> String {
        format!("<LeaseScript {}>", self.0.name)
    }
}

/// `{name: LeaseScript}` for the core's scripts, in their order (`acquire`, `renew`, `release`).
pub fn scripts(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let scripts = PyDict::new(py);
    for script in emq_id::SCRIPTS {
        scripts.set_item(script.name, LeaseScript(script))?;
    }
    Ok(scripts)
}

/// The acquire script's reply, read: the node taken, and the mark its previous
/// owners left (`None` for a node never leased).
#[pyclass(frozen, eq, hash, module = "emq_id", name = "Acquired")]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Acquired(emq_id::Acquired);

impl core::hash::Hash for Acquired {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.0.node, self.0.previous_mark).hash(state);
    }
}

#[pymethods]
impl Acquired {
    #[getter]
    fn node(&self) -> u16 {
        self.0.node
    }

    /// Unix ms, or `None`.
    #[getter]
    fn previous_mark(&self) -> Option<u64> {
        self.0.previous_mark
    }

    fn __repr__(&self) -> String {
        let mark = self.0.previous_mark.map_or("None".to_owned(), |m| m.to_string());
        format!("Acquired(node={}, previous_mark={mark})", self.0.node)
    }
}

/// Reads the acquire script's reply `[node, previous]`; `range` for a reply the script cannot give.
#[pyfunction]
pub fn parse_acquire(node: &Bound<'_, PyAny>, previous: &Bound<'_, PyAny>) -> PyResult<Acquired> {
    let (n, p) = (i64_in(node, "node")?, i64_in(previous, "previous")?);
    Ok(Acquired(answer(node.py(), emq_id::parse_acquire(n, p))?))
}

/// The `node` refusal (an `EmqIdError`, returned, not raised) when an acquire's
/// error message says every node is leased; `None` for any other error (the
/// connection's or the server's, not the protocol's). Bytes that are not UTF-8
/// are not the script's.
#[pyfunction]
pub fn parse_acquire_error(message: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
    let py = message.py();
    let text = if let Ok(s) = message.cast::<PyString>() {
        s.to_cow().ok().map(|c| c.into_owned())
    } else if let Ok(b) = message.cast::<PyBytes>() {
        core::str::from_utf8(b.as_bytes()).ok().map(str::to_owned)
    } else {
        return Err(crate::host::wrong_type(message, "message", "str or bytes"));
    };
    Ok(text.as_deref().and_then(emq_id::parse_acquire_error).map(|e| refused(py, e).into_value(py).into_any()))
}

/// Reads the renew or release script's reply: returns on 1, raises `node` on 0 (the lease is lost).
#[pyfunction]
pub fn parse_renewal(reply: &Bound<'_, PyAny>) -> PyResult<()> {
    let r = i64_in(reply, "reply")?;
    answer(reply.py(), emq_id::parse_renewal(r))
}

/// Reads the reply of `WAIT replicas timeout` sent after a lease write:
/// returns when at least `replicas` replicas acknowledged it, raises `node`
/// for fewer (with `acknowledged` and `replicas` on the error), `range` for a
/// negative reply.
#[pyfunction]
pub fn parse_wait(acknowledged: &Bound<'_, PyAny>, replicas: &Bound<'_, PyAny>) -> PyResult<()> {
    let (got, wanted) = (i64_in(acknowledged, "acknowledged")?, replicas_in(replicas, "replicas")?);
    answer(acknowledged.py(), emq_id::parse_wait(got, wanted))
}

/// How long a lease lives and how early its owner stops minting (ms):
/// TTL 3 ms to a day, margin at least 1 ms and at most two thirds of the TTL.
#[pyclass(frozen, eq, hash, module = "emq_id", name = "LeaseTerms")]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct LeaseTerms(pub emq_id::LeaseTerms);

impl core::hash::Hash for LeaseTerms {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.0.ttl_ms, self.0.margin_ms).hash(state);
    }
}

#[pymethods]
impl LeaseTerms {
    /// Terms the core accepts, else `range`.
    #[new]
    fn new(ttl_ms: &Bound<'_, PyAny>, margin_ms: &Bound<'_, PyAny>) -> PyResult<LeaseTerms> {
        let (ttl, margin) = (u64_in(ttl_ms, "ttl_ms")?, u64_in(margin_ms, "margin_ms")?);
        Ok(LeaseTerms(answer(ttl_ms.py(), emq_id::LeaseTerms::new(ttl, margin))?))
    }

    /// The default margin for a TTL, kept to a sixth of a short TTL.
    #[staticmethod]
    fn for_ttl(ttl_ms: &Bound<'_, PyAny>) -> PyResult<LeaseTerms> {
        let ttl = u64_in(ttl_ms, "ttl_ms")?;
        Ok(LeaseTerms(answer(ttl_ms.py(), emq_id::LeaseTerms::for_ttl(ttl))?))
    }

    /// The core's default terms: 30 s leases, fenced 5 s early.
    #[classattr]
    #[allow(non_snake_case)]
    fn DEFAULT() -> LeaseTerms {
        LeaseTerms(emq_id::LeaseTerms::DEFAULT)
    }

    #[getter]
    fn ttl_ms(&self) -> u64 {
        self.0.ttl_ms
    }

    #[getter]
    fn margin_ms(&self) -> u64 {
        self.0.margin_ms
    }

    /// The timeout (ms) of the `WAIT` sent after a lease write under these terms.
    #[getter]
    fn wait_ms(&self) -> u64 {
        self.0.wait_ms()
    }

    /// How often a held lease is renewed (ms): a third of the TTL.
    #[getter]
    fn renew_every_ms(&self) -> u64 {
        self.0.renew_every_ms()
    }

    /// How soon a write that did not count is tried again (ms): a twentieth of the TTL, 10 to 250.
    #[getter]
    fn retry_ms(&self) -> u64 {
        self.0.retry_ms()
    }

    fn __repr__(&self) -> String {
        format!("LeaseTerms(ttl_ms={}, margin_ms={})", self.0.ttl_ms, self.0.margin_ms)
    }
}

/// A minter on a leased node: it starts after the node's previous mark, never
/// mints past the mark it stored, and raises `node` once its fence closes (the
/// lease not renewed in time). Shared between threads: the renewer updates it
/// while others mint.
#[pyclass(frozen, module = "emq_id", name = "LeasedMinter")]
pub struct LeasedMinter(emq_id::LeasedMinter);

#[pymethods]
impl LeasedMinter {
    /// The minter of a lease acquired with `now_ms` as the script's `now`, the
    /// acquire sent at monotonic `sent_mono_ms` (`monotonic_ms()`).
    #[new]
    #[pyo3(signature = (acquired, now_ms, sent_mono_ms, terms = None))]
    fn new(
        acquired: &Bound<'_, Acquired>,
        now_ms: &Bound<'_, PyAny>,
        sent_mono_ms: &Bound<'_, PyAny>,
        terms: Option<&Bound<'_, LeaseTerms>>,
    ) -> PyResult<LeasedMinter> {
        let (now, sent) = (i64_in(now_ms, "now_ms")?, u64_in(sent_mono_ms, "sent_mono_ms")?);
        let terms = terms.map_or(emq_id::LeaseTerms::DEFAULT, |t| t.get().0);
        let started = emq_id::LeasedMinter::start(acquired.get().0, now, sent, terms);
        Ok(LeasedMinter(answer(now_ms.py(), started)?))
    }

    /// The leased node.
    #[getter]
    fn node(&self) -> u16 {
        self.0.node()
    }

    /// The lease's terms.
    #[getter]
    fn terms(&self) -> LeaseTerms {
        LeaseTerms(self.0.terms())
    }

    /// Mints with the system clock and `monotonic_ms()`.
    fn next(&self, py: Python<'_>) -> PyResult<u64> {
        answer(py, self.0.next())
    }

    /// Mints with a wall-clock reading (unix ms) at monotonic `mono_ms`.
    fn next_at(&self, now_ms: &Bound<'_, PyAny>, mono_ms: &Bound<'_, PyAny>) -> PyResult<u64> {
        let (now, mono) = (i64_in(now_ms, "now_ms")?, u64_in(mono_ms, "mono_ms")?);
        answer(now_ms.py(), self.0.next_at(now, mono))
    }

    /// The mark to send with the renew script at `now_ms`.
    fn next_mark(&self, now_ms: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self.0.next_mark(i64_in(now_ms, "now_ms")?))
    }

    /// Records a renewal the server accepted: sent at monotonic `sent_mono_ms`, carrying `mark`.
    fn renewed(&self, sent_mono_ms: &Bound<'_, PyAny>, mark: &Bound<'_, PyAny>) -> PyResult<()> {
        self.0.renewed(u64_in(sent_mono_ms, "sent_mono_ms")?, u64_in(mark, "mark")?);
        Ok(())
    }

    /// Closes the fence now and for good (a lost renewal, or the owner releasing).
    fn stop(&self) {
        self.0.stop();
    }

    /// The last millisecond minted in: what the release script stores as the mark.
    #[getter]
    fn high_water(&self) -> u64 {
        self.0.high_water()
    }

    /// The monotonic ms from which minting is refused.
    #[getter]
    fn fence_ms(&self) -> u64 {
        self.0.fence_ms()
    }

    fn __repr__(&self) -> String {
        format!("LeasedMinter(node={}, fence_ms={})", self.0.node(), self.0.fence_ms())
    }
}

/// Milliseconds on this process's monotonic clock (the core's): the fence's clock.
#[pyfunction]
pub fn monotonic_ms() -> u64 {
    emq_id::monotonic_ms()
}
