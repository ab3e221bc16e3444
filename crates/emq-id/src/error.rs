//! The one error type of the crate: an opaque value that names a contract gate.

use core::fmt;

/// Which rule of the contract an input broke.
///
/// The names are the contract's own and are stable: the same word surfaces as
/// JS `err.code`, a Go sentinel, a C status and the SQL error message.
/// New gates may be added, hence `#[non_exhaustive]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Gate {
    /// Not exactly 14 bytes.
    Length,
    /// One of the first three bytes is outside `A`–`Z`.
    Namespace,
    /// A payload byte is outside the base62 alphabet.
    Charset,
    /// A value outside the contract's integer range (payload above
    /// `MAX_PAYLOAD`, snowflake ≥ 2^63, node > 1023, time past the 41-bit limit,
    /// or — for encode — an invalid namespace).
    Range,
    /// A queue name outside `[A-Za-z0-9_.:-]{1,128}`.
    Queue,
    /// A key kind the keyspace does not know, or an id given to a kind that takes none.
    Kind,
}

impl Gate {
    /// Every gate, in the order the contract checks them.
    pub const ALL: [Gate; 6] = [Gate::Length, Gate::Namespace, Gate::Charset, Gate::Range, Gate::Queue, Gate::Kind];

    /// The gate's stable lowercase name (`"length"`, `"namespace"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Gate::Length => "length",
            Gate::Namespace => "namespace",
            Gate::Charset => "charset",
            Gate::Range => "range",
            Gate::Queue => "queue",
            Gate::Kind => "kind",
        }
    }

    /// The gate with this name, if any.
    pub fn from_name(name: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == name)
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An input was refused by one of the contract's gates.
///
/// ```
/// let err = emq_id::decode(b"USR0KHTOWnGLu").unwrap_err();
/// assert_eq!(err.gate(), emq_id::Gate::Length);
/// assert_eq!(err.to_string(), "length: a branded id is exactly 14 bytes");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    gate: Gate,
    detail: &'static str,
}

impl Error {
    pub(crate) const fn new(gate: Gate, detail: &'static str) -> Error {
        Error { gate, detail }
    }

    /// An error of `gate` raised outside the core: for a binding whose host
    /// type can hold a value the core's type cannot (a JS `bigint` ≥ 2^64, a
    /// negative SQL `bigint`), so the refusal still names the contract's gate.
    ///
    /// ```
    /// use emq_id::{Error, Gate};
    /// let e = Error::from_gate(Gate::Range, "a snowflake is below 2^64");
    /// assert_eq!(e.code(), "range");
    /// ```
    pub const fn from_gate(gate: Gate, detail: &'static str) -> Error {
        Error { gate, detail }
    }

    /// The gate that refused the input.
    pub const fn gate(&self) -> Gate {
        self.gate
    }

    /// The gate's stable name; shorthand for `self.gate().name()`.
    pub const fn code(&self) -> &'static str {
        self.gate.name()
    }

    /// A human sentence saying what was wrong, without the gate name.
    pub const fn detail(&self) -> &'static str {
        self.detail
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.gate.name(), self.detail)
    }
}

impl core::error::Error for Error {}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;
