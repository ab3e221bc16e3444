//! The one error type of the crate: an opaque value that names a contract gate.

use core::fmt;

/// Which rule of the contract an input broke.
///
/// The names are the contract's own and are stable: the same word surfaces as
/// JS `err.code`, a Go sentinel, a C status and the SQL error message.
/// New gates may be added, hence `#[non_exhaustive]`.
///
/// ```
/// use emq_id::Gate;
/// assert_eq!(emq_id::decode(b"USR0KHTOWnGL!C").unwrap_err().gate(), Gate::Charset);
/// assert_eq!(Gate::Charset.to_string(), "charset");
/// ```
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
    /// No node this process may mint with: the node is held by another live
    /// process on this host, the process was forked after taking it, no node
    /// was given where one is required (a browser, a worker thread), or the
    /// host-local claim could not be taken. Not a property of an input value:
    /// the remedy is configuration (a node of its own for each mint state).
    Node,
}

impl Gate {
    /// Every gate, in the order the contract checks them.
    ///
    /// ```
    /// assert_eq!(emq_id::Gate::ALL.map(|g| g.name())[..3], ["length", "namespace", "charset"]);
    /// ```
    pub const ALL: [Gate; 7] =
        [Gate::Length, Gate::Namespace, Gate::Charset, Gate::Range, Gate::Queue, Gate::Kind, Gate::Node];

    /// The gate's stable lowercase name (`"length"`, `"namespace"`, …).
    ///
    /// ```
    /// assert_eq!(emq_id::Gate::Queue.name(), "queue");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Gate::Length => "length",
            Gate::Namespace => "namespace",
            Gate::Charset => "charset",
            Gate::Range => "range",
            Gate::Queue => "queue",
            Gate::Kind => "kind",
            Gate::Node => "node",
        }
    }

    /// The gate with this name, if any.
    ///
    /// ```
    /// use emq_id::Gate;
    /// assert_eq!(Gate::from_name("range"), Some(Gate::Range));
    /// assert_eq!(Gate::from_name("Range"), None);
    /// ```
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
    /// The node a `node` refusal is about, or [`NO_NODE`].
    node: u16,
    /// The pid of the process holding that node, or 0 when unknown.
    holder: u32,
    /// For an unacknowledged lease write: the replicas that acknowledged it
    /// and the replicas wanted (`wanted` 0: not such a refusal).
    acknowledged: u32,
    wanted: u32,
}

const NO_NODE: u16 = u16::MAX;

impl Error {
    pub(crate) const fn new(gate: Gate, detail: &'static str) -> Error {
        Error { gate, detail, node: NO_NODE, holder: 0, acknowledged: 0, wanted: 0 }
    }

    /// A [`Gate::Node`] refusal about `node`, naming its holder's pid when known.
    #[cfg(feature = "std")]
    pub(crate) const fn about_node(node: u16, holder: Option<u32>, detail: &'static str) -> Error {
        let holder = match holder {
            Some(pid) => pid,
            None => 0,
        };
        Error { gate: Gate::Node, detail, node, holder, acknowledged: 0, wanted: 0 }
    }

    /// A [`Gate::Node`] refusal of a lease write that `acknowledged` of
    /// `wanted` replicas acknowledged.
    pub(crate) const fn unacknowledged(acknowledged: u32, wanted: u32, detail: &'static str) -> Error {
        Error { gate: Gate::Node, detail, node: NO_NODE, holder: 0, acknowledged, wanted }
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
        Error::new(gate, detail)
    }

    /// The gate that refused the input.
    ///
    /// ```
    /// assert_eq!(emq_id::check_queue(b"a{b}").unwrap_err().gate(), emq_id::Gate::Queue);
    /// ```
    pub const fn gate(&self) -> Gate {
        self.gate
    }

