//! The lease keeper's decisions (SPEC.md §5.2, the core's `keeper.rs`): how
//! an error reply to a lease script reads, where a redirect sends a write, and
//! the core's `Keeper` itself, for a Python holder that only moves the bytes
//! (`emq_id.holder`). Outcomes, writes, phases and actions are the core's
//! names (`str`); nothing here is decided twice.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

use crate::error::refused;
use crate::host::{u64_in, wrong_type};
use crate::lease::LeaseTerms;

/// An error reply's text: a `str`, or `bytes` read as UTF-8 (`None`: bytes
/// that are not, which no lease script or redirect is).
fn reply_text(text: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(s) = text.cast::<PyString>() {
        Ok(s.to_cow().ok().map(|c| c.into_owned()))
    } else if let Ok(b) = text.cast::<PyBytes>() {
        Ok(core::str::from_utf8(b.as_bytes()).ok().map(str::to_owned))
    } else {
        Err(wrong_type(text, "text", "str or bytes"))
    }
}

/// The outcome named `name`, else `range` naming the outcomes.
fn outcome_in(py: Python<'_>, name: &str) -> PyResult<emq_id::Outcome> {
    // The core's names, said once per process (a refusal's detail is static).
    static DETAIL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    emq_id::Outcome::from_name(name).ok_or_else(|| {
        let detail = DETAIL.get_or_init(|| {
            let names: Vec<&str> = emq_id::Outcome::ALL.iter().map(|o| o.name()).collect();
            format!("an outcome is one of {}", names.join(", "))
        });
        refused(py, emq_id::Error::from_gate(emq_id::Gate::Range, detail))
    })
}

/// The keeper's names by the stub's alias of each (`_Outcome`, `_Action`,
/// `_Phase`, `_Next`), from the core's lists: the test suite holds the stub's
/// `Literal`s to them (stubtest cannot).
pub fn names(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let names = PyDict::new(py);
    names.set_item("_Outcome", PyTuple::new(py, emq_id::Outcome::ALL.map(emq_id::Outcome::name))?)?;
    names.set_item("_Action", PyTuple::new(py, emq_id::Action::ALL.map(emq_id::Action::name))?)?;
    names.set_item("_Phase", PyTuple::new(py, emq_id::Phase::ALL.map(emq_id::Phase::name))?)?;
    names.set_item("_Next", PyTuple::new(py, emq_id::Next::ALL.map(emq_id::Next::name))?)?;
    Ok(names)
}

/// What an error reply to a lease script (the text after `-`) says of the
/// write: the outcome's name. `asked`: the write was sent after `ASKING`.
#[pyfunction]
pub fn read_lease_error(text: &Bound<'_, PyAny>, asked: bool) -> PyResult<&'static str> {
    let outcome = reply_text(text)?.map_or(emq_id::Outcome::Fault, |t| emq_id::read_lease_error(&t, asked));
    Ok(outcome.name())
}

/// Where a `MOVED` or `ASK` reply sends a write.
#[pyclass(frozen, eq, hash, module = "emq_id", name = "Redirect")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Redirect {
    ask: bool,
    slot: u16,
    host: Option<String>,
    port: u16,
}

#[pymethods]
impl Redirect {
    /// `ASK` (followed once, with `ASKING`) rather than `MOVED`.
    #[getter]
    fn ask(&self) -> bool {
        self.ask
    }

    #[getter]
    fn slot(&self) -> u16 {
        self.slot
    }

    /// The node's host, or `None`: the host the redirected connection was opened to.
    #[getter]
    fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    fn __repr__(&self) -> String {
        let host = self.host.as_ref().map_or("None".to_owned(), |h| format!("'{h}'"));
        format!("Redirect(ask={}, slot={}, host={host}, port={})", py_bool(self.ask), self.slot, self.port)
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The node a `MOVED` or `ASK` reply names; `None` for any other text.
#[pyfunction]
pub fn redirect(text: &Bound<'_, PyAny>) -> PyResult<Option<Redirect>> {
    let text = reply_text(text)?;
    Ok(text.as_deref().and_then(emq_id::redirect).map(|r| Redirect {
        ask: r.ask,
        slot: r.slot,
        host: r.host.map(str::to_owned),
        port: r.port,
    }))
}

/// What to do with a write's outcome, and when the next write is due (ms from now).
#[pyclass(frozen, eq, hash, module = "emq_id", name = "Step")]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Step(emq_id::Step);

impl core::hash::Hash for Step {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.0.action, self.0.after_ms).hash(state);
    }
}

