"""The holders (emq_id.holder) against a live Valkey: a first acquire the
reserve does not run is tried again for a TTL, then refused by the node gate
with the server's reply, never as an I/O error. The rest of the live protocol,
failovers and migrations included, runs in `cargo xtask chaos`."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis
import redis.asyncio

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