    /// The gate's stable name; shorthand for `self.gate().name()`.
    ///
    /// ```
    /// assert_eq!(emq_id::decode(b"usr0KHTOWnGLuC").unwrap_err().code(), "namespace");
    /// ```
    pub const fn code(&self) -> &'static str {
        self.gate.name()
    }

    /// A human sentence saying what was wrong, without the gate name (and
    /// without the node and pid that [`Error::message`] adds).
    ///
    /// ```
    /// let err = emq_id::decode(b"USR").unwrap_err();
    /// assert_eq!(err.detail(), "a branded id is exactly 14 bytes");
    /// ```
    pub const fn detail(&self) -> &'static str {
        self.detail
    }

    /// For a [`Gate::Node`] refusal, the node it is about.
    ///
    /// ```
    /// // A process keeps the node it took: asking for another is refused, naming the one it holds.
    /// let held = emq_id::process_minter().unwrap().node();
    /// let err = emq_id::set_process_node((held + 1) % 1024).unwrap_err();
    /// assert_eq!(err.node(), Some(held));
    /// assert_eq!(emq_id::decode(b"USR").unwrap_err().node(), None);
    /// ```
    pub const fn node(&self) -> Option<u16> {
        if self.node == NO_NODE {
            None
        } else {
            Some(self.node)
        }
    }

    /// For a [`Gate::Node`] refusal, the pid of the live process that holds
    /// the node on this host, when it could be read.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("emq-id-doc-holder-{}", std::process::id()));
    /// let _claim = emq_id::NodeClaim::take_in(&dir, 4).unwrap();
    /// let err = emq_id::NodeClaim::take_in(&dir, 4).unwrap_err();
    /// assert_eq!(err.holder_pid(), Some(std::process::id()));
    /// # drop(_claim);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub const fn holder_pid(&self) -> Option<u32> {
        if self.holder == 0 {
            None
        } else {
            Some(self.holder)
        }
    }

    /// For a refused lease write ([`parse_wait`](crate::parse_wait)): how many
    /// replicas acknowledged it, and how many were wanted.
    ///
    /// ```
    /// assert_eq!(emq_id::parse_wait(1, 2).unwrap_err().acknowledged(), Some((1, 2)));
    /// assert_eq!(emq_id::parse_renewal(0).unwrap_err().acknowledged(), None);
    /// ```
    pub const fn acknowledged(&self) -> Option<(u32, u32)> {
        if self.wanted == 0 {
            None
        } else {
            Some((self.acknowledged, self.wanted))
        }
    }

    /// The whole message without the gate name: the node and its holder when
    /// the refusal names them, then [`Error::detail`]. Bindings surface this.
    ///
    /// ```
    /// let err = emq_id::decode(b"USR0KHTOWnGL!C").unwrap_err();
    /// assert_eq!(err.message().to_string(), err.detail());
    /// ```
    pub const fn message(&self) -> Message<'_> {
        Message(self)
    }
}

/// [`Error::message`]: the refusal without its gate name, as text.
///
/// ```
/// let err = emq_id::parse_wait(0, 2).unwrap_err();
/// let message = err.message().to_string();
/// assert!(message.starts_with("acknowledged by 0 of 2 replicas: "));
/// assert_eq!(err.to_string(), format!("node: {message}"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Message<'a>(&'a Error);

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        if let Some(node) = e.node() {
            write!(f, "node {node}")?;
            if let Some(pid) = e.holder_pid() {
                write!(f, " (held by pid {pid})")?;
            }
            f.write_str(": ")?;
        }
        if let Some((got, wanted)) = e.acknowledged() {
            write!(f, "acknowledged by {got} of {wanted} replica{}: ", if wanted == 1 { "" } else { "s" })?;
        }
        f.write_str(e.detail)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.gate.name(), self.message())
    }
}

impl core::error::Error for Error {}

/// The crate's result type.
///
/// ```
/// fn job(text: &str) -> emq_id::Result<emq_id::Id> {
///     let id: emq_id::Id = text.parse()?;
///     emq_id::job_key(b"orders", &id.to_bytes())?;
///     Ok(id)
/// }
/// assert_eq!(job("USR0KHTOWnGLuC").unwrap_err().gate(), emq_id::Gate::Kind);
/// ```
pub type Result<T> = core::result::Result<T, Error>;
