"""A node lease on Valkey held in one call (SPEC.md §5.2, ``emq-lease/3``), over
the redis-py client a program already has.

>>> import redis, emq_id.holder                                   # doctest: +SKIP
>>> lease = emq_id.holder.Lease.acquire(redis.Redis(), replicas=1) # doctest: +SKIP
>>> lease.mint("USR")                                             # doctest: +SKIP

``Lease.acquire`` returns once a node's acquire is acknowledged by ``replicas``
replicas (``WAIT``); a daemon thread renews it every third of the TTL, follows
a failover through the client's topology, and when the lease is lost or fenced
takes another node, its ids after every id minted before. ``AsyncLease`` is the
same over ``redis.asyncio`` with a task.

The scripts, the lease key, the acknowledgement rule and the arithmetic are
the core's (``LEASE_SCRIPTS``, ``LEASE_KEY``, ``parse_wait``,
``LeasedMinter``…): this module only moves them over the client's connection.
``redis`` is not a dependency of the package: the client is whatever the
caller passes.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import secrets
import threading
import time
from typing import Any, NamedTuple, Optional, Protocol, Union

from . import (
    EmqIdError,
    LEASE_KEY,
    LEASE_NODES,
    LEASE_REPLICAS,
    LEASE_SCRIPTS,
    LeasedMinter,
    LeaseScript,
    LeaseTerms,
    encode,
    monotonic_ms,
    parse_acquire,
    parse_acquire_error,
    parse_renewal,
    parse_wait,
)

__all__ = ["AsyncLease", "Client", "Held", "HolderStats", "Lease", "LeaseWireError", "Minted"]


class Client(Protocol):
    """What the holders use of a redis-py client (``redis.Redis``,
    ``redis.cluster.RedisCluster``, and their ``redis.asyncio`` twins): its
    pipeline, and for a cluster its node of the reserve's slot."""

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


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class _Lease:
    __slots__ = ("minter", "token", "held")

    def __init__(self, minter: LeasedMinter, token: str, held: Held) -> None:
        self.minter = minter
        self.token = token
        self.held = held


class _Write:
    """One lease write: the script by ``EVAL``, and ``WAIT`` when ``replicas`` > 0."""

    __slots__ = ("script", "keys", "args", "replicas", "wait_ms", "sent")

    def __init__(self, script: LeaseScript, keys: list[str], args: list[object], replicas: int, wait_ms: int) -> None:
        self.script = script
        self.keys = keys
        self.args = args
        self.replicas = replicas
        self.wait_ms = wait_ms
        self.sent = monotonic_ms()

    def commands(self) -> list[tuple[object, ...]]:
        eval_ = ("EVAL", self.script.text, len(self.keys), *self.keys, *self.args)
        return [eval_, ("WAIT", self.replicas, self.wait_ms)] if self.replicas else [eval_]


class LeaseWireError(Exception):
    """Valkey answered a lease write with something the holder cannot use now
    (``MOVED``, ``READONLY``, ``CLUSTERDOWN``, a reply the protocol does not
    give). The holder refreshes the client's topology and tries again; only
    ``acquire`` raises it (as it raises the client's own connection errors)."""

    #: The script's error reply, when it redirected the write (``MOVED``/``ASK``).
    redirect: Optional[Exception] = None


def _text(reply: object) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)


def _int(reply: object, what: str) -> int:
    if isinstance(reply, int) and not isinstance(reply, bool):
        return reply
    raise LeaseWireError(f"lease script: {what}: {reply!r}")


class _Answer(NamedTuple):
    """What became of a write: ``refused`` (did not run, or every node leased),
    else the script's reply and the acknowledgement (``None``: acknowledged)."""

    refused: Optional[EmqIdError]
    reply: object
    unacknowledged: Optional[EmqIdError]


