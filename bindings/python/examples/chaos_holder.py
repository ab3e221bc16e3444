"""A holder of `cargo xtask chaos`'s fleet, in Python (xtask/src/runtimes/valkey/chaos/holder.rs
says the contract): holds a lease with ``emq_id.holder.Lease`` over redis-py and mints two ids a
millisecond into FILE until its stdin closes, then releases and prints its stats as one JSON line.

    python chaos_holder.py --seeds HOST:PORT[,HOST:PORT...] --replicas N --ttl MS --margin MS --out FILE

Each record is 24 bytes, little-endian: the snowflake, the unix ms it was minted at, the ordinal
of the lease that minted it, 4 bytes of padding.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import threading
import time
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry

import emq_id
from emq_id.holder import Lease

RECORD = struct.Struct("<QQI4x")
PER_TICK = 2
#: A node that does not answer within a second is treated as down: the holder looks elsewhere.
TIMEOUTS: dict[str, Any] = {"socket_timeout": 1.0, "socket_connect_timeout": 0.3}


def client(seeds: list[tuple[str, int]]) -> Any:
    """A RedisCluster when the first seed that answers runs in cluster mode, else a Redis."""
    for host, port in seeds:
        probe = redis.Redis(host=host, port=port, retry=Retry(NoBackoff(), 0), **TIMEOUTS)
        try:
            enabled = probe.info("cluster").get("cluster_enabled") == 1
        except redis.RedisError:
            continue
        finally:
            probe.close()
        if enabled:
            nodes = [ClusterNode(h, p) for h, p in seeds]  # type: ignore[no-untyped-call]
            return RedisCluster(startup_nodes=nodes, retry=Retry(NoBackoff(), 0), **TIMEOUTS)
        return redis.Redis(host=host, port=port, retry=Retry(NoBackoff(), 0), **TIMEOUTS)
    raise ConnectionError("no seed answered")


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
    retry = min(max(terms.ttl_ms // 20, 10), 250) / 1000
    valkey: Any = None
    with open(args.out, "wb") as out:
        # Joining the fleet: the first acquire is refused while no node is free or no replica
        # acknowledges it, and fails while the cluster fails over; a holder keeps asking.
        while True:
            try:
                valkey = valkey or client(args.seeds)
                lease = Lease.acquire(valkey, replicas=args.replicas, terms=terms)
                break
            except Exception as refusal:  # EmqIdError, LeaseWireError, redis-py's errors
                if closed.is_set():
                    print(f"chaos_holder: no lease before the end: {refusal}", file=sys.stderr)
                    return 1
                time.sleep(retry)
        flushed = time.monotonic()
        while not closed.is_set():
            for _ in range(PER_TICK):
                try:
                    minted = lease.next_minted()
                except emq_id.EmqIdError:
                    break
                out.write(RECORD.pack(minted.snowflake, time.time_ns() // 1_000_000, minted.lease))
            if time.monotonic() - flushed >= 0.02:
                out.flush()
                flushed = time.monotonic()
            time.sleep(0.001)
        out.flush()
    stats = lease.stats
    try:
        lease.release()
    except redis.RedisError as e:
        print(f"chaos_holder: release: {e}", file=sys.stderr)
    print(json.dumps({"taken": stats.taken, "lost": stats.lost, "longest_unleased_ms": stats.longest_unleased_ms}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
