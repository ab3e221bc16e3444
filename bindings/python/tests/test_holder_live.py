"""The holders (emq_id.holder) against a live Valkey: a lease taken, minted on
and released, each write on one connection of the client's pool; an acquire
no replica acknowledged refused by WAIT's count; a first acquire the reserve
does not run tried again for a TTL, then refused by the node gate with the
server's reply, never as an I/O error. The rest of the live protocol,
failovers and migrations included, runs in `cargo xtask chaos`."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
import time
from typing import Any, Set, Tuple

import pytest
import redis
import redis.asyncio
import redis.cluster

import emq_id
from emq_id.holder import AsyncLease, Lease

#: A short TTL: the first acquire gives up after it (retried every 30 ms until then).
TERMS = emq_id.LeaseTerms.for_ttl(600)
#: How long a holder waits for a write's replies from a client without a socket timeout.
WITHIN = (TERMS.wait_ms + 1_000) / 1_000


def eval_tries(port: int) -> int:
    """How many EVALs the server refused or ran since its statistics were reset."""
    client = redis.Redis(port=port)
    try:
        stats = client.info("commandstats").get("cmdstat_eval", {})
    finally:
        client.close()
    return int(stats.get("calls", 0)) + int(stats.get("rejected_calls", 0))


def check_refusal(refusal: emq_id.EmqIdError, took: float, port: int) -> None:
    assert refusal.gate == "node"
    assert "for a whole TTL" in str(refusal) and "CLUSTERDOWN" in str(refusal), str(refusal)
    assert TERMS.ttl_ms / 1000 <= took < 10, f"refused after {took:.3f} s"
    tries = eval_tries(port)
    # Retried every retry_ms (plus WAIT's wait_ms each try) within the TTL.
    assert 2 <= tries <= TERMS.ttl_ms // TERMS.retry_ms + 2, tries


def test_a_first_acquire_on_a_cluster_not_up_is_retried_then_refused_by_name(unready_cluster: int) -> None:
    client = redis.Redis(port=unready_cluster, socket_timeout=5)
    start = time.monotonic()
    with pytest.raises(emq_id.EmqIdError) as refused:
        Lease.acquire(client, terms=TERMS)
    check_refusal(refused.value, time.monotonic() - start, unready_cluster)
    client.close()


def test_the_async_holder_is_refused_the_same_way(unready_cluster: int) -> None:
    async def run() -> float:
        client = redis.asyncio.Redis(port=unready_cluster, socket_timeout=5)
        start = time.monotonic()
        try:
            with pytest.raises(emq_id.EmqIdError) as refused:
                await AsyncLease.acquire(client, terms=TERMS)
        finally:
            await client.aclose()
        took = time.monotonic() - start
        check_refusal(refused.value, took, unready_cluster)
        return took

    assert asyncio.run(run()) >= TERMS.ttl_ms / 1000


def lease_fields(client: redis.Redis) -> Set[str]:
    """The fields of the reserve's hash."""
    fields: Any = client.hgetall(emq_id.LEASE_KEY)
    return {f.decode() for f in fields}


def test_a_lease_is_taken_minted_on_and_released(valkey: int) -> None:
    client = redis.Redis(port=valkey, socket_timeout=5)
    with Lease.acquire(client, replicas=0, terms=TERMS) as lease:
        assert lease.held is not None and emq_id.node(lease.next()) == lease.node
        node = lease.node
    assert lease.release() is True
    # Handed back: its token gone, its mark kept.
    fields = lease_fields(client)
    assert f"{node}:token" not in fields and f"{node}:mark" in fields
    # No replica to acknowledge it: WAIT's refusal, the node taken released first.
    with pytest.raises(emq_id.EmqIdError) as unacknowledged:
        Lease.acquire(client, replicas=1, terms=TERMS)
    assert (unacknowledged.value.gate, unacknowledged.value.acknowledged, unacknowledged.value.replicas) == ("node", 0, 1)
    assert not any(f.endswith(":token") for f in lease_fields(client))
    client.close()