#[pymethods]
impl Step {
    /// The action's name (the core's `Action`): `publish`, `renewed`, `pend`,
    /// `wait`, `lose`, `follow`, `reroute`, `retry`, `reconnect`, `give_up`
    /// or `released`.
    #[getter]
    fn action(&self) -> &'static str {
        self.0.action.name()
    }

    #[getter]
    fn after_ms(&self) -> u64 {
        self.0.after_ms
    }

    fn __repr__(&self) -> String {
        format!("Step(action='{}', after_ms={})", self.0.action.name(), self.0.after_ms)
    }
}

/// A holder's lease, as far as deciding goes (the core's `Keeper`): which
/// write is due, and what each write's outcome means. Monotonic ms throughout
/// (`monotonic_ms()`).
#[pyclass(module = "emq_id", name = "LeaseKeeper")]
pub struct LeaseKeeper(emq_id::Keeper);

#[pymethods]
impl LeaseKeeper {
    /// A keeper of leases on `terms`, before its first acquire, begun at `since_mono_ms`.
    #[new]
    fn new(terms: &Bound<'_, LeaseTerms>, since_mono_ms: &Bound<'_, PyAny>) -> PyResult<LeaseKeeper> {
        let since = u64_in(since_mono_ms, "since_mono_ms")?;
        Ok(LeaseKeeper(emq_id::Keeper::starting(terms.get().0, since)))
    }

    /// The write due at `now_mono_ms`: `acquire`, `renew`, `expired` (the
    /// held lease expired on the server: stop minting on it, then acquire), or
    /// `release` (after `release()`).
    fn next(&mut self, now_mono_ms: &Bound<'_, PyAny>) -> PyResult<&'static str> {
        Ok(self.0.next(u64_in(now_mono_ms, "now_mono_ms")?).name())
    }

    /// Settles a write sent at `sent_mono_ms` that came to `outcome`, read at `now_mono_ms`.
    fn settle(
        &mut self,
        outcome: &str,
        sent_mono_ms: &Bound<'_, PyAny>,
        now_mono_ms: &Bound<'_, PyAny>,
    ) -> PyResult<Step> {
        let outcome = outcome_in(sent_mono_ms.py(), outcome)?;
        let (sent, now) = (u64_in(sent_mono_ms, "sent_mono_ms")?, u64_in(now_mono_ms, "now_mono_ms")?);
        Ok(Step(self.0.settle(outcome, sent, now)))
    }

    /// Begins handing the held or pending lease back: the next write is the
    /// release (`next` answers `release`), which `settle` follows through an
    /// `ASK`, sends again after `MOVED` or a refusal that did not run (a few
    /// tries), and ends with `released` or `give_up`.
    fn release(&mut self) {
        self.0.release();
    }

    /// `starting`, `unleased`, `pending`, `held` or `releasing`.
    #[getter]
    fn phase(&self) -> &'static str {
        self.0.phase().name()
    }

    /// Whether the write about to be sent follows an `ASK`.
    #[getter]
    fn asked(&self) -> bool {
        self.0.asked()
    }

    #[getter]
    fn terms(&self) -> LeaseTerms {
        LeaseTerms(self.0.terms())
    }

    /// The first acquire's refusal when it gives up on `outcome` (an
    /// `EmqIdError`, returned, not raised), or `None` when the refusal is
    /// another's (`parse_wait`'s, or the holder's own fault).
    #[staticmethod]
    fn refusal(py: Python<'_>, outcome: &str) -> PyResult<Option<Py<PyAny>>> {
        let outcome = outcome_in(py, outcome)?;
        Ok(emq_id::Keeper::refusal(outcome).map(|e| refused(py, e).into_value(py).into_any()))
    }

    /// The outcome of a write whose script answered without an error: `held`
    /// (the acquire answered a node, the renewal `1`) and `acknowledged`
    /// (`parse_wait` passed, or no `WAIT` was wanted).
    #[staticmethod]
    fn of_write(held: bool, acknowledged: bool) -> &'static str {
        emq_id::Outcome::of_write(held, acknowledged).name()
    }

    fn __repr__(&self) -> String {
        format!("<LeaseKeeper {}>", self.0.phase().name())
    }
}
