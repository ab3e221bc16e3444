"""The holders (emq_id.holder) against a live Valkey: a lease taken, minted on
and released, each write on one connection of the client's pool; an acquire
no replica acknowledged refused by WAIT's count; a first acquire the reserve
does not run tried again for a TTL, then refused by the node gate with the
server's reply, never as an I/O error. The rest of the live protocol,
failovers and migrations included, runs in `cargo xtask chaos`."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Set

import pytest
import redis
import redis.asyncio
import redis.cluster

import emq_id
from emq_id.holder import AsyncLease, Lease

#: A short TTL: the first acquire gives up after it (retried every 30 ms until then).
TERMS = emq_id.LeaseTerms.for_ttl(600)


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
    # Retried while the reserve answers CLUSTERDOWN, on one connection of the node's own client
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
