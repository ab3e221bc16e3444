"""Errors: every gate of the core through the one error helper and through a
real input, `.gate` as SPEC.md §9 names it, ints outside the core's types as
`range`, host values of the wrong type as `TypeError`, and what a `str` with
no UTF-8 does."""

from __future__ import annotations

import importlib
import pickle
from typing import Any, Callable, Dict, List

import pytest

import emq_id

EXT: Any = importlib.import_module("emq_id._emq_id")
ID = "USR0KHTOWnGLuC"

#: SPEC.md §9's Python column: a gate the core adds fails here until Python maps it.
PYTHON: Dict[str, str] = {g: g for g in ["length", "namespace", "charset", "range", "queue", "kind", "node"]}


def test_the_one_helper_maps_every_gate_of_the_core() -> None:
    assert len(emq_id.GATES) >= 7
    for index, gate in enumerate(emq_id.GATES):
        name, refusal = EXT._gate_refusal(index)
        assert name == gate, f"GATES[{index}]"
        assert name in PYTHON, f"the core's gate {name!r} has no Python value in this test"
        assert type(refusal) is emq_id.EmqIdError and isinstance(refusal, ValueError)
        assert refusal.gate == PYTHON[name]
        assert str(refusal).startswith(f"{name}: ")
    with pytest.raises(IndexError):
        EXT._gate_refusal(len(emq_id.GATES))


def reach() -> Dict[str, Callable[[], object]]:
    """A public call refused by each gate."""
    return {
        "length": lambda: emq_id.decode("USR0KHTOWnGLu"),
        "namespace": lambda: emq_id.decode("usr0KHTOWnGLuC"),
        "charset": lambda: emq_id.decode(b"USR0KHTOWnGL!C"),
        "range": lambda: emq_id.decode("USRzzzzzzzzzzz"),
        "queue": lambda: emq_id.key("ord{e}rs", "pending"),
        "kind": lambda: emq_id.key("orders", "nope"),
        "node": lambda: emq_id.parse_renewal(0),
    }


def test_every_gate_is_reached_by_a_real_input_with_its_gate() -> None:
    calls = reach()
    assert set(calls) == set(emq_id.GATES), "every gate of the core, and no other"
    for gate, call in calls.items():
        with pytest.raises(emq_id.EmqIdError) as e:
            call()
        assert e.value.gate == gate
        assert str(e.value).startswith(f"{gate}: ") and len(str(e.value)) > len(gate) + 10


def test_a_refusal_pickles_with_its_gate() -> None:
    with pytest.raises(emq_id.EmqIdError) as e:
        emq_id.decode("usr0KHTOWnGLuC")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is emq_id.EmqIdError and back.gate == "namespace" and str(back) == str(e.value)
    assert emq_id.EmqIdError("kind", "made by hand").gate == "kind"


@pytest.mark.parametrize("value", [2**64, 2**64 + 1, 2**200, -1, -(2**63), -(2**200)])
def test_a_64_bit_value_outside_0_to_2_64_is_range_never_overflow(value: int) -> None:
    calls: List[Callable[[], object]] = [
        lambda: emq_id.hash32(value),
        lambda: emq_id.unix_ms(value),
        lambda: emq_id.node(value),
        lambda: emq_id.seq(value),
        lambda: emq_id.encode("USR", value),
        lambda: emq_id.mint_step(value, 0, 0),
        lambda: emq_id.Minter(value),
        lambda: emq_id.LeaseTerms(value, 1),
    ]
    for call in calls:
        with pytest.raises(emq_id.EmqIdError) as e:
            call()
        assert e.value.gate == "range"
        assert not isinstance(e.value, OverflowError)


def test_values_the_core_refuses_are_its_range() -> None:
    calls: List[Callable[[], object]] = [
        lambda: emq_id.encode("USR", 2**63),
        lambda: emq_id.encode("usr", 0),
        lambda: emq_id.Minter(emq_id.MAX_NODE + 1),
        lambda: emq_id.Minter(7).next_at(2**63),
        lambda: emq_id.Minter(7).next_at(-(2**63) - 1),
        lambda: emq_id.min_for(2**63),
        lambda: emq_id.min_for(-(2**63) - 1),
        lambda: emq_id.parse_acquire(2**63, -1),
        lambda: emq_id.Minter(7).next_many(-1),
    ]
    for call in calls:
        with pytest.raises(emq_id.EmqIdError) as e:
            call()
        assert e.value.gate == "range"


