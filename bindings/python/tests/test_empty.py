"""Empty inputs through every call that takes bytes or a count: an answer, a
gate, never a crash (ARCHITECTURE.md, "no input crashes or hangs a process")."""

from __future__ import annotations

from typing import Callable, List, Tuple, Union

import pytest

import emq_id


@pytest.mark.parametrize("empty", ["", b""], ids=["str", "bytes"])
def test_empty_keys_slot_zero_and_tag_themselves(empty: Union[str, bytes]) -> None:
    assert emq_id.slot(empty) == 0
    assert emq_id.hashtag(empty) == empty
    assert emq_id.slot_many([empty, empty]) == [0, 0]
    assert emq_id.is_valid(empty) is False


def test_empty_batches_answer_empty_lists() -> None:
    assert emq_id.slot_many([]) == []
    assert emq_id.slot_many(iter(())) == []
    assert emq_id.Minter(1).next_many(0) == []


@pytest.mark.parametrize("empty", ["", b""], ids=["str", "bytes"])
def test_empty_inputs_are_refused_by_their_gate(empty: Union[str, bytes]) -> None:
    cases: List[Tuple[str, Callable[[], object]]] = [
        ("length", lambda: emq_id.decode(empty)),
        ("length", lambda: emq_id.parse(empty)),
        ("length", lambda: emq_id.compare(empty, "USR0KHTOWnGLuC")),
        ("range", lambda: emq_id.encode(empty, 0)),
        ("queue", lambda: emq_id.key(empty, "pending")),
        ("kind", lambda: emq_id.key("orders", empty)),
        ("length", lambda: emq_id.key("orders", "job", empty)),
        ("queue", lambda: emq_id.queue_key(empty, "pending")),
        ("length", lambda: emq_id.job_key("orders", empty)),
        ("queue", lambda: emq_id.parse_key(empty)),
        ("kind", lambda: emq_id.reserve(empty)),
        ("queue", lambda: emq_id.queue_prefix(empty)),
        ("queue", lambda: emq_id.job_prefix(empty)),
        ("kind", lambda: emq_id.prefix_bytes("orders", empty)),
        ("length", lambda: emq_id.xadd_id(empty)),
        ("charset", lambda: emq_id.from_xadd_id(empty)),
        ("range", lambda: emq_id.from_xadd_id("1704117200000-1620567", empty)),
        ("range", lambda: emq_id.mint(empty)),
    ]
    for gate, call in cases:
        with pytest.raises(emq_id.EmqIdError) as e:
            call()
        assert e.value.gate == gate, (gate, e.value)
    assert emq_id.parse_acquire_error(empty) is None
