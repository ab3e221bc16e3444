"""Slots and the keyspace in Python terms: what comes back for `str` and
`bytes`, batches, and the keyspace's builders and parser."""

from __future__ import annotations

import threading
from typing import Callable, Dict, List, Tuple, Union

import pytest

import emq_id

JOB = "JOB0KHTOWnGLuC"


def test_slot_of_str_and_bytes_agree() -> None:
    assert emq_id.slot("123456789") == 12739
    assert emq_id.slot("{fills}") == emq_id.slot(b"{fills}") == 4165
    assert emq_id.slot("emq:{orders}:pending") == emq_id.slot("orders")


def test_hashtag_answers_the_type_it_was_given() -> None:
    assert emq_id.hashtag("emq:{orders}:pending") == "orders"
    assert emq_id.hashtag(b"emq:{orders}:pending") == b"orders"
    assert emq_id.hashtag("foo{}{bar}") == "foo{}{bar}"
    assert emq_id.hashtag("foo{{bar}}zap") == "{bar"
    assert emq_id.hashtag("x{é}y") == "é", "whole characters: the braces are ASCII"
    key = "no tag here"
    assert emq_id.hashtag(key) is key, "the whole key: the same object"


def test_slot_many_is_slot_of_each_key() -> None:
    keys: List[str | bytes] = [f"emq:{{q{i}}}:pending" for i in range(1000)]
    keys += [b"\x00", b"", "", "x" * 70_000]
    assert emq_id.slot_many(keys) == [emq_id.slot(k) for k in keys]
    mixed: List[Union[str, bytes]] = ["a", b"b"]
    assert emq_id.slot_many(k for k in mixed) == [emq_id.slot("a"), emq_id.slot("b")], "any iterable"
    assert emq_id.slot_many(("a",)) == [emq_id.slot("a")]
    with pytest.raises(TypeError):
        emq_id.slot_many(42)  # type: ignore[arg-type]
    one_keys: List[Union[str, bytes]] = ["emq:{orders}:pending", b"emq:{orders}:pending"]
    for one_key in one_keys:
        with pytest.raises(TypeError, match="an iterable of keys"):
            emq_id.slot_many(one_key)  # type: ignore[arg-type]


def test_slot_many_in_threads_with_the_gil_released() -> None:
    keys = [f"emq:{{queue-{i}}}:job:{JOB}" for i in range(20_000)]
    expected = [emq_id.slot(k) for k in keys]
    results: List[List[int]] = []

    def work() -> None:
        for _ in range(5):
            results.append(emq_id.slot_many(keys))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 20 and all(r == expected for r in results)


def test_the_keyspace_builds_and_reads_back() -> None:
    assert emq_id.key("orders", "pending") == "emq:{orders}:pending"
    assert emq_id.key(b"orders", b"g:vip:pending") == "emq:{orders}:g:vip:pending"
    assert emq_id.key("orders", "job", JOB) == f"emq:{{orders}}:job:{JOB}"
    assert emq_id.key("orders", "pending", None) == "emq:{orders}:pending"
    assert emq_id.queue_key("orders", "active") == "emq:{orders}:active"
    assert emq_id.job_key("orders", JOB) == f"emq:{{orders}}:job:{JOB}"
    assert emq_id.reserve("version") == emq_id.VERSION_KEY
    assert emq_id.queue_prefix("orders") == "emq:{orders}:"
    assert emq_id.job_prefix("orders") == "emq:{orders}:job:"
    assert emq_id.prefix_bytes("orders", "job:") == 17
    parsed = emq_id.parse_key(f"emq:{{orders}}:job:{JOB}:lock")
    assert (parsed.queue, parsed.family, parsed.param) == ("orders", "job:<id>:lock", JOB)
    assert repr(parsed) == f"ParsedKey(queue='orders', family='job:<id>:lock', param='{JOB}')"
    plain = emq_id.parse_key(b"emq:{orders}:pending")
    assert plain.param is None and plain == emq_id.parse_key("emq:{orders}:pending")
    assert hash(plain) == hash(emq_id.parse_key("emq:{orders}:pending"))
    with pytest.raises(AttributeError):
        setattr(parsed, "queue", "x")


def test_the_keyspace_refuses_with_its_gates() -> None:
    cases: Dict[Tuple[str, str], Callable[[], object]] = {
        ("queue", "key"): lambda: emq_id.key("a b", "pending"),
        ("kind", "key"): lambda: emq_id.key("orders", "g:a:b:pending"),
        ("kind", "job of USR"): lambda: emq_id.job_key("orders", "USR0KHTOWnGLuC"),
        ("length", "job without id"): lambda: emq_id.key("orders", "job"),
        ("kind", "reserve"): lambda: emq_id.reserve("a b"),
        ("queue", "parse_key"): lambda: emq_id.parse_key("emq:orders:pending"),
        ("kind", "xadd of USR"): lambda: emq_id.xadd_id("USR0KHTOWnGLuC"),
        ("charset", "from_xadd"): lambda: emq_id.from_xadd_id("12x-3"),
    }
    for (gate, what), call in cases.items():
        with pytest.raises(emq_id.EmqIdError) as e:
            call()
        assert e.value.gate == gate, what


def test_stream_entry_ids_both_ways() -> None:
    assert emq_id.xadd_id("EVT000xY9Wvvcd") == "1704117200000-1620567"
    assert emq_id.from_xadd_id("1704117200000-1620567") == "EVT000xY9Wvvcd"
    assert emq_id.from_xadd_id("1704117200000-1620567", None) == "EVT000xY9Wvvcd"
    assert emq_id.from_xadd_id(b"1704117200000-1620567", b"ORD") == "ORD000xY9Wvvcd"
