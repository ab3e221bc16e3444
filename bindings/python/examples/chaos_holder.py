"""A holder of `cargo xtask chaos`'s fleet, in Python (xtask/src/runtimes/valkey/chaos/holder.rs
says the contract): holds a lease with ``emq_id.holder.Lease`` over redis-py (or, with
``--asyncio``, ``AsyncLease`` over ``redis.asyncio``) and mints two ids a millisecond into FILE
until its stdin closes, then releases and prints its stats as one JSON line.

    python chaos_holder.py [--asyncio] --seeds HOST:PORT[,HOST:PORT...] --replicas N --ttl MS --margin MS --out FILE

Each record is 24 bytes, little-endian: the snowflake, the unix ms it was minted at, the ordinal
of the lease that minted it, 4 bytes of padding.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct
import sys
import threading
import time
from typing import Any, BinaryIO, Optional, Union

import redis
import redis.asyncio
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry

import emq_id
from emq_id.holder import AsyncLease, HolderStats, Lease

RECORD = struct.Struct("<QQI4x")
PER_TICK = 2
#: A node that does not answer within a second is treated as down: the holder looks elsewhere.
TIMEOUTS: dict[str, Any] = {"socket_timeout": 1.0, "socket_connect_timeout": 0.3}


def client(seeds: list[tuple[str, int]], asynchronous: bool = False) -> Any:
    """A RedisCluster when the first seed that answers runs in cluster mode, else a Redis
    (their ``redis.asyncio`` twins when ``asynchronous``)."""
    for host, port in seeds:
        probe = redis.Redis(host=host, port=port, retry=Retry(NoBackoff(), 0), **TIMEOUTS)
        try:
            enabled = probe.info("cluster").get("cluster_enabled") == 1
        except redis.RedisError:
            continue
        finally:
            probe.close()
        if asynchronous:
            return asynchronous_client(seeds, enabled, host, port)
        if enabled:
            nodes = [ClusterNode(h, p) for h, p in seeds]  # type: ignore[no-untyped-call]
            return RedisCluster(startup_nodes=nodes, retry=Retry(NoBackoff(), 0), **TIMEOUTS)
        return redis.Redis(host=host, port=port, retry=Retry(NoBackoff(), 0), **TIMEOUTS)
    raise ConnectionError("no seed answered")


def asynchronous_client(seeds: list[tuple[str, int]], cluster: bool, host: str, port: int) -> Any:
    """``client``'s ``redis.asyncio`` twin (its options differ: no ``Retry`` for the cluster)."""
    if cluster:
        nodes = [AsyncClusterNode(h, p) for h, p in seeds]
        return AsyncRedisCluster(startup_nodes=nodes, **TIMEOUTS)
    return redis.asyncio.Redis(host=host, port=port, retry=AsyncRetry(NoBackoff(), 0), **TIMEOUTS)


def seeds(text: str) -> list[tuple[str, int]]:
    out = []
    for seed in filter(None, (s.strip() for s in text.split(","))):
        host, _, port = seed.rpartition(":")
        out.append((host, int(port)))
    if not out:
        raise argparse.ArgumentTypeError("give HOST:PORT[,HOST:PORT...]")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asyncio", action="store_true", help="AsyncLease over redis.asyncio")
    parser.add_argument("--seeds", type=seeds, required=True)
    parser.add_argument("--replicas", type=int, required=True)
    parser.add_argument("--ttl", type=int, required=True)
    parser.add_argument("--margin", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    terms = emq_id.LeaseTerms(args.ttl, args.margin)

    closed = threading.Event()

    def watch_stdin() -> None:
        # The descriptor, not sys.stdin: a daemon thread blocked in a buffered read stalls shutdown.
        while os.read(0, 4096):
            pass
        closed.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    hold = hold_asynchronously if args.asyncio else hold_synchronously
    stats = hold(args, terms, closed)
    if stats is None:
        return 1
    print(json.dumps({"taken": stats.taken, "lost": stats.lost, "longest_unleased_ms": stats.longest_unleased_ms}))
    return 0


def retry_s(terms: emq_id.LeaseTerms) -> float:
    """How soon a refused first acquire is asked again: the core's retry delay."""
    return terms.retry_ms / 1000


def hold_synchronously(args: argparse.Namespace, terms: emq_id.LeaseTerms, closed: threading.Event) -> Any:
    """``Lease`` over redis-py: mints until ``closed``, releases; its stats (``None``: no lease)."""
    valkey: Any = None
    with open(args.out, "wb") as out:
        # Joining the fleet: the first acquire is refused while no node is free, no replica
        # acknowledges it, or the reserve did not run it for a TTL (a failover); a holder keeps asking.
        while True:
            try:
                valkey = valkey or client(args.seeds)
                lease = Lease.acquire(valkey, replicas=args.replicas, terms=terms)
                break
            except Exception as refusal:  # EmqIdError, LeaseWireError, redis-py's errors
                if closed.is_set():
                    print(f"chaos_holder: no lease before the end: {refusal}", file=sys.stderr)
                    return None
                time.sleep(retry_s(terms))
        flushed = time.monotonic()
        while not closed.is_set():
            flushed = mint(lease, out, flushed)
            time.sleep(0.001)
        out.flush()
    stats = lease.stats
    try:
        lease.release()
    except redis.RedisError as e:
        print(f"chaos_holder: release: {e}", file=sys.stderr)
    return stats


def hold_asynchronously(args: argparse.Namespace, terms: emq_id.LeaseTerms, closed: threading.Event) -> Any:
    """``AsyncLease`` over ``redis.asyncio``, its renewals a task of this loop, which mints too."""

    async def hold() -> Optional[HolderStats]:
        valkey: Any = None
        while True:
            try:
                valkey = valkey or client(args.seeds, asynchronous=True)
                lease = await AsyncLease.acquire(valkey, replicas=args.replicas, terms=terms)
                break
            except Exception as refusal:
                if closed.is_set():
                    print(f"chaos_holder: no lease before the end: {refusal}", file=sys.stderr)
                    return None
                await asyncio.sleep(retry_s(terms))
        with open(args.out, "wb") as out:
            flushed = time.monotonic()
            while not closed.is_set():
                flushed = mint(lease, out, flushed)
                await asyncio.sleep(0.001)
        stats = lease.stats
        try:
            await lease.release()
        except redis.RedisError as e:
            print(f"chaos_holder: release: {e}", file=sys.stderr)
        await valkey.aclose()
        return stats

    return asyncio.run(hold())


def mint(lease: Union[Lease, AsyncLease], out: BinaryIO, flushed: float) -> float:
    """One tick's ids, each a record (none while no lease is held), flushed
    20 ms after the last flush (``flushed``, monotonic s); when it last was."""
    for _ in range(PER_TICK):
        try:
            minted = lease.next_minted()
        except emq_id.EmqIdError:
            break
        out.write(RECORD.pack(minted.snowflake, time.time_ns() // 1_000_000, minted.lease))
    if time.monotonic() - flushed < 0.02:
        return flushed
    out.flush()
    return time.monotonic()


if __name__ == "__main__":
    sys.exit(main())
