"""EchoMQ branded ids and Valkey Cluster key placement, with exactly the
answers of the emq-id Rust core: the whole public API of ``emq_id``, typed.

Host types: bytes in (ids, keys, queues, types, names, namespaces, entry ids)
are ``str`` (its UTF-8; a lone surrogate has none and raises
``UnicodeEncodeError``, as ``str.encode()`` does) or ``bytes`` (used as they
are). 64-bit values are ``int``: outside ``0..2**64-1`` (clock readings and
replies: ``-2**63..2**63-1``) they are refused with gate ``range``, never
wrapped. A value of another type (``bool`` and ``float`` included) raises
``TypeError``; a value the contract refuses raises ``EmqIdError``.
"""

# Annotations stay unevaluated: tools that execute the stub (pdoc) meet forward references.
from __future__ import annotations

import datetime as _dt
from types import MappingProxyType
from typing import Final, Iterable, Literal, final, overload

# Every public name below, computed at import from the compiled module (stubtest holds each
# declared name to the module's, both ways).
__all__: list[str]

#: The contract's gate names: the ``gate`` of every EmqIdError (``GATES`` at run time).
Gate = Literal["length", "namespace", "charset", "range", "queue", "kind", "node"]

#: Where the process-wide minter's node came from: ``EMQ_NODE``, ``set_node``, or drawn.
NodeSource = Literal["env", "set", "fallback"]

# ---- Errors and warnings.

class EmqIdError(ValueError):
    """A refusal of the contract; ``str(err)`` is ``"<gate>: <what was wrong>"``."""

    gate: Gate
    #: For ``parse_wait``'s ``node`` refusal: the replicas that acknowledged the write, and those wanted.
    acknowledged: int | None
    replicas: int | None
    def __init__(self, gate: Gate, message: str) -> None: ...

class NodeWarning(RuntimeWarning):
    """The process-wide minter drew its node (``EMQ_NODE`` unset): ids may collide across hosts.

    Where it is an error (``warnings.filterwarnings("error", category=NodeWarning)``), every mint
    on a drawn node raises it.
    """

class SelfCheckError(RuntimeError):
    """This build answers a self-check line differently; the package refuses to import."""

    line: str
    answer: object
    def __init__(self, line: str, answer: object) -> None: ...

#: The package's version (its distribution's, ``importlib.metadata.version("emq_id")``).
__version__: Final[str]

# ---- The contract's facts, from the core (emq_id::NUMBERS, TEXTS, Gate::ALL).

CONTRACT: Final[str]
KEYSPACE: Final[str]
#: The reserve's version fence key, and what the bus stores there.
VERSION_KEY: Final[str]
BUS_VERSION: Final[str]
ID_LEN: Final[int]
NS_LEN: Final[int]
PAYLOAD_LEN: Final[int]
#: The snowflake's epoch, unix ms (2024-01-01T00:00:00Z).
EPOCH_MS: Final[int]
MAX_NODE: Final[int]
MAX_SEQ: Final[int]
#: The greatest time field (41 bits), ms after EPOCH_MS.
MAX_TS: Final[int]
#: 2**63 - 1.
MAX_SNOWFLAKE: Final[int]
SLOTS: Final[int]
MAX_QUEUE_LEN: Final[int]
MAX_NAME_LEN: Final[int]
MAX_KEY_LEN: Final[int]
MAX_ENTRY_ID_LEN: Final[int]
#: The core's gates, in the order the contract checks them.
GATES: Final[tuple[Gate, ...]]
#: The contract's self-check vectors, one check per line (SPEC.md §8).
SELF_CHECK_VECTORS: Final[str]

# ---- The branded id.

