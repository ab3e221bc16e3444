"""Per-call cost of emq_id beside the empty extension call (the floor: every
call pays it) and the anchors a Python user would pick instead: redis-py's
`redis.crc.key_slot` for slots and python-ulid (`str(ULID)`,
`ULID.from_str`) for the text codec. One run, best of 7 rounds, ns per call.

Run: cargo xtask bench python (it installs the anchors from PyPI into the
benchmark's own virtual environment, target/python/bench).
"""

from __future__ import annotations

import importlib
import platform
import sys
import timeit
from typing import Any, Dict, List, Optional, Tuple

import emq_id
from redis.crc import key_slot
from ulid import ULID

EXT: Any = importlib.import_module("emq_id._emq_id")
ROUNDS = 7


def ns_per_call(stmt: str, names: Dict[str, Any], number: int = 200_000) -> float:
    """The best round's time per run of `stmt` (source text: timeit's loop
    calls it inline, with no closure around it) over `names`."""
    best = min(timeit.repeat(stmt, globals=names, number=number, repeat=ROUNDS))
    return best / number * 1e9


def main() -> None:
    s = 274557032793636864
    text = "USR0KHTOWnGLuC"
    key = "emq:{orders}:job:JOB0KHTOWnGLuC"
    key_bytes = key.encode()
    ulid = ULID.from_str("01KFZDNC5HR1DJ6Y6Z8KDW31M9")
    ulid_text = str(ulid)
    keys = [f"emq:{{orders-{i % 97}}}:job:JOB0KHTOWnGL{i:03d}" for i in range(1000)]
    keys_bytes = [k.encode() for k in keys]
    assert emq_id.slot_many(keys_bytes) == [key_slot(k) for k in keys_bytes], "the anchor answers the same slots"
    assert emq_id.slot(key_bytes) == key_slot(key_bytes)

    names: Dict[str, Any] = {
        "noop": EXT._noop,
        "hash32": emq_id.hash32,
        "encode": emq_id.encode,
        "decode": emq_id.decode,
        "slot": emq_id.slot,
        "slot_many": emq_id.slot_many,
        "key_slot": key_slot,
        "ULID": ULID,
        "minter": emq_id.Minter(1),
        "s": s,
        "text": text,
        "key": key,
        "key_bytes": key_bytes,
        "ulid": ulid,
        "ulid_text": ulid_text,
        "keys": keys,
        "keys_bytes": keys_bytes,
    }

    def took(stmt: str, number: int = 200_000) -> float:
        return ns_per_call(stmt, names, number)

    floor = took("noop(s)")
    rows: List[Tuple[str, float, Optional[str], Optional[float]]] = [
        ("hash32", took("hash32(s)"), None, None),
        ("encode", took("encode('USR', s)"), "python-ulid str(ULID)", took("str(ulid)")),
        ("decode", took("decode(text)"), "python-ulid ULID.from_str", took("ULID.from_str(ulid_text)")),
        ("slot (bytes key, 31 B, tagged)", took("slot(key_bytes)"), "redis.crc.key_slot", took("key_slot(key_bytes)")),
        ("slot (str key)", took("slot(key)"), "key_slot(key.encode())", took("key_slot(key.encode())")),
        ("Minter.next (wall clock)", took("minter.next()"), None, None),
    ]
    batch = took("slot_many(keys_bytes)", 2_000) / len(keys)
    batch_anchor = took("[key_slot(k) for k in keys_bytes]", 2_000) / len(keys)
    batch_str = took("slot_many(keys)", 2_000) / len(keys)
    mint_batch = took("minter.next_many(1000)", 2_000) / 1000

    print(f"Python {platform.python_version()} ({sys.implementation.name}), {platform.machine()}, best of {ROUNDS} rounds")
    print()
    print(f"| call | emq-id ns | ÷ empty call ({floor:.1f} ns) | anchor | anchor ns | anchor ÷ emq-id |")
    print("|---|---|---|---|---|---|")
    for name, ns, anchor, anchor_ns in rows:
        cells = [name, f"{ns:.1f}", f"{ns / floor:.2f}×"]
        if anchor is None or anchor_ns is None:
            cells += ["–", "–", "–"]
        else:
            cells += [anchor, f"{anchor_ns:.1f}", f"**{anchor_ns / ns:.2f}×**"]
        print("| " + " | ".join(cells) + " |")
    print(f"| slot_many, per key (1,000 bytes keys) | {batch:.1f} | – | 1,000 key_slot calls | {batch_anchor:.1f} | **{batch_anchor / batch:.2f}×** |")
    print(f"| slot_many, per key (1,000 str keys) | {batch_str:.1f} | – | – | – | – |")
    print(f"| Minter.next_many, per id (1,000) | {mint_batch:.1f} | – | – | – | – |")


if __name__ == "__main__":
    main()
