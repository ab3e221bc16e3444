"""A node lease on Valkey held in one call (SPEC.md §5.2, ``emq-lease/3``), over
the redis-py client a program already has.

>>> import redis, emq_id.holder                                   # doctest: +SKIP
>>> lease = emq_id.holder.Lease.acquire(redis.Redis(), replicas=1) # doctest: +SKIP
>>> lease.mint("USR")                                             # doctest: +SKIP

``Lease.acquire`` returns once a node's acquire is acknowledged by ``replicas``
replicas (``WAIT``); a daemon thread renews it, follows a failover or a slot
migration through the client's topology, and when the lease is lost or
expires takes another node, its ids after every id minted before.
``AsyncLease`` is the same over ``redis.asyncio`` with a task.

What to write, when, and what each reply means are the core's
(``LeaseKeeper``, ``read_lease_error``, ``redirect``), as are the scripts, the
lease key, the acknowledgement rule and the arithmetic (``LEASE_SCRIPTS``,
``LEASE_KEY``, ``parse_wait``, ``LeasedMinter``…): this module only moves them
over the client's connections. ``redis`` is not a dependency of the package:
the client is whatever the caller passes.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import secrets
import threading
import time
from typing import TYPE_CHECKING, Any, Awaitable, Dict, Generator, NamedTuple, Optional, Protocol, Tuple, TypeVar, Union

from . import (
    EmqIdError,
    LEASE_KEY,
    LEASE_NODES,
    LEASE_REPLICAS,
    LEASE_SCRIPTS,
    LeaseKeeper,
    LeasedMinter,
    LeaseScript,
    LeaseTerms,
    Step,
    encode,
    monotonic_ms,
    parse_acquire,
    parse_renewal,
    parse_wait,
    read_lease_error,
    redirect,
)

if TYPE_CHECKING:
    from . import _Outcome  # the core's outcome names (the stub's)

__all__ = ["AsyncLease", "Client", "Held", "HolderStats", "Lease", "LeaseWireError", "Minted"]


class Client(Protocol):
    """A redis-py client (``redis.Redis``, ``redis.cluster.RedisCluster``, and
    their ``redis.asyncio`` twins). The holders write on one connection (a
    cluster's: to the node of the reserve's slot), never through its retries: a
    write whose reply was lost may have run, and the core decides what is sent
    again. ``Lease`` opens a connection of its own, as the pool opens them;
    ``AsyncLease`` takes one of the pool's. Either waits for a write's replies
    ``wait_ms`` and a second more (or the client's ``socket_timeout``, if longer)."""

    def pipeline(self, transaction: Any = ..., shard_hint: Any = ...) -> Any: ...


class Held(NamedTuple):
    """A lease this holder holds: its node, the node's mark when it was taken
    (``None``: never leased before), and which of the holder's leases it is (1, 2…)."""

    node: int
    previous_mark: Optional[int]
    ordinal: int


class Minted(NamedTuple):
    """A snowflake and the ordinal of the lease that minted it."""

    snowflake: int
    lease: int


class HolderStats(NamedTuple):
    """Leases taken (acknowledged) and lost, the time (ms) without one now
    (``None`` while minting), and the longest such time."""

    taken: int
    lost: int
    unleased_ms: Optional[int]
    longest_unleased_ms: int


class LeaseWireError(Exception):
    """Valkey answered a lease write with something the protocol does not give
    (an error reply that is none of the protocol's, a reply of the wrong shape,
    an ``ASK`` after ``ASKING``). Only ``acquire`` and ``release`` raise it, as
    they raise the client's own connection errors; the renewer reconnects and
    writes again. A redirect or a cluster that is not ready is never one: the
    acquire follows or retries it, and after a TTL is refused (gate ``node``)."""

    #: The client's error for a redirect the acquire could not follow (an ``ASK`` after ``ASKING``).
    redirect: Optional[Exception] = None


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


# ---- What the holder reads of redis-py: replies, and the text of an error reply.

#: The error codes redis-py's parser strips from a reply's text, by the class it raises instead,
#: for a redis-py that keeps no ``status_code`` on its errors.
_CODES = {
    "AskError": "ASK",
    "MovedError": "MOVED",
    "TryAgainError": "TRYAGAIN",
    "ClusterDownError": "CLUSTERDOWN",
    "MasterDownError": "MASTERDOWN",
    "BusyLoadingError": "LOADING",
    "ReadOnlyError": "READONLY",
}


def _error_text(error: BaseException) -> str:
    """The error reply redis-py made ``error`` of, as the server sent it (its code put back)."""
    message = error.args[0] if error.args else ""
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
    code = getattr(error, "status_code", None) or _CODES.get(type(error).__name__)
    return f"{code} {text}" if isinstance(code, str) and code else text


def _is_reply(error: BaseException) -> bool:
    """Whether a raised error is the server's reply (``LOADING`` is raised as a connection error),
    not the connection's."""
    if getattr(error, "status_code", None) or type(error).__name__ in _CODES:
        return True
    return _is_response(error)


def _is_response(error: BaseException) -> bool:
    """Whether a raised error is a reply that left its connection open: redis-py raises ``LOADING``
    as a connection error and closes the connection with it (nothing after it can be read)."""
    return any(c.__name__ == "ResponseError" for c in type(error).__mro__)


def _int(reply: object) -> Optional[int]:
    return reply if isinstance(reply, int) and not isinstance(reply, bool) else None


# ---- The holder without I/O: the core's keeper, the leases, and the writes.


class _Lease:
    __slots__ = ("minter", "token", "held")

    def __init__(self, minter: LeasedMinter, token: str, held: Held) -> None:
        self.minter = minter
        self.token = token
        self.held = held


class _Write:
    """One lease write: the script by ``EVAL``, and ``WAIT`` when ``replicas`` > 0;
    the lease it renews or releases (``None``: an acquire), and what it carries."""

    __slots__ = ("script", "args", "replicas", "wait_ms", "lease", "mark", "now", "sent")

    def __init__(
        self, script: LeaseScript, args: list[object], replicas: int, wait_ms: int, lease: Optional[_Lease] = None
    ) -> None:
        self.script = script
        self.args = args
        self.replicas = replicas
        self.wait_ms = wait_ms
        self.lease = lease
        self.mark = 0  # a renewal's mark
        self.now = 0  # an acquire's unix ms
        self.sent = monotonic_ms()

    def commands(self, asking: bool) -> list[tuple[object, ...]]:
        """The write's commands, pipelined on one connection: ``ASKING`` first when it follows an ``ASK``."""
        commands: list[tuple[object, ...]] = [("ASKING",)] if asking else []
        commands.append(("EVAL", self.script.text, 1, LEASE_KEY, *self.args))
        if self.replicas:
            commands.append(("WAIT", self.replicas, self.wait_ms))
        return commands


#: A node of the cluster, ``(host, port)``: where a write follows an ``ASK`` to.
_Node = Tuple[str, int]


class _Send(NamedTuple):
    """I/O: send ``write`` on one connection of the reserve's primary, or of ``node`` after ``ASKING``."""

    write: _Write
    node: Optional[_Node]


class _Sent(NamedTuple):
    """What a send came to: the host it went to, and the replies (errors among them) or what the client raised."""

    host: str
    replies: list[object]
    raised: Optional[BaseException] = None


class _Refresh(NamedTuple):
    """I/O: find the reserve's primary again (``MOVED``'s node first), or load the slot map."""

    moved: Optional[Tuple[int, str, int]]  # slot, host, port


class _Sleep(NamedTuple):
    """I/O: wait ``ms``. The renewer stops here when the lease is released (``stoppable``); a
    release's own wait before it is sent again is not stopped."""

    ms: int
    stoppable: bool = True


_Io = Union[_Send, _Refresh, _Sleep]
T = TypeVar("T")
#: A run of the holder: I/O requests out, each one's result in (a send's ``_Sent``), its answer at the end.
_Run = Generator[_Io, Optional[_Sent], T]


class _Read(NamedTuple):
    """What a write came to (the core's outcome), and what the holder needs of it."""

    outcome: _Outcome
    #: The error reply's text, for an error reply.
    text: str = ""
    #: The host the write went to (a redirect without one names it).
    host: str = ""
    #: An acquire's lease, taken (counted or not).
    lease: Optional[_Lease] = None
    #: ``parse_wait``'s refusal of an unacknowledged write.
    unacknowledged: Optional[EmqIdError] = None
    #: The holder's own fault: what the client raised, or a reply the protocol does not give.
    fault: Optional[BaseException] = None


class _Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.taken = 0
        self.lost = 0
        self.unleased_since: Optional[int] = None
        self.longest = 0

    def unleased(self) -> None:
        with self.lock:
            if self.unleased_since is None:
                self.unleased_since = monotonic_ms()

    def leased_again(self, taken: int = 0) -> None:
        with self.lock:
            self.taken += taken
            if self.unleased_since is not None:
                self.longest = max(self.longest, monotonic_ms() - self.unleased_since)
                self.unleased_since = None

    def snapshot(self) -> HolderStats:
        with self.lock:
            now = None if self.unleased_since is None else monotonic_ms() - self.unleased_since
            return HolderStats(self.taken, self.lost, now, max(self.longest, now or 0))


class _Holder:
    """The holder's leases around the core's ``LeaseKeeper``, without I/O: its
    runs (``start``, ``keep``, ``release``) are generators that ask for each
    send, refresh and sleep, so one body serves the thread and the task."""

    def __init__(self, replicas: int, terms: LeaseTerms) -> None:
        self.replicas = replicas
        self.terms = terms
        self.keeper = LeaseKeeper(terms, monotonic_ms())
        self.current: Optional[_Lease] = None  # what minting threads read
        self.held: Optional[_Lease] = None
        self.pending: Optional[_Lease] = None
        self.releasing: Optional[_Lease] = None  # the lease being handed back
        self.not_before = 0
        self.ordinals = 0
        self.stats = _Stats()

    # -- the runs

    def start(self) -> _Run[int]:
        """The first acquire, retried while the core says so: the ms to the first renewal, or the refusal."""
        while True:
            step, _ = yield from self.write()
            if self.keeper.phase == "held":
                return step.after_ms
            yield _Sleep(step.after_ms)

    def keep(self, after: int) -> _Run[None]:
        """Renews, and takes another lease when one is lost, until the sleep between writes is stopped."""
        while True:
            yield _Sleep(after)
            try:
                step, _ = yield from self.write()
                after = step.after_ms
            except Exception:
                after = self.terms.retry_ms  # nothing is given up after the first acquire

    def write(self) -> _Run[Tuple[Step, _Read]]:
        """The write due now, sent and settled: the core's step (its ms to the next write) and what
        the write came to. Raises why the first acquire or a release gave up."""
        try:
            write: Optional[_Write] = self.due()
        except EmqIdError as refusal:  # a clock the contract cannot hold: the holder's own fault
            write, read = None, _Read("fault", fault=refusal)
        if write is not None:
            read = yield from self.send(write, None)
        while True:
            step = self.keeper.settle(read.outcome, write.sent if write else monotonic_ms(), monotonic_ms())
            if step.action == "follow" and write is not None:
                # The reserve's slot is migrating and its key has left: the write runs where the key
                # is now, and its WAIT on that connection counts the replicas of the node that ran it.
                to = redirect(read.text)
                assert to is not None, "read_lease_error reads an ASK only when redirect does"
                read = yield from self.send(write, (to.host or read.host, to.port))
                continue
            if step.action == "give_up":
                yield from self.give_up(write, read)
            if write is not None:
                self.settled(step.action, write, read)
            if step.action in ("reroute", "reconnect"):
                to = redirect(read.text) if step.action == "reroute" else None
                yield _Refresh(None if to is None else (to.slot, to.host or read.host, to.port))
            return step, read

    def release(self) -> _Run[bool]:
        """Stops minting and hands back what is held or pending, through the keeper: ``True`` when
        a held lease was still the owner's. The release is not waited on (lost in a failover, it
        leaves the mark higher: safe); the keeper sends it again after ``MOVED`` or a refusal that
        did not run (three tries at most, each followed through one ``ASK`` at most), else it gives
        up: the lease is left to its TTL, and why is raised."""
        was_held = self.held is not None
        lease = self.held or self.pending
        self.held = self.pending = self.current = None
        if lease is None:
            return False
        lease.minter.stop()
        self.releasing = lease
        self.keeper.release()
        try:
            while True:
                step, read = yield from self.write()
                if step.action == "released":
                    return was_held and read.outcome == "counted"
                # Sent again (where the reserve went, or once the server runs it), after the
                # keeper's wait: the release's own, not ended by the renewer's stop.
                yield _Sleep(step.after_ms, stoppable=False)
        finally:
            self.releasing = None

    # -- the writes

    def due(self) -> _Write:
        """The write the keeper says is due; a held lease that expired is lost first."""
        now = monotonic_ms()
        if self.held is not None and now >= self.held.minter.fence_ms:
            self.stats.unleased()
        due = self.keeper.next(now)
        if due == "expired":
            self.lose()
        if due == "release":
            lease = self.releasing
            assert lease is not None, "the keeper releases the lease the holder hands back"
            args: list[object] = [lease.token, lease.minter.high_water, lease.held.node]
            return _Write(LEASE_SCRIPTS["release"], args, 0, 0, lease)  # without WAIT
        lease = self.held or self.pending
        terms = self.terms
        if due == "renew":
            assert lease is not None, "the keeper renews a lease the holder keeps"
            mark = lease.minter.next_mark(_now_ms())
            args = [lease.token, terms.ttl_ms, mark, lease.held.node]
            write = _Write(LEASE_SCRIPTS["renew"], args, self.replicas, terms.wait_ms, lease)
            write.mark = mark
            return write
        # No earlier than one past this holder's last minted ms: its ids keep their order across leases.
        now_ms = max(_now_ms(), self.not_before)
        # A clock the contract cannot hold is refused before a node is taken (a dry start).
        LeasedMinter(parse_acquire(0, -1), now_ms, monotonic_ms(), terms)
        token = secrets.token_hex(16)
        args = [token, terms.ttl_ms, random.randrange(LEASE_NODES), LEASE_NODES, now_ms]
        write = _Write(LEASE_SCRIPTS["acquire"], args, self.replicas, terms.wait_ms)
        write.now = now_ms
        return write

    def send(self, write: _Write, node: Optional[_Node]) -> _Run[_Read]:
        """Sends ``write`` (to ``node`` after ``ASKING``) and reads what it came to."""
        sent = yield _Send(write, node)
        assert sent is not None, "a send is answered with what it came to"
        return self.read(write, sent, asked=node is not None)

    def read(self, write: _Write, sent: _Sent, asked: bool) -> _Read:
        """A write's replies, as the core reads them: an error reply by ``read_lease_error``,
        else whether the lease is the owner's and whether ``WAIT`` acknowledged it."""
        if sent.raised is not None:  # the client's error: a reply only for LOADING, which it raises
            text = _error_text(sent.raised) if _is_reply(sent.raised) else ""
            outcome = read_lease_error(text, asked) if text else "fault"
            return _Read(outcome, text, sent.host, fault=sent.raised)
        replies = list(sent.replies)
        if asked and replies:
            asking = replies.pop(0)
            if isinstance(asking, BaseException):
                # Refused before the script (``LOADING`` on the node named): a write that did not run there.
                text = _error_text(asking)
                if read_lease_error(text, True) == "not_run":
                    return _Read("not_run", text, sent.host)
                return _Read("fault", text, sent.host, fault=LeaseWireError(f"ASKING: {text}"))
        if not replies:
            return _Read("fault", host=sent.host, fault=LeaseWireError(f"{write.script.name}: no reply"))
        reply = replies[0]
        if isinstance(reply, BaseException):
            text = _error_text(reply)
            outcome = read_lease_error(text, asked)
            if outcome != "fault":
                return _Read(outcome, text, sent.host)
            fault = LeaseWireError(f"{write.script.name}: {text}")
            if redirect(text) is not None and isinstance(reply, Exception):
                fault.redirect = reply  # an ASK after ASKING
            return _Read(outcome, text, sent.host, fault=fault)
        lease: Optional[_Lease] = None
        try:
            if write.lease is None:
                lease = self.taken(write, reply)
                held = True
            else:
                held = self.renewal(write, reply)
            unacknowledged = self.acknowledged(write, replies[1:])
        except (EmqIdError, LeaseWireError) as fault:
            return _Read("fault", host=sent.host, fault=fault)
        outcome = LeaseKeeper.of_write(held, unacknowledged is None)
        return _Read(outcome, host=sent.host, lease=lease, unacknowledged=unacknowledged)

    def taken(self, write: _Write, reply: object) -> _Lease:
        """The lease an acquire's reply ``{node, mark}`` took. A mark near the end of the
        contract's time is refused by the minter: the node is left to its TTL."""
        pair = reply if isinstance(reply, list) else []
        node, mark = (_int(pair[0]), _int(pair[1])) if len(pair) == 2 else (None, None)
        if node is None or mark is None:
            raise LeaseWireError(f"acquire answers {{node, mark}}: {reply!r}")
        try:
            acquired = parse_acquire(node, mark)
        except EmqIdError as e:
            raise LeaseWireError(f"acquire's reply: {e}") from None
        minter = LeasedMinter(acquired, write.now, write.sent, self.terms)
        self.ordinals += 1
        return _Lease(minter, str(write.args[0]), Held(acquired.node, acquired.previous_mark, self.ordinals))

    def renewal(self, write: _Write, reply: object) -> bool:
        """A renewal's or release's reply: ``True`` the lease is the owner's, ``False`` gone."""
        value = _int(reply)
        if value is None:
            raise LeaseWireError(f"{write.script.name}: {reply!r}")
        try:
            parse_renewal(value)
        except EmqIdError as e:
            if e.gate != "node":
                raise LeaseWireError(f"{write.script.name}: {e}") from None
            return False
        return True

    def acknowledged(self, write: _Write, wait: list[object]) -> Optional[EmqIdError]:
        """``WAIT``'s reading: ``None`` acknowledged (or none wanted), else ``parse_wait``'s refusal."""
        if not write.replicas:
            return None
        count = _int(wait[0]) if wait else None
        if count is None:
            raise LeaseWireError(f"WAIT: {wait!r}")
        try:
            parse_wait(count, write.replicas)
        except EmqIdError as e:
            if e.gate != "node":
                raise LeaseWireError(f"WAIT: {e}") from None
            return e
        return None

    # -- what the core's actions do to the leases

    def settled(self, action: str, write: _Write, read: _Read) -> None:
        lease = write.lease or read.lease
        if lease is None:
            return
        if action == "publish":
            if write.lease is not None:  # a pending lease's renewal counted
                lease.minter.renewed(write.sent, write.mark)
            self.pending, self.held, self.current = None, lease, lease
            self.stats.leased_again(taken=1)
        elif action == "renewed":
            lease.minter.renewed(write.sent, write.mark)
            self.stats.leased_again()
        elif action == "pend":
            self.pending = lease  # renewed until a renewal is acknowledged; nothing minted on it
        elif action == "lose":
            if lease is self.held:
                self.lose()
            else:  # lost before it counted (a failover took it): nothing was minted on it
                lease.minter.stop()
                self.pending = None

    def lose(self) -> None:
        """The held lease is gone or expired: minting on it stops, and it counts as lost."""
        lease, self.held, self.current = self.held, None, None
        if lease is None:
            return
        lease.minter.stop()
        self.not_before = max(self.not_before, lease.minter.high_water + 1)
        with self.stats.lock:
            self.stats.lost += 1
        self.stats.unleased()

    def give_up(self, write: Optional[_Write], read: _Read) -> _Run[None]:
        """Raises why the first acquire gave up: the core's refusal (naming the server's reply when
        the reserve did not run the acquire), ``WAIT``'s (the taken lease released first), or the
        fault; or why a release did: its fault, or the server's reply."""
        name = "acquire" if write is None else write.script.name
        refusal = LeaseKeeper.refusal(read.outcome) if name == "acquire" else None
        if refusal is not None:
            if read.outcome == "leased":
                raise refusal
            raise EmqIdError(refusal.gate, f"{refusal.args[1]}: {read.text}")
        if read.unacknowledged is not None:
            self.pending = read.lease
            try:
                yield from self.release()
            except Exception:
                pass  # left to its TTL; the refusal is the answer
            raise read.unacknowledged
        raise read.fault or LeaseWireError(f"{name}: {read.text}")

    # -- what minting threads call

    def next(self) -> Minted:
        lease = self.current
        if lease is None:
            raise EmqIdError("node", "no lease is held: the holder is taking one (its stats say for how long)")
        return Minted(lease.minter.next(), lease.held.ordinal)


# ---- The client: checks, and the connections a write goes on.


def _check(replicas: object, terms: object) -> LeaseTerms:
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        raise TypeError(f"replicas must be an int, not {type(replicas).__name__}")
    if replicas < 0:
        raise EmqIdError("range", f"replicas must be 0 or more, not {replicas}")
    if terms is None:
        return LeaseTerms.DEFAULT
    if not isinstance(terms, LeaseTerms):
        raise TypeError(f"terms must be a LeaseTerms or None, not {type(terms).__name__}")
    return terms


def _read_timeout(client: Any) -> Optional[float]:
    """The client's socket read timeout (s), where redis-py keeps it; ``None``: unknown or none."""
    for owner in (getattr(client, "connection_pool", None), getattr(client, "nodes_manager", None), client):
        kwargs = getattr(owner, "connection_kwargs", None)
        if isinstance(kwargs, dict):
            timeout = kwargs.get("socket_timeout")
            return float(timeout) if isinstance(timeout, (int, float)) else None
    return None


def _check_client(client: object, terms: LeaseTerms, asynchronous: bool) -> None:
    pool = getattr(client, "connection_pool", None)
    if not callable(getattr(client, "pipeline", None)) or not (_is_cluster(client) or hasattr(pool, "get_connection")):
        raise TypeError(f"client must be a redis-py client (Redis or RedisCluster), not {type(client).__name__}")
    is_async = inspect.iscoroutinefunction(getattr(client, "execute_command", None))
    if is_async != asynchronous:
        other = "AsyncLease (redis.asyncio)" if is_async else "Lease (a sync client)"
        raise TypeError(f"{type(client).__module__}.{type(client).__name__} needs {other}")
    timeout = _read_timeout(client)
    if timeout is not None and timeout * 1000 <= terms.wait_ms:
        # WAIT's reply would time out as a fault, leaving a node taken and unaccounted for.
        raise EmqIdError(
            "range", f"the client's socket_timeout ({timeout} s) must exceed the terms' WAIT timeout ({terms.wait_ms} ms)"
        )


def _is_cluster(client: object) -> bool:
    return hasattr(client, "nodes_manager") and hasattr(client, "get_node_from_key")


def _is_node(target: object) -> bool:
    """Whether ``target`` is a ``redis.asyncio`` cluster node (connections of its own, no pipeline)."""
    return hasattr(target, "acquire_connection")


def _host(client: Any) -> str:
    """The host a plain client's connections are opened to."""
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", None)
    host = kwargs.get("host") if isinstance(kwargs, dict) else None
    return host if isinstance(host, str) else ""


def _client_of(client: Any, node: _Node) -> Any:
    """A plain client like ``client`` (its class, its pool's class and options) to another node,
    whose connections retry nothing (not even connecting: the keeper decides what is tried again)."""
    pool = client.connection_pool
    kwargs = {**pool.connection_kwargs, "host": node[0], "port": node[1], "retry": None, "retry_on_error": []}
    kwargs.pop("retry_on_timeout", None)  # a retry of its own, if an older redis-py keeps it
    return type(client)(connection_pool=type(pool)(connection_class=pool.connection_class, **kwargs))


def _connection_of(pool: Any) -> Any:
    """A connection of a redis-py pool (before redis-py 5.3 it wanted a command's name)."""
    first = next(iter(inspect.signature(pool.get_connection).parameters.values()), None)
    needs_name = first is not None and first.default is inspect.Parameter.empty and first.kind in _POSITIONAL
    return pool.get_connection("EVAL") if needs_name else pool.get_connection()


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

#: What a write may wait for its replies past ``WAIT``'s timeout (ms), unless the client's socket
#: timeout is longer.
_SLACK_MS = 1_000


class _Moved(NamedTuple):
    """A ``MOVED`` as redis-py's nodes manager takes it (``move_slot``)."""

    slot_id: int
    host: str
    port: int


class _Common:
    _holder: _Holder

    def __init__(self, client: Client, holder: _Holder) -> None:
        self._client: Any = client
        self._holder = holder
        self._released: Optional[bool] = None
        #: Clients (or cluster nodes) this holder opened to nodes an ``ASK`` named, by node.
        self._asked: Dict[_Node, Any] = {}
        timeout = _read_timeout(client)
        #: How long (s) a write waits for a reply (a sync write: for each, and to connect):
        #: ``WAIT``'s timeout and a second more, or the client's ``socket_timeout`` when it is longer.
        #: A server that stops answering ends the write as a fault: it never holds the acquire,
        #: the renewer or a release.
        self._within = max(holder.terms.wait_ms + _SLACK_MS, 0 if timeout is None else timeout * 1000) / 1000

    @property
    def held(self) -> Optional[Held]:
        """The lease held now, if any."""
        lease = self._holder.current
        return None if lease is None else lease.held

    @property
    def node(self) -> Optional[int]:
        """The node leased now, if any."""
        held = self.held
        return None if held is None else held.node

    @property
    def minter(self) -> Optional[LeasedMinter]:
        """The minter of the lease held now (a later lease has another)."""
        lease = self._holder.current
        return None if lease is None else lease.minter

    @property
    def stats(self) -> HolderStats:
        """Leases taken and lost, and the time without one."""
        return self._holder.stats.snapshot()

    def next_minted(self) -> Minted:
        """A snowflake and the ordinal of the lease that minted it; ``node`` while no lease is held."""
        return self._holder.next()

    def next(self) -> int:
        """A snowflake minted on the lease held now. ``node`` while none is held,
        once its fence has closed, or while a burst waits for the next renewal."""
        return self._holder.next().snowflake

    def mint(self, ns: Union[str, bytes]) -> str:
        """An id of namespace ``ns`` on the lease held now (as ``next``)."""
        encode(ns, 0)  # the namespace's gates before a snowflake is spent
        return encode(ns, self._holder.next().snowflake)

    def _moved(self, request: _Refresh) -> Optional[_Moved]:
        """The ``MOVED`` a cluster client's nodes manager is told of; ``None``: load the slot map."""
        return None if request.moved is None else _Moved(*request.moved)


class Lease(_Common):
    """A node lease held for a redis-py sync client (``redis.Redis`` or
    ``redis.cluster.RedisCluster``): renewed on a daemon thread, minted on by
    any thread."""

    def __init__(self, client: Client, holder: _Holder) -> None:
        super().__init__(client, holder)
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        #: The holder's own connection (``_wire``) by pool (kept with it).
        self._wires: Dict[int, Tuple[Any, Any]] = {}

    @classmethod
    def acquire(cls, client: Client, *, replicas: int = LEASE_REPLICAS, terms: Optional[LeaseTerms] = None) -> Lease:
        """Takes a free node and returns once ``replicas`` replicas acknowledged it.
        ``node`` when every node is leased, when the acquire was not acknowledged in
        ``terms.wait_ms`` (that lease is released), or when the reserve did not run it
        for a whole TTL (the cluster down or resharding: the message names the server's
        reply); redis-py's errors when Valkey cannot be reached."""
        terms = _check(replicas, terms)
        _check_client(client, terms, asynchronous=False)
        lease = cls(client, _Holder(replicas, terms))
        try:
            after = lease._drive(lease._holder.start())
        except BaseException:
            lease._close_asked()
            raise
        assert after is not None, "the first acquire is not stopped"
        lease._thread = threading.Thread(target=lease._drive, args=(lease._holder.keep(after),), name="emq-lease")
        lease._thread.daemon = True
        lease._thread.start()
        return lease

    def _drive(self, run: _Run[T]) -> Optional[T]:
        """Does a run's I/O until it answers (``None``: stopped in a sleep)."""
        try:
            request = next(run)
            while True:
                result: Optional[_Sent] = None
                if isinstance(request, _Sleep):
                    if not request.stoppable:
                        time.sleep(request.ms / 1000)
                    elif self._stop.wait(request.ms / 1000):
                        run.close()
                        return None
                elif isinstance(request, _Refresh):
                    self._refresh(request)
                else:
                    result = self._send(request)
                request = run.send(result)
        except StopIteration as done:
            answer: T = done.value
            return answer

    def _send(self, request: _Send) -> _Sent:
        """A write on one connection, pipelined: the reserve's primary's, or the node's an ``ASK`` named."""
        host = "" if request.node is None else request.node[0]
        try:
            client, host = self._connection(request.node)
            commands = request.write.commands(asking=request.node is not None)
            return _Sent(host, _on_wire(self._wire(client.connection_pool), commands))
        except Exception as raised:
            return _Sent(host, [], raised)

    def _wire(self, pool: Any) -> Any:
        """The holder's own connection to a pool's node, made as the pool makes its connections,
        but reading within ``_within`` and retrying nothing (a write that may have run is never
        sent again by the client). Not one of the pool's: the holder's reads are bounded, and a
        reply it left unread never reaches the program's commands."""
        kept = self._wires.get(id(pool))
        if kept is None or kept[0] is not pool:
            kwargs = {**pool.connection_kwargs, "socket_timeout": self._within, "retry": None, "retry_on_error": []}
            if kwargs.get("socket_connect_timeout") is None:
                kwargs["socket_connect_timeout"] = self._within
            kwargs.pop("retry_on_timeout", None)  # a retry of its own, if an older redis-py keeps it
            kept = (pool, pool.connection_class(**kwargs))
            self._wires[id(pool)] = kept
        return kept[1]

    def _connection(self, node: Optional[_Node]) -> Tuple[Any, str]:
        """The client of one node: the reserve's primary (``None``) or ``node``, and its host.
        A cluster client's own client of that node, never its redirect following: the ``WAIT``
        runs on the connection that ran the script."""
        client = self._client
        if node is None:
            if _is_cluster(client):
                primary = client.get_node_from_key(LEASE_KEY)
                return client.get_redis_connection(primary), str(primary.host)
            return client, _host(client)
        if _is_cluster(client):
            known = client.get_node(host=node[0], port=node[1])
            if known is not None:
                return client.get_redis_connection(known), node[0]
        other = self._asked.get(node)
        if other is None:
            if _is_cluster(client):
                manager = client.nodes_manager
                other = manager.create_redis_node(node[0], node[1], **manager.connection_kwargs)
            else:
                other = _client_of(client, node)
            self._asked[node] = other
        return other, node[0]

    def _refresh(self, request: _Refresh) -> None:
        """A cluster client follows a ``MOVED`` to its node, else reloads its slot map. A broken
        connection of the holder's was closed when it broke (the next write opens it again)."""
        if not _is_cluster(self._client):
            return
        moved = self._moved(request)
        try:
            if moved is not None:
                self._client.nodes_manager.move_slot(moved)
            else:
                self._client.nodes_manager.initialize()
        except Exception:
            pass  # no node answered: the next write tries again

    def release(self) -> bool:
        """Stops minting and renewing, and hands the node back with its high
        water (``False``: none was held, or it was already gone or another's)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        if self._released is None:
            self._released = False
            try:
                self._released = bool(self._drive(self._holder.release()))
            finally:
                self._close_asked()
        return self._released

    def _close_asked(self) -> None:
        """Closes the holder's connections, and the clients opened to nodes an ``ASK`` named with
        their pools (a client given a pool does not close it)."""
        for _, wire in self._wires.values():
            wire.disconnect()
        self._wires.clear()
        for other in self._asked.values():
            other.close()
            other.connection_pool.disconnect()
        self._asked.clear()

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class AsyncLease(_Common):
    """A node lease held for a ``redis.asyncio`` client (``Redis`` or
    ``cluster.RedisCluster``), renewed by an asyncio task."""

    def __init__(self, client: Client, holder: _Holder) -> None:
        super().__init__(client, holder)
        self._stop = asyncio.Event()
        self._task: Optional[asyncio.Task[None]] = None

    @classmethod
    async def acquire(
        cls, client: Client, *, replicas: int = LEASE_REPLICAS, terms: Optional[LeaseTerms] = None
    ) -> AsyncLease:
        """As ``Lease.acquire``, awaited; renewals on a task of the running loop."""
        terms = _check(replicas, terms)
        _check_client(client, terms, asynchronous=True)
        lease = cls(client, _Holder(replicas, terms))
        try:
            after = await lease._drive(lease._holder.start())
        except BaseException:
            await lease._close_asked()
            raise
        assert after is not None, "the first acquire is not stopped"
        lease._task = asyncio.get_running_loop().create_task(lease._keep(after), name="emq-lease")
        return lease

    async def _keep(self, after: int) -> None:
        await self._drive(self._holder.keep(after))

    async def _drive(self, run: _Run[T]) -> Optional[T]:
        """As ``Lease._drive``, awaited."""
        try:
            request = next(run)
            while True:
                result: Optional[_Sent] = None
                if isinstance(request, _Sleep):
                    if not request.stoppable:
                        await asyncio.sleep(request.ms / 1000)
                    elif await _stopped(self._stop, request.ms):
                        run.close()
                        return None
                elif isinstance(request, _Refresh):
                    await self._refresh(request)
                else:
                    result = await self._send(request)
                request = run.send(result)
        except StopIteration as done:
            answer: T = done.value
            return answer

    async def _send(self, request: _Send) -> _Sent:
        """As ``Lease._send``: a connection of a plain client's pool, or of a cluster node."""
        host = "" if request.node is None else request.node[0]
        commands = request.write.commands(asking=request.node is not None)
        try:
            target, host = await self._connection(request.node)
            if _is_node(target):
                return _Sent(host, await _bounded(_on_node(target, commands), self._within))
            return _Sent(host, await _bounded(_on_async_pool(target.connection_pool, commands), self._within))
        except Exception as raised:
            return _Sent(host, [], raised)

    async def _connection(self, node: Optional[_Node]) -> Tuple[Any, str]:
        """As ``Lease._connection``: a plain client, or a cluster client's node (``ClusterNode``)."""
        client = self._client
        if _is_cluster(client):
            await client.initialize()  # a no-op once its slot map is loaded
            if node is None:
                primary = client.get_node_from_key(LEASE_KEY)
                return primary, str(primary.host)
            known = client.get_node(host=node[0], port=node[1])
            if known is not None:
                return known, node[0]
        elif node is None:
            return client, _host(client)
        other = self._asked.get(node)
        if other is None:
            if _is_cluster(client):
                primary = client.get_node_from_key(LEASE_KEY)
                other = type(primary)(node[0], node[1], "primary", **client.nodes_manager.connection_kwargs)
            else:
                other = _client_of(client, node)
            self._asked[node] = other
        return other, node[0]

    async def _refresh(self, request: _Refresh) -> None:
        """As ``Lease._refresh``."""
        if not _is_cluster(self._client):
            return
        moved = self._moved(request)
        try:
            if moved is not None:
                await self._client.nodes_manager.move_slot(moved)
            else:
                await self._client.nodes_manager.initialize()
        except Exception:
            pass

    async def release(self) -> bool:
        """As ``Lease.release``, awaited."""
        self._stop.set()
        if self._task is not None:
            await self._task
        if self._released is None:
            self._released = False
            try:
                self._released = bool(await self._drive(self._holder.release()))
            finally:
                await self._close_asked()
        return self._released

    async def _close_asked(self) -> None:
        """As ``Lease._close_asked``: a cluster node's connections, or a client and its pool."""
        for other in self._asked.values():
            if _is_node(other):
                await other.disconnect()
            else:
                await other.aclose()
                await other.connection_pool.disconnect()
        self._asked.clear()

    async def __aenter__(self) -> AsyncLease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()


async def _stopped(stop: asyncio.Event, ms: int) -> bool:
    """Waits ``ms`` unless ``stop`` is set first: whether it was."""
    try:
        await asyncio.wait_for(stop.wait(), ms / 1000)
        return True
    except asyncio.TimeoutError:
        return False


# ---- One write on one connection: the commands pipelined, each reply read (an error reply is
# raised by redis-py: it is kept as the reply). Not redis-py's pipeline, which sends the whole
# pipeline again after a connection error or a timeout when the client retries (its default):
# a write that may have run, sent again, and a raised LOADING read as if nothing had run.


def _kept(replies: list[object], error: Exception) -> bool:
    """What reading a reply raised: kept as the reply when it is one (``True``: the connection
    reads on; ``False``: it closed with it), else raised."""
    if not _is_reply(error):
        raise error
    replies.append(error)
    return _is_response(error)


def _on_wire(conn: Any, commands: list[tuple[object, ...]]) -> list[object]:
    """``commands`` on the holder's own connection (``_wire``): the replies, errors among them.
    A connection with replies left unread is closed: the next write on it never reads this one's."""
    try:
        conn.send_packed_command(conn.pack_commands(commands))
        replies: list[object] = []
        while len(replies) < len(commands):
            try:
                replies.append(conn.read_response())
            except Exception as e:
                if not _kept(replies, e):
                    break
        if len(replies) < len(commands):
            conn.disconnect()
        return replies
    except BaseException:
        conn.disconnect()
        raise


async def _bounded(write: Awaitable[T], within: float) -> T:
    """An asyncio write within ``within`` s: past it, cancelled (its connection closed)."""
    try:
        return await asyncio.wait_for(write, within)
    except asyncio.TimeoutError:
        raise TimeoutError(f"no reply in {round(within * 1000)} ms") from None


async def _on_async_pool(pool: Any, commands: list[tuple[object, ...]]) -> list[object]:
    """As ``_on_wire``, on a connection of a ``redis.asyncio`` pool, given back to it."""
    return await _on_connection(await _connection_of(pool), commands, pool.release)


async def _on_node(node: Any, commands: list[tuple[object, ...]]) -> list[object]:
    """As ``_on_async_pool``, for a ``redis.asyncio`` cluster node (it keeps connections per node)."""
    return await _on_connection(node.acquire_connection(), commands, node.release)


async def _on_connection(conn: Any, commands: list[tuple[object, ...]], release: Any) -> list[object]:
    """As ``_on_wire``, awaited, on ``conn``, given back by ``release`` (awaited where it is async);
    cancelled at the deadline, the connection is closed."""
    try:
        await conn.send_packed_command(conn.pack_commands(commands))
        replies: list[object] = []
        while len(replies) < len(commands):
            try:
                replies.append(await conn.read_response())
            except Exception as e:
                if not _kept(replies, e):
                    break
        if len(replies) < len(commands):
            await conn.disconnect()
        return replies
    except BaseException:
        await conn.disconnect()
        raise
    finally:
        released = release(conn)
        if inspect.isawaitable(released):
            await released
