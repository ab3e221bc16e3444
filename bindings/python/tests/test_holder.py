"""The one-call holder (emq_id.holder) without a server: the options it
refuses, the wire it writes, and what it does with each reply the core reads
(a redirect followed, a write that did not run tried again, a lease lost),
against a scripted stand-in for a redis-py client whose error replies are
redis-py's own. The live protocol, failovers included, runs in
test_holder_live.py and `cargo xtask chaos` (examples/chaos_holder.py)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Dict, List, Optional, Tuple

import pytest
import redis
import redis.asyncio
from redis._parsers import BaseParser

import emq_id
from emq_id.holder import AsyncLease, Held, HolderStats, Lease, LeaseWireError, Minted

Command = Tuple[Any, ...]
PARSER: Any = BaseParser


def error(text: str) -> Exception:
    """The exception redis-py makes of an error reply (``MOVED 9051 …`` is a ``MovedError("9051 …")``)."""
    made: Exception = PARSER.parse_error(text)
    return made


class Server:
    """Answers lease writes as scripted: ``acks`` is WAIT's reply, ``acquire`` the acquire's,
    ``renew`` the renewal's, ``release`` the release's (``None``: the renewal's). A list answers
    in turn, its last answer for good; an error reply is redis-py's exception."""

    def __init__(self, acks: int = 1, acquire: object = None, renew: object = 1, release: object = None) -> None:
        self.acks = acks
        #: Whether a connection error read closes the connection (redis-py's do; a lenient one leaves
        #: the replies after it unread, for the next command on it to read).
        self.closes = True
        #: ``ASKING``'s reply (a list answers in turn, as the scripts' do).
        self.asking: object = b"OK"
        self.acquire = [7, -1] if acquire is None else acquire
        self.renew = renew
        self.release = release
        self.rounds: List[List[Command]] = []

    def answer(self, command: Command) -> object:
        if command[0] == "WAIT":
            return self.acks
        if command[0] == "ASKING":
            return self.next("asking")
        name = next(n for n, s in emq_id.LEASE_SCRIPTS.items() if s.text == command[1])
        return self.next("renew" if name == "release" and self.release is None else name)

    def next(self, name: str) -> object:
        answers = getattr(self, name)
        if not isinstance(answers, list) or (name == "acquire" and all(isinstance(a, int) for a in answers)):
            return answers  # one answer for good (the acquire's is a pair)
        return answers.pop(0) if len(answers) > 1 else answers[0]

    def scripts(self) -> List[List[str]]:
        """Each round trip's commands by name (the script's, then WAIT)."""
        names = {s.text: n for n, s in emq_id.LEASE_SCRIPTS.items()}
        return [[names[c[1]] if c[0] == "EVAL" else str(c[0]) for c in r] for r in self.rounds]


class Connection:
    """One connection, as redis-py's: the commands packed go in one round trip, each reply is
    read in turn (a reply left unread is the next read's), an error reply raised; ``LOADING`` (a
    connection error in redis-py) closes the connection unless the server is told otherwise."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.replies: List[object] = []
        self.disconnects = 0

    def pack_commands(self, commands: List[Command]) -> List[Command]:
        return [tuple(c) for c in commands]

    def send_packed_command(self, commands: List[Command]) -> None:
        self.server.rounds.append(commands)
        self.replies.extend(self.server.answer(c) for c in commands)

    def read_response(self) -> object:
        reply = self.replies.pop(0)
        if isinstance(reply, redis.ConnectionError) and self.server.closes:
            self.disconnect()
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def disconnect(self) -> None:
        self.replies = []
        self.disconnects += 1


class Pool:
    """A stand-in pool: the sync holder makes its own connection as the pool would
    (``connection_class`` with the pool's options, its own timeouts and no retries)."""

    def __init__(self, server: Server, socket_timeout: Optional[float]) -> None:
        self.server = server
        self.connection_kwargs: Dict[str, Any] = {"socket_timeout": socket_timeout, "retry_on_timeout": True}
        self.taken = 0
        #: The options of every connection made with ``connection_class``, and the connections.
        self.made: List[Dict[str, Any]] = []
        self.connections: List[Connection] = []
        self.disconnected = 0

    def connection_class(self, **kwargs: Any) -> Connection:
        self.made.append(kwargs)
        self.connections.append(Connection(self.server))
        return self.connections[-1]

    def get_connection(self) -> Connection:
        raise AssertionError("the sync holder writes on a connection of its own")

    def release(self, connection: Connection) -> None:
        self.taken -= 1

    def disconnect(self) -> None:
        self.disconnected += 1


class Client:
    """What the holder uses of ``redis.Redis``: one connection of its pool at a time."""

    def __init__(self, server: Server, socket_timeout: Optional[float] = None) -> None:
        self.server = server
        self.connection_pool = Pool(server, socket_timeout)

    def execute_command(self, *args: Any) -> object:
        return self.server.answer(args)

    def pipeline(self, transaction: bool = True, shard_hint: object = None) -> Any:
        raise AssertionError("a lease write goes on one connection, not redis-py's pipeline (which retries)")


class AsyncConnection(Connection):
    async def send_packed_command(self, commands: List[Command]) -> None:  # type: ignore[override]
        Connection.send_packed_command(self, commands)

    async def read_response(self) -> object:
        return Connection.read_response(self)

    async def disconnect(self) -> None:  # type: ignore[override]
        Connection.disconnect(self)


class AsyncPool(Pool):
    """A pool of one connection, taken and given back."""

    async def get_connection(self) -> AsyncConnection:  # type: ignore[override]
        self.taken += 1
        if not self.connections:
            self.connections.append(AsyncConnection(self.server))
        connection = self.connections[0]
        assert isinstance(connection, AsyncConnection)
        return connection

    async def release(self, connection: Connection) -> None:  # type: ignore[override]
        self.taken -= 1


class AsyncClient(Client):
    """What the holder uses of ``redis.asyncio.Redis``."""

    def __init__(self, server: Server, socket_timeout: Optional[float] = None) -> None:
        super().__init__(server)
        self.connection_pool = AsyncPool(server, socket_timeout)

    async def execute_command(self, *args: Any) -> object:
        return self.server.answer(args)


def test_an_acknowledged_acquire_is_held_and_minted_on_then_released() -> None:
    server = Server()
    terms = emq_id.LeaseTerms(3_000, 500)
    with Lease.acquire(Client(server), replicas=1, terms=terms) as lease:
        assert lease.held == Held(7, None, 1) and lease.node == 7
        ids = [lease.next() for _ in range(100)]
        assert ids == sorted(set(ids)) and all(emq_id.node(s) == 7 for s in ids)
        assert emq_id.decode(lease.mint("USR")).node == 7
        minted = lease.next_minted()
        assert isinstance(minted, Minted) and minted.lease == 1
        assert lease.stats == HolderStats(1, 0, None, 0)
        with pytest.raises(emq_id.EmqIdError) as bad:
            lease.mint("usr")  # refused by encode's gate before a snowflake is spent
        assert bad.value.gate != "node"
    # One round trip per write: the script and WAIT (replicas, the terms' timeout); release without WAIT.
    assert server.scripts() == [["acquire", "WAIT"], ["release"]]
    assert server.rounds[0][1] == ("WAIT", 1, terms.wait_ms)
    assert lease.held is None
    with pytest.raises(emq_id.EmqIdError) as refused:
        lease.next()
    assert refused.value.gate == "node"


def test_every_write_declares_the_lease_key_and_names_its_node_in_argv() -> None:
    server = Server()
    terms = emq_id.LeaseTerms(3_000, 500)
    lease = Lease.acquire(Client(server), replicas=1, terms=terms)
    lease.next()
    lease._drive(lease._holder.write())  # a renewal now, as the renewer's thread sends it
    assert lease.release() is True
    assert server.scripts()[:2] == [["acquire", "WAIT"], ["renew", "WAIT"]] and server.scripts()[-1] == ["release"]
    acquire, renew, release = server.rounds[0][0], server.rounds[1][0], server.rounds[-1][0]
    # EVAL text numkeys KEYS... ARGV...: the one key, LEASE_KEY, for every script.
    assert [c[2:4] for c in (acquire, renew, release)] == [(1, emq_id.LEASE_KEY)] * 3
    token, ttl, start, nodes, now = acquire[4:]
    assert ttl == 3_000 and 0 <= start < nodes == emq_id.LEASE_NODES and isinstance(now, int)
    assert len(token) == 32
    # renew: [token, ttl, mark, node]; release: [token, high water, node].
    assert renew[4:5] == (token,) and renew[5] == 3_000 and renew[6] >= now + 3_000 and renew[7] == 7
    assert release[4:5] == (token,) and now <= release[5] < renew[6] and release[6] == 7


def test_an_unacknowledged_acquire_mints_nothing_and_is_released() -> None:
    server = Server(acks=0)
    with pytest.raises(emq_id.EmqIdError) as refused:
        Lease.acquire(Client(server))
    assert refused.value.gate == "node" and (refused.value.acknowledged, refused.value.replicas) == (0, 1)
    assert server.scripts() == [["acquire", "WAIT"], ["release"]]


def test_every_node_leased_is_refused_with_node() -> None:
    for reply in ("EMQLEASE every node is leased", "ERR EMQLEASE every node is leased"):
        server = Server(acquire=[error(reply)])
        with pytest.raises(emq_id.EmqIdError) as refused:
            Lease.acquire(Client(server), replicas=0)
        assert refused.value.gate == "node" and str(refused.value) == str(emq_id.LeaseKeeper.refusal("leased"))
        assert server.scripts() == [["acquire"]]


def test_minting_from_several_threads_repeats_nothing() -> None:
    lease = Lease.acquire(Client(Server()), replicas=1)
    out: List[int] = []

    def mint() -> None:
        out.extend(lease.next() for _ in range(1_000))

    threads = [threading.Thread(target=mint) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == 4_000
    assert lease.release() is True
    assert lease.release() is True  # once only


def test_options_are_checked_before_anything_is_sent() -> None:
    server = Server()
    client = Client(server)
    for replicas in (True, 1.0, "1"):
        with pytest.raises(TypeError):
            Lease.acquire(client, replicas=replicas)  # type: ignore[arg-type]
    with pytest.raises(emq_id.EmqIdError) as negative:
        Lease.acquire(client, replicas=-1)
    assert negative.value.gate == "range"
    with pytest.raises(TypeError):
        Lease.acquire(client, terms=(3_000, 500))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Lease.acquire(object())  # type: ignore[arg-type]
    # WAIT's reply must come back before the client's read timeout.
    with pytest.raises(emq_id.EmqIdError) as short:
        Lease.acquire(Client(server, socket_timeout=0.1), terms=emq_id.LeaseTerms.DEFAULT)
    assert short.value.gate == "range"
    with pytest.raises(TypeError):
        Lease.acquire(AsyncClient(server))
    assert server.rounds == []


def test_the_async_holder_has_the_same_surface() -> None:
    async def run() -> Dict[str, object]:
        server = Server()
        with pytest.raises(TypeError):
            await AsyncLease.acquire(Client(server))
        async with await AsyncLease.acquire(AsyncClient(server), replicas=1) as lease:
            held = lease.held
            snowflake = lease.next()
            id_ = lease.mint("ORD")
        return {"held": held, "node": emq_id.node(snowflake), "id": id_, "rounds": server.scripts(), "after": lease.held}

    seen = asyncio.run(run())
    assert seen["held"] == Held(7, None, 1) and seen["node"] == 7
    assert isinstance(seen["id"], str) and emq_id.decode(seen["id"]).node == 7
    assert seen["rounds"] == [["acquire", "WAIT"], ["release"]] and seen["after"] is None


class Cluster:
    """What the holder uses of ``redis.cluster.RedisCluster``: the reserve's node, the nodes it
    knows (each a client of its own server), and its nodes manager."""

    def __init__(self, *servers: Server) -> None:
        self.nodes = {("10.0.0.%d" % (i + 1), 6379): Client(s) for i, s in enumerate(servers)}
        self.primary = ("10.0.0.1", 6379)
        self.nodes_manager = self
        self.moved: List[Tuple[int, str, int]] = []
        self.reloads = 0

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> Any:
        raise AssertionError("a lease write goes to a node's own client, not through the cluster's")

    def execute_command(self, *args: Any) -> object:
        raise AssertionError("unused")

    def get_node_from_key(self, key: str) -> Any:
        assert key == emq_id.LEASE_KEY
        return self.get_node(*self.primary)

    def get_node(self, host: str, port: int) -> Any:
        return type("Node", (), {"host": host, "port": port})() if (host, port) in self.nodes else None

    def get_redis_connection(self, node: Any) -> Client:
        return self.nodes[(node.host, node.port)]

    def move_slot(self, e: Any) -> None:
        self.moved.append((e.slot_id, e.host, e.port))
        self.primary = (e.host, e.port)

    def initialize(self) -> None:
        self.reloads += 1


def test_a_cluster_acquire_follows_moved_to_the_node_named() -> None:
    source, target = Server(acquire=[error("MOVED 9051 10.0.0.2:6379")]), Server()
    cluster = Cluster(source, target)
    lease = Lease.acquire(cluster, terms=emq_id.LeaseTerms(3_000, 500))
    assert lease.held == Held(7, None, 1) and cluster.moved == [(9051, "10.0.0.2", 6379)]
    assert source.scripts() == [["acquire", "WAIT"]] and target.scripts() == [["acquire", "WAIT"]]
    assert lease.release() is True and target.scripts()[-1] == ["release"]


def test_an_ask_is_followed_with_asking_the_script_and_wait_on_one_connection_of_the_node() -> None:
    # The source has no replica acknowledging: a WAIT sent there would refuse the write.
    source, target = Server(acks=0, acquire=[error("ASK 9051 10.0.0.2:6379")]), Server(acks=1)
    cluster = Cluster(source, target)
    lease = Lease.acquire(cluster, terms=emq_id.LeaseTerms(3_000, 500))
    assert lease.held == Held(7, None, 1) and cluster.moved == []
    assert source.scripts() == [["acquire", "WAIT"]] and target.scripts() == [["ASKING", "acquire", "WAIT"]]
    # An ASK answered after ASKING is not followed again: the first acquire gives up with it.
    source.acquire = target.acquire = [error("ASK 9051 10.0.0.2:6379")]
    with pytest.raises(LeaseWireError) as twice:
        Lease.acquire(cluster, terms=emq_id.LeaseTerms(3_000, 500))
    assert "ASK 9051" in str(twice.value) and twice.value.redirect is not None
    lease.release()


def test_what_did_not_run_is_tried_again_then_refused_by_the_node_gate_naming_the_reply() -> None:
    for reply in ("TRYAGAIN Multiple keys request during rehashing of slot", "NOREPLICAS Not enough good replicas to write."):
        server = Server(acquire=[error(reply), error(reply), [7, -1]])
        lease = Lease.acquire(Client(server), terms=emq_id.LeaseTerms(600, 100))
        assert lease.held == Held(7, None, 1) and len(server.rounds) == 3
        lease.release()
    server = Server(acquire=[error("CLUSTERDOWN The cluster is down")])
    start = emq_id.monotonic_ms()
    with pytest.raises(emq_id.EmqIdError) as refused:
        Lease.acquire(Client(server), terms=emq_id.LeaseTerms(300, 50))
    assert emq_id.monotonic_ms() - start >= 300 and len(server.rounds) >= 3
    assert refused.value.gate == "node" and str(refused.value).endswith(": CLUSTERDOWN The cluster is down")


def test_a_renewal_answered_gone_loses_the_lease_and_takes_another() -> None:
    server = Server(acquire=[[7, -1], [9, -1]])
    lease = Lease.acquire(Client(server), terms=emq_id.LeaseTerms(3_000, 500))
    first = lease.next()
    server.renew = 0
    lease._drive(lease._holder.write())  # the renewal: gone
    assert lease.held is None and lease.stats.lost == 1
    lease._drive(lease._holder.write())  # another node at once
    assert lease.held == Held(9, None, 2) and lease.next() > first
    server.renew = 1
    assert lease.release() is True


def test_loading_raised_as_a_connection_error_is_a_write_that_did_not_run() -> None:
    # redis-py raises LOADING as a connection error and closes the connection: WAIT's reply is never
    # read, and the acquire is tried again (not a fault, which would end a first acquire).
    server = Server(acquire=[error("LOADING Valkey is loading the dataset in memory"), [7, -1]])
    client = Client(server)
    lease = Lease.acquire(client, terms=emq_id.LeaseTerms(600, 100))
    assert lease.held == Held(7, None, 1) and server.scripts() == [["acquire", "WAIT"], ["acquire", "WAIT"]]
    assert len(client.connection_pool.made) == 1, "one connection of the holder's, opened again"
    assert lease.release() is True


def test_a_release_goes_through_the_keeper() -> None:
    terms = emq_id.LeaseTerms(600, 100)
    # MOVED: the reserve is found again (the node named) and the release sent there.
    source, target = Server(), Server(release=[error("MOVED 9051 10.0.0.2:6379")])
    source.release = [error("MOVED 9051 10.0.0.2:6379")]
    target.release = 1
    cluster = Cluster(source, target)
    lease = Lease.acquire(cluster, terms=terms)
    assert lease.release() is True and cluster.moved == [(9051, "10.0.0.2", 6379)]
    assert source.scripts() == [["acquire", "WAIT"], ["release"]] and target.scripts() == [["release"]]
    # ASK: followed once, with ASKING, on one connection of the node named.
    source, target = Server(release=[error("ASK 9051 10.0.0.2:6379")]), Server(release=0)
    lease = Lease.acquire(Cluster(source, target), terms=terms)
    assert lease.release() is False, "the node was no longer the holder's"
    assert target.scripts() == [["ASKING", "release"]]
    # A release that did not run is sent again after retry_ms, though the renewer is stopped.
    server = Server(release=[error("TRYAGAIN Multiple keys request during rehashing of slot"), 1])
    lease = Lease.acquire(Client(server), terms=terms)
    start = emq_id.monotonic_ms()
    assert lease.release() is True and emq_id.monotonic_ms() - start >= terms.retry_ms
    assert server.scripts()[-2:] == [["release"], ["release"]]


def test_a_release_the_server_does_not_run_is_given_up_after_three_sends() -> None:
    server = Server(release=[error("CLUSTERDOWN The cluster is down")])
    lease = Lease.acquire(Client(server), terms=emq_id.LeaseTerms(600, 100))
    with pytest.raises(LeaseWireError) as given_up:
        lease.release()
    assert str(given_up.value) == "release: CLUSTERDOWN The cluster is down"
    assert server.scripts()[1:] == [["release"]] * 3 and lease.held is None
    assert lease.release() is False, "once only: the lease is left to its TTL"
    # A reply the protocol does not give: at once.
    server = Server(release=[error("ERR unknown command")])
    lease = Lease.acquire(Client(server), terms=emq_id.LeaseTerms(600, 100))
    with pytest.raises(LeaseWireError) as fault:
        lease.release()
    assert str(fault.value) == "release: ERR unknown command" and server.scripts()[1:] == [["release"]]


def test_the_async_release_goes_through_the_keeper() -> None:
    async def run() -> Tuple[bool, int]:
        server = Server(release=[error("NOREPLICAS Not enough good replicas to write."), 1])
        lease = await AsyncLease.acquire(AsyncClient(server), terms=emq_id.LeaseTerms(600, 100))
        start = emq_id.monotonic_ms()
        released = await lease.release()
        assert server.scripts()[1:] == [["release"], ["release"]]
        return released, emq_id.monotonic_ms() - start

    released, took = asyncio.run(run())
    assert released is True and took >= emq_id.LeaseTerms(600, 100).retry_ms


def test_the_clients_the_holder_opens_retry_nothing() -> None:
    # A node an ASK names, for a plain client: a client like the caller's whose connections
    # send nothing twice (redis-py's default retries three times).
    from emq_id.holder import _client_of

    callers: List[Any] = [redis.Redis(port=1, retry_on_error=[redis.TimeoutError]), redis.asyncio.Redis(port=1)]
    for caller in callers:
        assert caller.connection_pool.make_connection().retry.get_retries() > 0
        other = _client_of(caller, ("10.0.0.2", 7001))
        connection = other.connection_pool.make_connection()
        assert (connection.host, connection.port, connection.retry.get_retries()) == ("10.0.0.2", 7001, 0)
        assert type(other) is type(caller)


def test_a_connection_broken_with_replies_unread_is_closed_before_it_is_used_again() -> None:
    # A LOADING read as a connection error that leaves the connection open (WAIT's reply unread):
    # the holder closes it, and the acquire sent again on it reads its own replies, not the stale WAIT.
    server = Server(acquire=[error("LOADING Valkey is loading the dataset in memory"), [7, -1]])
    server.closes = False
    client = Client(server)
    lease = Lease.acquire(client, terms=emq_id.LeaseTerms(600, 100))
    pool = client.connection_pool
    assert lease.held == Held(7, None, 1) and server.scripts() == [["acquire", "WAIT"], ["acquire", "WAIT"]]
    assert len(pool.connections) == 1 and pool.connections[0].disconnects == 1, "one connection, closed once"
    assert lease.release() is True and pool.connections[0].disconnects == 2, "closed by the release"

    async def run() -> Tuple[Optional[Held], int, int]:
        server = Server(acquire=[error("LOADING Valkey is loading the dataset in memory"), [7, -1]])
        server.closes = False
        client = AsyncClient(server)
        lease = await AsyncLease.acquire(client, terms=emq_id.LeaseTerms(600, 100))
        held, pool = lease.held, client.connection_pool
        assert server.scripts() == [["acquire", "WAIT"], ["acquire", "WAIT"]] and pool.taken == 0
        await lease.release()
        return held, len(pool.connections), pool.connections[0].disconnects

    assert asyncio.run(run()) == (Held(7, None, 1), 1, 1), "the pool's one connection, closed before it went back"


def test_the_holders_connection_reads_within_wait_ms_and_a_second_and_retries_nothing() -> None:
    terms = emq_id.LeaseTerms(3_000, 500)
    for timeout, within in ((None, (terms.wait_ms + 1_000) / 1_000), (30.0, 30.0)):
        client = Client(Server(), socket_timeout=timeout)
        Lease.acquire(client, terms=terms).release()
        (made,) = client.connection_pool.made
        assert made["socket_timeout"] == made["socket_connect_timeout"] == within
        assert made["retry"] is None and made["retry_on_error"] == [] and "retry_on_timeout" not in made


def test_an_asking_refused_as_not_run_is_tried_again() -> None:
    # LOADING on the node an ASK names: the write did not run there, and is sent again.
    source = Server(acks=0, acquire=[error("ASK 9051 10.0.0.2:6379")])
    target = Server(acks=1)
    target.asking = [error("LOADING Valkey is loading the dataset in memory"), b"OK"]
    lease = Lease.acquire(Cluster(source, target), terms=emq_id.LeaseTerms(600, 100))
    assert lease.held == Held(7, None, 1)
    assert source.scripts() == [["acquire", "WAIT"]] * 2 and target.scripts() == [["ASKING", "acquire", "WAIT"]] * 2
    lease.release()
    # Any other error reply to ASKING is the holder's fault.
    target.asking = [error("ERR unknown command 'ASKING'")]
    with pytest.raises(LeaseWireError) as fault:
        Lease.acquire(Cluster(source, target), terms=emq_id.LeaseTerms(600, 100))
    assert str(fault.value) == "ASKING: ERR unknown command 'ASKING'"


def test_the_clients_opened_for_an_ask_are_closed_with_their_pools() -> None:
    from emq_id.holder import _client_of, _Holder

    terms = emq_id.LeaseTerms(600, 100)
    closed: List[str] = []
    lease = Lease(Client(Server()), _Holder(0, terms))
    other: Any = _client_of(redis.Redis(port=1), ("10.0.0.2", 7001))
    other.connection_pool.disconnect = lambda *a, **k: closed.append("pool")
    lease._asked[("10.0.0.2", 7001)] = other
    lease._close_asked()
    assert closed == ["pool"] and lease._asked == {}

    async def run() -> None:
        lease = AsyncLease(AsyncClient(Server()), _Holder(0, terms))
        other: Any = _client_of(redis.asyncio.Redis(port=1), ("10.0.0.2", 7001))

        async def disconnect(*args: Any, **kwargs: Any) -> None:
            closed.append("async pool")

        other.connection_pool.disconnect = disconnect
        lease._asked[("10.0.0.2", 7001)] = other
        await lease._close_asked()

    asyncio.run(run())
    assert closed[1:] and set(closed[1:]) == {"async pool"}