@final
class Decoded:
    """An id read back. Immutable and hashable; ordered as the ids are."""

    @property
    def ns(self) -> str: ...
    @property
    def snowflake(self) -> int: ...
    @property
    def unix_ms(self) -> int:
        """Unix ms of minting."""
    @property
    def node(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def datetime(self) -> _dt.datetime:
        """The instant of minting, an aware UTC datetime (millisecond precision)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Decoded, /) -> bool: ...
    def __le__(self, other: Decoded, /) -> bool: ...
    def __gt__(self, other: Decoded, /) -> bool: ...
    def __ge__(self, other: Decoded, /) -> bool: ...
    def __hash__(self) -> int: ...

def encode(ns: str | bytes, snowflake: int) -> str:
    """The 14-character id of a namespace (three letters A-Z) and a snowflake below 2**63. ``range``."""

def decode(text: str | bytes) -> Decoded:
    """Reads an id: ``length``, ``namespace``, ``charset`` or ``range``, checked in that order."""

def parse(text: str | bytes) -> tuple[str, int]:
    """decode's gates, answering ``(ns, snowflake)`` with no object to build."""

def is_valid(text: object) -> bool:
    """Whether decode would accept the value; any other value is not an id (never raises)."""

def compare(a: str | bytes, b: str | bytes) -> Literal[-1, 0, 1]:
    """The order of two ids (namespace, then snowflake); raises an invalid id's gate."""

def hash32(snowflake: int) -> int:
    """The contract's 32-bit placement hash."""

def unix_ms(snowflake: int) -> int: ...
def node(snowflake: int) -> int: ...
def seq(snowflake: int) -> int: ...
def min_for(t: _dt.datetime | int) -> int:
    """The smallest snowflake minted at or after ``t`` (an aware datetime, or unix ms).

    0 before 2024, ``range`` past 2093; a naive datetime raises ``ValueError`` (it names no instant).
    """

# ---- Placement and the keyspace.

def slot(key: str | bytes) -> int:
    """The Valkey Cluster hash slot (0-16383) of a key's bytes."""

def slot_many(keys: Iterable[str | bytes]) -> list[int]:
    """The slots of many keys in one call: use it on hot paths."""

@overload
def hashtag(key: str) -> str: ...
@overload
def hashtag(key: bytes) -> bytes: ...
def key(queue: str | bytes, type: str | bytes, id: str | bytes | None = None) -> str:
    """A key of ``queue`` from its type as the bus writes it (``pending``, ``g:vip:pending``, ``job:<id>:lock``).

    ``key(queue, "job", id)`` (emq-keyspace/1) is kept. Raises ``queue``, then ``kind`` or the id's gate.
    """

def queue_key(queue: str | bytes, kind: str | bytes) -> str:
    """``emq:{queue}:<kind>`` for a type without an id."""

def job_key(queue: str | bytes, id: str | bytes) -> str:
    """``emq:{queue}:job:<id>``: the id must be a valid JOB id (else its gate, or ``kind``)."""

@final
class ParsedKey:
    """A queue key read back."""

    @property
    def queue(self) -> str: ...
    @property
    def family(self) -> str:
        """The family as its pattern: ``g:<name>:pending``."""
    @property
    def param(self) -> str | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def parse_key(key: str | bytes) -> ParsedKey:
    """The exact inverse of ``key``: ``queue`` when it is not ``emq:{Q}:<type>``, else the type's error."""

def reserve(name: str | bytes) -> str:
    """The reserve's cross-queue key ``{emq}:<name>``; ``kind`` for a bad name."""

def queue_prefix(queue: str | bytes) -> str:
    """``emq:{queue}:``, the prefix every key of a queue starts with (the bus's scripts append a type to it)."""

def job_prefix(queue: str | bytes) -> str:
    """``emq:{queue}:job:``, the prefix the bus's scripts append job ids to."""

def prefix_bytes(queue: str | bytes, type: str | bytes) -> int:
    """The bytes a family's keys spend before their parameter (type ``job:``, ``g:``, … or a fixed type)."""

def xadd_id(id: str | bytes) -> str:
    """The stream entry id ``<unix_ms>-<tail22>`` of an EVT id; ``kind`` for another namespace."""

def from_xadd_id(entry: str | bytes, ns: str | bytes | None = None) -> str:
    """The id (namespace ``ns``; ``None`` is the core's ``EVT``) behind a stream entry id; ``charset`` or ``range``."""

# ---- Minting.

@final
class Minter:
    """A minter for one node, shared between threads (lock-free).

    Two Minters of one node mint the same ids: give each its own node.
    """

    def __new__(cls, node: int) -> Minter:
        """A fresh minter for ``node`` in ``0..=MAX_NODE`` (else ``range``)."""
    @property
    def node(self) -> int: ...
    def next(self) -> int:
        """Mints a snowflake with the system clock."""
    def next_at(self, now_ms: int) -> int:
        """Mints with a clock reading (unix ms): the contract's pure step."""
    def next_many(self, n: int) -> list[int]:
        """``n`` snowflakes (0 or more) with one clock reading, in one call (the GIL released)."""

def mint_step(state: int, node: int, now_ms: int) -> tuple[int, int]:
    """The contract's pure mint step: ``(state', snowflake)``."""

def mint(ns: str | bytes) -> str:
    """An id from the process-wide minter: one mint state per process, on a node this process
    holds on this host (``set_node``, else ``EMQ_NODE``, else a drawn node and a NodeWarning).

    ``node`` when another live process of this host holds the node, or in a child of
    ``os.fork()`` until it takes its own; ``range`` for a bad namespace or ``EMQ_NODE``.
    """

def process_node() -> tuple[int, NodeSource]:
    """The process's node and where it came from, taking it on first use."""

def set_node(node: int) -> tuple[int, NodeSource]:
    """Makes ``node`` this process's node in place of ``EMQ_NODE``, for the process's lifetime.

    ``node`` when another live process of this host holds it, or this process mints with another.
    """

def self_check(vectors: str | None = None) -> None:
    """Runs the contract's self-check vectors (by default the core's) through this API.

    The package already did when it was imported. Raises SelfCheckError naming the first line
    answered differently.
    """

# ---- Node leases on Valkey (emq-lease/3): run the scripts with your own client.

LEASE_PROTOCOL: Final[str]
#: The reserve's one lease key, KEYS[1] of every script: a hash of each node's ``<n>:token``,
#: ``<n>:until`` (the lease's end, server unix ms) and ``<n>:mark``, in the reserve's slot.
LEASE_KEY: Final[str]
#: Nodes a lease can be taken on (MAX_NODE + 1).
LEASE_NODES: Final[int]
LEASE_TTL_MS: Final[int]
LEASE_MARGIN_MS: Final[int]
#: Replicas that must acknowledge a lease write (``WAIT``'s numreplicas) unless the deployment says otherwise.
LEASE_REPLICAS: Final[int]

@final
class LeaseScript:
    """One of the protocol's Lua scripts, byte for byte the core's."""

    @property
    def name(self) -> Literal["acquire", "renew", "release"]: ...
    @property
    def text(self) -> str: ...
    @property
    def keys(self) -> tuple[str, ...]:
        """What KEYS holds, in order."""
    @property
    def args(self) -> tuple[str, ...]:
        """What ARGV holds, in order."""

#: The scripts by name, in order: ``acquire``, ``renew``, ``release``.
LEASE_SCRIPTS: Final[MappingProxyType[str, LeaseScript]]

@final
class Acquired:
    """The acquire script's reply, read."""

    @property
    def node(self) -> int: ...
    @property
    def previous_mark(self) -> int | None:
        """The node's mark before this acquire (unix ms), ``None`` for a node never leased."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def parse_acquire(node: int, previous: int) -> Acquired:
    """Reads the acquire script's reply ``[node, previous]``; ``range`` for a reply it cannot give."""

def parse_acquire_error(message: str | bytes) -> EmqIdError | None:
    """The ``node`` refusal when an acquire's error says every node is leased; ``None`` for any other error."""

def parse_renewal(reply: int) -> None:
    """Reads the renew or release script's reply: returns on 1, raises ``node`` on 0 (the lease is lost)."""

def parse_wait(acknowledged: int, replicas: int) -> None:
    """Reads ``WAIT``'s reply after the acquire or renew script: returns when at least ``replicas``
    replicas acknowledged the write, raises ``node`` for fewer (mint nothing on that acquire, do not
    record that renewal; the error's ``acknowledged`` and ``replicas`` say how many), ``range`` for a
    negative reply."""

@final
class LeaseTerms:
    """A lease's TTL and the fence's margin (ms): TTL 3 ms to a day, 1 ms <= margin <= two thirds of it."""

    DEFAULT: Final[LeaseTerms]
    def __new__(cls, ttl_ms: int, margin_ms: int) -> LeaseTerms:
        """Terms the core accepts, else ``range``."""
    @staticmethod
    def for_ttl(ttl_ms: int) -> LeaseTerms:
        """The default margin, kept to a sixth of a short TTL."""
    @property
    def ttl_ms(self) -> int: ...
    @property
    def margin_ms(self) -> int: ...
    @property
    def wait_ms(self) -> int:
        """The timeout (ms) of the ``WAIT`` sent after a lease write under these terms."""
    @property
    def renew_every_ms(self) -> int:
        """How often a held lease is renewed (ms): a third of the TTL, at least 1."""
    @property
    def retry_ms(self) -> int:
        """How soon a write that did not count is tried again (ms): a twentieth of the TTL, 10 to 250."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class LeasedMinter:
    """A minter on a leased node: starts after the node's previous mark, never mints past the mark
    it stored, and raises ``node`` once its fence closes (the lease not renewed in time)."""

    def __new__(
        cls, acquired: Acquired, now_ms: int, sent_mono_ms: int, terms: LeaseTerms | None = None
    ) -> LeasedMinter:
        """The minter of a lease acquired with ``now_ms`` as the script's ``now``, the acquire sent
        at ``sent_mono_ms`` (``monotonic_ms()``); ``terms`` by default ``LeaseTerms.DEFAULT``."""
    @property
    def node(self) -> int: ...
    @property
    def terms(self) -> LeaseTerms: ...
    def next(self) -> int:
        """Mints with the system clock and ``monotonic_ms()``."""
    def next_at(self, now_ms: int, mono_ms: int) -> int: ...
    def next_mark(self, now_ms: int) -> int:
        """The mark to send with the renew script at ``now_ms``."""
    def renewed(self, sent_mono_ms: int, mark: int) -> None:
        """Records a renewal the server accepted (sent at monotonic ``sent_mono_ms``, carrying ``mark``)."""
    def stop(self) -> None:
        """Closes the fence now and for good."""
    @property
    def high_water(self) -> int:
        """The last millisecond minted in: the release script's mark."""
    @property
    def fence_ms(self) -> int:
        """The monotonic ms from which minting is refused."""

def monotonic_ms() -> int:
    """Milliseconds on this process's monotonic clock: the fence's clock."""

# ---- The lease keeper (SPEC.md §5.2): what a holder writes next, when, and what each write came to.
# Names are the core's; a holder is its client's I/O around them (``emq_id.holder``).

#: What one lease write came to (the core's ``Outcome``).
_Outcome = Literal["counted", "unacknowledged", "gone", "leased", "ask", "moved", "not_run", "fault"]
#: What a holder does with an outcome (the core's ``Action``).
_Action = Literal[
    "publish", "renewed", "pend", "wait", "lose", "follow", "reroute", "retry", "reconnect", "give_up", "released"
]
#: Where a holder is with its lease (the core's ``Phase``).
_Phase = Literal["starting", "unleased", "pending", "held", "releasing"]
#: The write due (the core's ``Next``).
_Next = Literal["acquire", "renew", "expired", "release"]

def read_lease_error(text: str | bytes, asked: bool) -> _Outcome:
    """What an error reply to a lease script (its text, after ``-``) says of the write: ``leased``,
    ``ask``, ``moved`` (``MOVED``, ``READONLY``), ``not_run`` (``TRYAGAIN``, ``CLUSTERDOWN``,
    ``LOADING``, ``MASTERDOWN``, ``BUSY``, ``NOREPLICAS``, ``OOM``, ``MISCONF``) or ``fault``. ``asked``: the write went
    after ``ASKING`` (an ``ASK`` to it is a fault, not followed twice)."""

@final
class Redirect:
    """Where a ``MOVED`` or ``ASK`` reply sends a write."""

    @property
    def ask(self) -> bool:
        """``ASK`` (followed once, with ``ASKING``), not ``MOVED``."""
    @property
    def slot(self) -> int: ...
    @property
    def host(self) -> str | None:
        """The node's host (an IPv6 address without brackets), or ``None``: the host the
        redirected connection was opened to."""
    @property
    def port(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def redirect(text: str | bytes) -> Redirect | None:
    """The node a ``MOVED <slot> <host>:<port>`` or ``ASK …`` reply names; ``None`` for any other text."""

@final
class Step:
    """What to do with a write's outcome, and when the next write is due."""

    @property
    def action(self) -> _Action: ...
    @property
    def after_ms(self) -> int:
        """Ms from now: a third of the TTL after a write that counted, ``retry_ms`` after one that did
        not, ``0`` for at once (a lost lease, an ``ASK``) and when giving up."""
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class LeaseKeeper:
    """A holder's lease as far as deciding goes (the core's ``Keeper``): which write is due, and
    what each outcome means. Times are monotonic ms (``monotonic_ms()``). Not the lease itself:
    the holder keeps the token and the minter."""

    def __new__(cls, terms: LeaseTerms, since_mono_ms: int) -> LeaseKeeper:
        """A keeper before its first acquire, begun at ``since_mono_ms``."""
    def next(self, now_mono_ms: int) -> _Next:
        """The write due: ``expired`` when no write of the held lease was answered for a whole TTL
        (stop minting on it and count it lost, then acquire); ``release`` after ``release()``."""
    def settle(self, outcome: _Outcome, sent_mono_ms: int, now_mono_ms: int) -> Step:
        """What a write sent at ``sent_mono_ms`` that came to ``outcome`` means, read at
        ``now_mono_ms``; ``range`` for an outcome the core does not name."""
    def release(self) -> None:
        """Begins handing the held or pending lease back (phase ``releasing``): ``next`` answers
        ``release``, and ``settle`` follows an ``ASK`` (``follow``), sends it again after ``MOVED``
        (``reroute``) or a refusal that did not run (``retry``), three tries at most (each followed
        through one ``ASK`` at most), and ends with
        ``released`` (the release ran; the script's answer says whether the lease was still the
        owner's) or ``give_up`` (left to its TTL)."""
    @property
    def phase(self) -> _Phase: ...
    @property
    def asked(self) -> bool:
        """Whether the write about to be sent follows an ``ASK``."""
    @property
    def terms(self) -> LeaseTerms: ...
    @staticmethod
    def refusal(outcome: _Outcome) -> EmqIdError | None:
        """The first acquire's refusal when it gives up on ``outcome`` (gate ``node``): every node
        leased, or the reserve not running the acquire for a whole TTL. ``None`` when the refusal
        is another's: ``parse_wait``'s, or the holder's own fault."""
    @staticmethod
    def of_write(held: bool, acknowledged: bool) -> Literal["counted", "unacknowledged", "gone"]:
        """The outcome of a write whose script answered without an error: ``held`` (the acquire
        answered a node, the renewal ``1``), ``acknowledged`` (``parse_wait`` passed, or no ``WAIT``)."""
