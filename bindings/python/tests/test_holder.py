"""The one-call holder (emq_id.holder) without a server: the options it
refuses, and the wire it writes, against a scripted stand-in for a redis-py
client. The live protocol, failovers included, runs in `cargo xtask chaos`
(bindings/python/examples/chaos_holder.py in the fleet)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Dict, List, Optional, Tuple

import pytest

import emq_id
from emq_id.holder import AsyncLease, Held, HolderStats, Lease, LeaseWireError, Minted

Command = Tuple[Any, ...]


class Server:
    """Answers lease writes as scripted: ``acks`` is WAIT's reply, ``acquire`` the acquire's."""

    def __init__(self, acks: int = 1, acquire: object = None, renew: object = 1) -> None:
        self.acks = acks
        self.acquire = [7, -1] if acquire is None else acquire
        self.renew = renew
        self.rounds: List[List[Command]] = []

    def answer(self, command: Command) -> object:
        if command[0] == "WAIT":
            return self.acks
        name = next(n for n, s in emq_id.LEASE_SCRIPTS.items() if s.text == command[1])
        return self.acquire if name == "acquire" else self.renew

    def scripts(self) -> List[List[str]]:
        """Each round trip's commands by name (the script's, then WAIT)."""
        names = {s.text: n for n, s in emq_id.LEASE_SCRIPTS.items()}
        return [[names[c[1]] if c[0] == "EVAL" else str(c[0]) for c in r] for r in self.rounds]


class Pipeline:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.commands: List[Command] = []

    def execute_command(self, *args: Any) -> None:
        self.commands.append(args)

    def execute(self, raise_on_error: bool = True) -> List[object]:
        self.server.rounds.append(self.commands)
        return [self.server.answer(c) for c in self.commands]


class Client:
    """What the holder uses of ``redis.Redis``."""

    def __init__(self, server: Server, socket_timeout: Optional[float] = None) -> None:
        self.server = server
        self.connection_pool = type("Pool", (), {"connection_kwargs": {"socket_timeout": socket_timeout}})()

    def execute_command(self, *args: Any) -> object:
        return self.server.answer(args)

    def pipeline(self, transaction: bool = True, shard_hint: object = None) -> Pipeline:
        assert transaction is False, "the holder's pipeline is not a transaction"
        return Pipeline(self.server)


class AsyncPipeline(Pipeline):
    async def execute(self, raise_on_error: bool = True) -> List[object]:  # type: ignore[override]
        return Pipeline.execute(self, raise_on_error)


class AsyncClient(Client):
    """What the holder uses of ``redis.asyncio.Redis``."""

    async def execute_command(self, *args: Any) -> object:
        return self.server.answer(args)

    def pipeline(self, transaction: bool = True, shard_hint: object = None) -> AsyncPipeline:
        return AsyncPipeline(self.server)


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
    lease._tick()  # a renewal now, as the renewer's thread sends it
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
    server = Server(acquire=Exception("EMQLEASE every node is leased"))
    with pytest.raises(emq_id.EmqIdError) as refused:
        Lease.acquire(Client(server), replicas=0)
    assert refused.value.gate == "node"
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


class Moved(Exception):
    """What redis-py's cluster parser makes of ``MOVED 9051 10.0.0.2:6379``."""

    def __init__(self) -> None:
        super().__init__("9051 10.0.0.2:6379")
        self.slot_id, self.host, self.port = 9051, "10.0.0.2", 6379


class Cluster:
    """What the holder uses of ``redis.cluster.RedisCluster``: the reserve's node, and its nodes manager."""

    def __init__(self, server: Server) -> None:
        self.node = Client(server)
        self.nodes_manager = self
        self.moved: List[object] = []
        self.keys: List[str] = []

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> Pipeline:
        raise AssertionError("a lease write goes to the reserve's node, not through the cluster pipeline")

    def execute_command(self, *args: Any) -> object:
        raise AssertionError("unused")

    def get_node_from_key(self, key: str) -> str:
        self.keys.append(key)
        return "node"

    def get_redis_connection(self, node: str) -> Client:
        return self.node

    def move_slot(self, e: object) -> None:
        self.moved.append(e)


def test_a_cluster_write_goes_to_the_reserves_node_and_follows_moved() -> None:
    moved = Moved()
    cluster = Cluster(Server(acquire=moved))
    with pytest.raises(LeaseWireError) as fault:
        Lease.acquire(cluster)
    assert fault.value.redirect is moved and cluster.moved == [moved]
    assert cluster.keys == [emq_id.LEASE_KEY]
    cluster.node.server.acquire = [3, 1769526697641]
    lease = Lease.acquire(cluster)
    assert lease.held == Held(3, 1769526697641, 1)
    assert lease.release() is True