def _read(write: _Write, replies: list[object]) -> _Answer:
    """The replies of one write, read as script.rs reads them."""
    if not replies:
        raise LeaseWireError("no reply")
    reply = replies[0]
    if isinstance(reply, Exception):
        message = _text(reply.args[0] if reply.args else reply)
        if "NOREPLICAS" in message or type(reply).__name__ == "NoReplicasError":
            # min-replicas-to-write refused the script before it ran: no write happened.
            try:
                parse_wait(0, max(write.replicas, 1))
            except EmqIdError as not_run:
                return _Answer(not_run, None, None)
        every_leased = parse_acquire_error(message)
        if every_leased is None:
            fault = LeaseWireError(f"{write.script.name}: {message}")
            if hasattr(reply, "slot_id") and hasattr(reply, "host"):
                fault.redirect = reply  # redis-py's MovedError / AskError: where the slot went
            raise fault
        return _Answer(every_leased, None, None)
    unacknowledged: Optional[EmqIdError] = None
    if write.replicas:
        if len(replies) < 2 or isinstance(replies[1], Exception):
            raise LeaseWireError(f"WAIT: {replies[1:]!r}")
        try:
            parse_wait(_int(replies[1], "WAIT"), write.replicas)
        except EmqIdError as e:
            if e.gate != "node":
                raise LeaseWireError(str(e)) from None
            unacknowledged = e
    return _Answer(None, reply, unacknowledged)


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

    def leased_again(self) -> None:
        with self.lock:
            if self.unleased_since is not None:
                self.longest = max(self.longest, monotonic_ms() - self.unleased_since)
                self.unleased_since = None

    def snapshot(self) -> HolderStats:
        with self.lock:
            now = None if self.unleased_since is None else monotonic_ms() - self.unleased_since
            return HolderStats(self.taken, self.lost, now, max(self.longest, now or 0))