WRONG_BYTES = [None, 42, 1.5, bytearray(b"USR"), memoryview(b"USR"), ["USR"], object()]


@pytest.mark.parametrize("value", WRONG_BYTES, ids=lambda v: type(v).__name__)
def test_bytes_in_are_str_or_bytes_else_type_error(value: Any) -> None:
    not_none: Any = 42 if value is None else value  # None is "no id" / "the default namespace" there
    calls: List[Callable[[], object]] = [
        lambda: emq_id.decode(value),
        lambda: emq_id.parse(value),
        lambda: emq_id.encode(value, 0),
        lambda: emq_id.compare(value, ID),
        lambda: emq_id.compare(ID, value),
        lambda: emq_id.slot(value),
        lambda: emq_id.slot_many([value]),
        lambda: emq_id.hashtag(value),
        lambda: emq_id.key(value, "pending"),
        lambda: emq_id.key("orders", value),
        lambda: emq_id.key("orders", "job", not_none),
        lambda: emq_id.queue_key("orders", value),
        lambda: emq_id.job_key(value, ID),
        lambda: emq_id.parse_key(value),
        lambda: emq_id.reserve(value),
        lambda: emq_id.queue_prefix(value),
        lambda: emq_id.job_prefix(value),
        lambda: emq_id.prefix_bytes("orders", value),
        lambda: emq_id.xadd_id(value),
        lambda: emq_id.from_xadd_id(value),
        lambda: emq_id.from_xadd_id("1704117200000-1620567", not_none),
        lambda: emq_id.mint(value),
        lambda: emq_id.parse_acquire_error(value),
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()


WRONG_INTS = ["1", 1.0, 1.5, True, False, None, b"1", [1]]


@pytest.mark.parametrize("value", WRONG_INTS, ids=repr)
def test_integers_are_int_else_type_error_bool_and_float_included(value: Any) -> None:
    minter = emq_id.Minter(1)
    calls: List[Callable[[], object]] = [
        lambda: emq_id.hash32(value),
        lambda: emq_id.unix_ms(value),
        lambda: emq_id.node(value),
        lambda: emq_id.seq(value),
        lambda: emq_id.encode("USR", value),
        lambda: emq_id.min_for(value),
        lambda: emq_id.mint_step(0, value, 0),
        lambda: emq_id.Minter(value),
        lambda: minter.next_at(value),
        lambda: minter.next_many(value),
        lambda: emq_id.set_node(value),
        lambda: emq_id.parse_acquire(value, -1),
        lambda: emq_id.parse_renewal(value),
        lambda: emq_id.LeaseTerms(value, 1),
        lambda: emq_id.LeaseTerms.for_ttl(value),
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()


def test_a_str_without_utf8_raises_unicode_encode_error_never_a_replaced_key() -> None:
    lone = "emq:{orders}:\ud800"
    calls: List[Callable[[], object]] = [
        lambda: emq_id.slot(lone),
        lambda: emq_id.slot_many(["orders", lone]),
        lambda: emq_id.hashtag(lone),
        lambda: emq_id.decode("USR0KHTOWnGL\ud800"),
        lambda: emq_id.key("orders", "g:\ud800:pending"),
    ]
    for call in calls:
        with pytest.raises(UnicodeEncodeError):
            call()
    # As Python itself and redis-py's default encoder (errors="strict") refuse it. The
    # bytes a host means are given as bytes, e.g. with the surrogateescape handler:
    assert emq_id.slot(lone.encode("utf-8", "surrogatepass")) == emq_id.slot("orders")
    assert emq_id.slot("k\ufffd") == emq_id.slot("k\ufffd".encode())


def test_keys_of_any_bytes_slot() -> None:
    assert emq_id.slot(b"\x00\xff{\x80}") == emq_id.slot(b"\x80")
    assert emq_id.hashtag(b"\x00\xff{\x80}") == b"\x80"
    assert emq_id.slot("ключ{é}") == emq_id.slot("é".encode())