def test_the_async_lease_is_taken_and_released(valkey: int) -> None:
    async def run() -> bool:
        client = redis.asyncio.Redis(port=valkey, socket_timeout=5)
        try:
            lease = await AsyncLease.acquire(client, replicas=0, terms=TERMS)
            assert lease.held is not None and emq_id.node(lease.next()) == lease.node
            return await lease.release()
        finally:
            await client.aclose()

    assert asyncio.run(run()) is True


def test_a_cluster_client_acquires_once_the_cluster_is_up(reserve_only_cluster: int) -> None:
    # Retried while the reserve answers CLUSTERDOWN, on a connection of the holder's own to the node
    # (the cluster client's routing and retries are not used), then taken within the TTL.
    terms = emq_id.LeaseTerms.for_ttl(3_000)
    # The client's own check refuses a map without every slot: it is told not to, the holder waits.
    client = redis.cluster.RedisCluster(
        host="127.0.0.1", port=reserve_only_cluster, socket_timeout=5, require_full_coverage=False
    )
    admin = redis.Redis(port=reserve_only_cluster)
    slot = emq_id.slot(emq_id.LEASE_KEY)
    cover = threading.Timer(0.3, admin.execute_command, ("CLUSTER", "ADDSLOTSRANGE", 0, slot - 1, slot + 1, 16_383))
    cover.start()
    try:
        with Lease.acquire(client, replicas=0, terms=terms) as lease:
            assert lease.held is not None and emq_id.node(lease.next()) == lease.node
        assert lease.release() is True and eval_tries(reserve_only_cluster) >= 2
    finally:
        cover.join()
        client.close()
        admin.close()


def test_a_server_that_stops_answering_holds_neither_renewer_nor_acquire_nor_release(
    valkey_process: Tuple[int, "subprocess.Popen[bytes]"],
) -> None:
    # No socket_timeout (redis-py before 8 had none by default): the holder bounds its own reads
    # (wait_ms and a second).
    port, server = valkey_process
    client = redis.Redis(port=port, socket_timeout=None)
    lease = Lease.acquire(client, replicas=0, terms=TERMS)
    try:
        server.send_signal(signal.SIGSTOP)
        # The renewer's writes end unanswered: the lease expires and is lost, the renewer goes on.
        deadline = time.monotonic() + TERMS.ttl_ms / 1000 + 3 * WITHIN
        while lease.stats.lost == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lease.stats.lost == 1 and lease.held is None
        # A new client's first acquire (its handshake unanswered) is refused in time, not held.
        other = redis.Redis(port=port, socket_timeout=None)
        start = time.monotonic()
        with pytest.raises(redis.TimeoutError):
            Lease.acquire(other, replicas=0, terms=TERMS)
        assert time.monotonic() - start < 2 * WITHIN
        other.close()
        # Answering again: the renewer takes a lease again.
        server.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 3 * WITHIN + 2
        while lease.held is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lease.held is not None and lease.stats.taken == 2
        # Stopped again: the release gives up in time (the lease left to its TTL).
        server.send_signal(signal.SIGSTOP)
        start = time.monotonic()
        with pytest.raises(redis.TimeoutError):
            lease.release()
        assert time.monotonic() - start < 3 * WITHIN
    finally:
        server.send_signal(signal.SIGCONT)
        lease.release()
        client.close()


def test_an_async_holder_is_not_held_by_a_server_that_stops_answering(
    valkey_process: Tuple[int, "subprocess.Popen[bytes]"],
) -> None:
    port, server = valkey_process

    async def run() -> None:
        client = redis.asyncio.Redis(port=port, socket_timeout=None)
        try:
            lease = await AsyncLease.acquire(client, replicas=0, terms=TERMS)
            server.send_signal(signal.SIGSTOP)
            start = time.monotonic()
            with pytest.raises(TimeoutError):
                await lease.release()
            assert time.monotonic() - start < 3 * WITHIN
            other = redis.asyncio.Redis(port=port, socket_timeout=None)
            start = time.monotonic()
            with pytest.raises(TimeoutError):
                await AsyncLease.acquire(other, replicas=0, terms=TERMS)
            assert time.monotonic() - start < 2 * WITHIN
            await other.aclose()
        finally:
            server.send_signal(signal.SIGCONT)
            await client.aclose()

    asyncio.run(run())