class _Keeper:
    """The holder's state machine, without I/O (keeper.rs's): ``plan`` says
    the next write, ``settle`` reads its replies. Held: renewed; pending (an
    acquire not acknowledged): renewed until a renewal is; neither: acquire."""

    def __init__(self, replicas: int, terms: LeaseTerms) -> None:
        self.replicas = replicas
        self.terms = terms
        self.current: Optional[_Lease] = None  # what minting threads read
        self.held: Optional[_Lease] = None
        self.pending: Optional[_Lease] = None
        self.answered_at = 0
        self.not_before = 0
        self.ordinals = 0
        self.stats = _Stats()
        self.every = max(terms.ttl_ms // 3, 1) / 1000
        self.retry = min(max(terms.ttl_ms // 20, 10), 250) / 1000
        self.now = 0

    # -- writes

    def acquire_write(self, now: int) -> _Write:
        token = secrets.token_hex(16)
        self.now = now
        args: list[object] = [token, self.terms.ttl_ms, random.randrange(LEASE_NODES), LEASE_NODES, self.now]
        return _Write(LEASE_SCRIPTS["acquire"], [LEASE_KEY], args, self.replicas, self.terms.wait_ms)

    def renew_write(self, lease: _Lease, mark: int, release: bool = False) -> _Write:
        node = lease.held.node
        if release:
            return _Write(LEASE_SCRIPTS["release"], [LEASE_KEY], [lease.token, mark, node], 0, self.terms.wait_ms)
        args: list[object] = [lease.token, self.terms.ttl_ms, mark, node]
        return _Write(LEASE_SCRIPTS["renew"], [LEASE_KEY], args, self.replicas, self.terms.wait_ms)

    def plan(self) -> tuple[str, _Write, Optional[_Lease], int]:
        """The next write: ``("renew" | "pending" | "acquire", write, lease, mark)``."""
        self.expire_fenced()
        lease = self.held or self.pending
        if lease is not None:
            mark = lease.minter.next_mark(_now_ms())
            return ("renew" if self.held else "pending", self.renew_write(lease, mark), lease, mark)
        # No earlier than one past this holder's last minted ms: its ids keep their order across leases.
        now = max(_now_ms(), self.not_before)
        # A clock the contract cannot hold is refused before a node is taken (a dry start).
        LeasedMinter(parse_acquire(0, -1), now, monotonic_ms(), self.terms)
        return ("acquire", self.acquire_write(now), None, 0)

    # -- the state machine

    def expire_fenced(self) -> None:
        lease = self.held
        if lease is None:
            return
        now = monotonic_ms()
        if now >= lease.minter.fence_ms:
            self.stats.unleased()
        if now >= self.answered_at + self.terms.ttl_ms:
            self.lose()

    def lose(self) -> None:
        lease, self.held = self.held, None
        if lease is None:
            return
        lease.minter.stop()
        self.not_before = max(self.not_before, lease.minter.high_water + 1)
        self.current = None
        with self.stats.lock:
            self.stats.lost += 1
            if self.stats.unleased_since is None:
                self.stats.unleased_since = monotonic_ms()

    def publish(self, lease: _Lease, answered_at: int) -> None:
        self.held, self.answered_at, self.current = lease, answered_at, lease
        with self.stats.lock:
            self.stats.taken += 1
        self.stats.leased_again()

    def settle_acquire(self, write: _Write, answer: _Answer) -> Optional[EmqIdError]:
        """``None``: held; else the refusal (every node leased; or pending)."""
        if answer.refused is not None:
            return answer.refused
        pair = answer.reply
        if not isinstance(pair, list) or len(pair) != 2:
            raise LeaseWireError(f"acquire answers {{node, mark}}: {pair!r}")
        try:
            acquired = parse_acquire(_int(pair[0], "node"), _int(pair[1], "mark"))
        except EmqIdError as e:
            raise LeaseWireError(f"acquire's reply: {e}") from None
        try:
            minter = LeasedMinter(acquired, self.now, write.sent, self.terms)
        except EmqIdError as refusal:
            return refusal  # a mark near the end of the contract's time: the node is left to its TTL
        self.ordinals += 1
        lease = _Lease(minter, str(write.args[0]), Held(acquired.node, acquired.previous_mark, self.ordinals))
        if answer.unacknowledged is None:
            self.publish(lease, write.sent)
            return None
        self.pending = lease
        return answer.unacknowledged

    def renewal(self, write: _Write, answer: _Answer) -> Optional[bool]:
        """A renewal's outcome: ``None`` did not run, ``True`` the lease's, ``False`` gone."""
        if answer.refused is not None:
            return None
        try:
            parse_renewal(_int(answer.reply, write.script.name))
        except EmqIdError as e:
            if e.gate != "node":
                raise LeaseWireError(f"{write.script.name}: {e}") from None
            return False
        return True

    def settle(self, kind: str, write: _Write, lease: Optional[_Lease], mark: int, answer: _Answer) -> tuple[bool, bool]:
        """Reads a write's replies: ``(ok, again)`` — ``ok`` a lease is held and
        acknowledged (next tick a third of the TTL on), ``again`` acquire at once."""
        if kind == "acquire":
            return self.settle_acquire(write, answer) is None, False
        assert lease is not None
        outcome = self.renewal(write, answer)
        if outcome is None:  # NOREPLICAS: nothing changed; try again soon
            return False, False
        if kind == "renew":
            if outcome:
                self.answered_at = write.sent  # still this holder's on the primary
                if answer.unacknowledged is None:
                    lease.minter.renewed(write.sent, mark)
                    self.stats.leased_again()
                    return True, False
                return False, False
            self.lose()
            return False, True  # another node at once
        self.pending = None
        if outcome:
            if answer.unacknowledged is None:
                lease.minter.renewed(write.sent, mark)
                self.publish(lease, write.sent)
                return True, False
            self.pending = lease
            return False, False
        return False, True  # lost before it counted (a failover took it): take another

    def releasing(self) -> tuple[Optional[_Write], bool]:
        """Stops minting; the release write of what is held or pending."""
        held, pending = self.held, self.pending
        self.held = self.pending = self.current = None
        lease = held or pending
        if lease is None:
            return None, False
        lease.minter.stop()
        return self.renew_write(lease, lease.minter.high_water, release=True), held is not None

    # -- what minting threads call

    def next(self) -> Minted:
        lease = self.current
        if lease is None:
            raise EmqIdError("node", "no lease is held: the holder is taking one (its stats say for how long)")
        return Minted(lease.minter.next(), lease.held.ordinal)


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
    if not callable(getattr(client, "pipeline", None)):
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


class _Common:
    _keeper: _Keeper

    @property
    def held(self) -> Optional[Held]:
        """The lease held now, if any."""
        lease = self._keeper.current
        return None if lease is None else lease.held

    @property
    def node(self) -> Optional[int]:
        """The node leased now, if any."""
        held = self.held
        return None if held is None else held.node

    @property
    def minter(self) -> Optional[LeasedMinter]:
        """The minter of the lease held now (a later lease has another)."""
        lease = self._keeper.current
        return None if lease is None else lease.minter

    @property
    def stats(self) -> HolderStats:
        """Leases taken and lost, and the time without one."""
        return self._keeper.stats.snapshot()

    def next_minted(self) -> Minted:
        """A snowflake and the ordinal of the lease that minted it; ``node`` while no lease is held."""
        return self._keeper.next()

    def next(self) -> int:
        """A snowflake minted on the lease held now. ``node`` while none is held,
        once its fence has closed, or while a burst waits for the next renewal."""
        return self._keeper.next().snowflake

    def mint(self, ns: Union[str, bytes]) -> str:
        """An id of namespace ``ns`` on the lease held now (as ``next``)."""
        encode(ns, 0)  # the namespace's gates before a snowflake is spent
        return encode(ns, self._keeper.next().snowflake)


class Lease(_Common):
    """A node lease held for a redis-py sync client (``redis.Redis`` or
    ``redis.cluster.RedisCluster``): renewed on a daemon thread, minted on by
    any thread."""

    def __init__(self, client: Client, keeper: _Keeper) -> None:
        self._client: Any = client
        self._keeper = keeper
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._released: Optional[bool] = None

    @classmethod
    def acquire(cls, client: Client, *, replicas: int = LEASE_REPLICAS, terms: Optional[LeaseTerms] = None) -> Lease:
        """Takes a free node and returns once ``replicas`` replicas acknowledged it.
        ``node`` when every node is leased or the acquire was not acknowledged in
        ``terms.wait_ms`` (that lease is released); redis-py's errors when Valkey
        cannot be reached."""
        terms = _check(replicas, terms)
        _check_client(client, terms, asynchronous=False)
        lease = cls(client, _Keeper(replicas, terms))
        _, write, _, _ = lease._keeper.plan()
        try:
            refusal = lease._keeper.settle_acquire(write, lease._send(write))
        except Exception as fault:
            lease._refresh(fault)  # the caller's next try finds the reserve's primary
            raise
        if refusal is not None:
            try:
                lease._release_now()  # an unacknowledged lease, handed back
            except Exception:
                pass  # left to its TTL; the refusal is the answer
            raise refusal
        lease._thread = threading.Thread(target=lease._run, name="emq-lease", daemon=True)
        lease._thread.start()
        return lease

    def _send(self, write: _Write) -> _Answer:
        """The write on one connection of the reserve's primary, pipelined."""
        client = self._client
        if _is_cluster(client):
            client = client.get_redis_connection(client.get_node_from_key(LEASE_KEY))
        pipe = client.pipeline(transaction=False)
        for command in write.commands():
            pipe.execute_command(*command)
        return _read(write, list(pipe.execute(raise_on_error=False)))

    def _refresh(self, fault: Exception) -> None:
        """After a fault: a cluster client follows a ``MOVED`` to its target, else reloads its slot map."""
        if _is_cluster(self._client):
            redirect = getattr(fault, "redirect", None)
            try:
                if redirect is not None:
                    self._client.nodes_manager.move_slot(redirect)
                else:
                    self._client.nodes_manager.initialize()
            except Exception:
                pass  # no node answered: the next tick tries again

    def _tick(self) -> float:
        keeper = self._keeper
        try:
            kind, write, lease, mark = keeper.plan()
            ok, again = keeper.settle(kind, write, lease, mark, self._send(write))
            if again:
                _, write, _, _ = keeper.plan()
                ok = keeper.settle_acquire(write, self._send(write)) is None
        except Exception as fault:
            self._refresh(fault)
            return keeper.retry
        return keeper.every if ok else keeper.retry

    def _run(self) -> None:
        wait = self._keeper.every
        while not self._stop.wait(wait):
            wait = self._tick()

    def _release_now(self) -> bool:
        if self._released is not None:
            return self._released
        write, was_held = self._keeper.releasing()
        self._released = False
        if write is not None:
            answer = self._send(write)
            self._released = was_held and self._keeper.renewal(write, answer) is True
        return self._released

    def release(self) -> bool:
        """Stops minting and renewing, and hands the node back with its high
        water (``False``: none was held, or it was already gone or another's)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        return self._release_now()

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class AsyncLease(_Common):
    """A node lease held for a ``redis.asyncio`` client (``Redis`` or
    ``cluster.RedisCluster``), renewed by an asyncio task."""

    def __init__(self, client: Client, keeper: _Keeper) -> None:
        self._client: Any = client
        self._keeper = keeper
        self._stop = asyncio.Event()
        self._task: Optional[asyncio.Task[None]] = None
        self._released: Optional[bool] = None

    @classmethod
    async def acquire(
        cls, client: Client, *, replicas: int = LEASE_REPLICAS, terms: Optional[LeaseTerms] = None
    ) -> AsyncLease:
        """As ``Lease.acquire``, awaited; renewals on a task of the running loop."""
        terms = _check(replicas, terms)
        _check_client(client, terms, asynchronous=True)
        lease = cls(client, _Keeper(replicas, terms))
        _, write, _, _ = lease._keeper.plan()
        try:
            refusal = lease._keeper.settle_acquire(write, await lease._send(write))
        except Exception as fault:
            await lease._refresh(fault)
            raise
        if refusal is not None:
            try:
                await lease._release_now()  # an unacknowledged lease, handed back
            except Exception:
                pass  # left to its TTL; the refusal is the answer
            raise refusal
        lease._task = asyncio.get_running_loop().create_task(lease._run(), name="emq-lease")
        return lease

    async def _send(self, write: _Write) -> _Answer:
        client = self._client
        if not _is_cluster(client):
            pipe = client.pipeline(transaction=False)
            for command in write.commands():
                pipe.execute_command(*command)
            return _read(write, list(await pipe.execute(raise_on_error=False)))
        # redis.asyncio's cluster keeps connections per node: both commands on one of them.
        await client.initialize()  # a no-op once its slot map is loaded
        node = client.get_node_from_key(LEASE_KEY)
        conn = node.acquire_connection()
        try:
            await conn.send_packed_command(conn.pack_commands(write.commands()))
            replies: list[object] = []
            for _ in write.commands():
                try:
                    replies.append(await conn.read_response())
                except Exception as e:
                    if type(e).__name__ in ("ConnectionError", "TimeoutError") or isinstance(e, OSError):
                        raise
                    replies.append(e)
        except BaseException:
            await conn.disconnect()
            raise
        finally:
            node.release(conn)
        return _read(write, replies)

    async def _refresh(self, fault: Exception) -> None:
        """As ``Lease._refresh``."""
        if _is_cluster(self._client):
            redirect = getattr(fault, "redirect", None)
            try:
                if redirect is not None:
                    await self._client.nodes_manager.move_slot(redirect)
                else:
                    await self._client.nodes_manager.initialize()
            except Exception:
                pass

    async def _tick(self) -> float:
        keeper = self._keeper
        try:
            kind, write, lease, mark = keeper.plan()
            ok, again = keeper.settle(kind, write, lease, mark, await self._send(write))
            if again:
                _, write, _, _ = keeper.plan()
                ok = keeper.settle_acquire(write, await self._send(write)) is None
        except Exception as fault:
            await self._refresh(fault)
            return keeper.retry
        return keeper.every if ok else keeper.retry

    async def _run(self) -> None:
        wait = self._keeper.every
        while True:
            try:
                await asyncio.wait_for(self._stop.wait(), wait)
                return
            except asyncio.TimeoutError:
                wait = await self._tick()

    async def _release_now(self) -> bool:
        if self._released is not None:
            return self._released
        write, was_held = self._keeper.releasing()
        self._released = False
        if write is not None:
            answer = await self._send(write)
            self._released = was_held and self._keeper.renewal(write, answer) is True
        return self._released

    async def release(self) -> bool:
        """As ``Lease.release``, awaited."""
        self._stop.set()
        if self._task is not None:
            await self._task
        return await self._release_now()

    async def __aenter__(self) -> AsyncLease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()
