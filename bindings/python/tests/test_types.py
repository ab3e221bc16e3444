"""Types and shapes the vector file cannot say: what each call answers in
Python terms, the contract's facts as the core's, the immutable values."""

from __future__ import annotations

import datetime as dt
import importlib
import typing
from typing import Any

import pytest

import emq_id

EXT: Any = importlib.import_module("emq_id._emq_id")
ID = "USR0KHTOWnGLuC"
SNOWFLAKE = 274557032793636864
UNIX_MS = 1769526697641


def test_every_fact_of_the_core_is_a_constant_of_the_package() -> None:
    names = EXT._FACTS
    assert len(names) >= 20
    for name in names:
        assert name in emq_id.__all__, name
        assert getattr(emq_id, name) == getattr(EXT, name), name
    assert emq_id.CONTRACT == "branded-snowflake/1.0.0"
    assert emq_id.MAX_SNOWFLAKE == 2**63 - 1
    assert emq_id.LEASE_NODES == emq_id.MAX_NODE + 1


def test_the_gate_alias_is_the_cores_list_and_the_public_names_are_all() -> None:
    assert typing.get_args(emq_id.Gate) == emq_id.GATES
    assert emq_id.GATES[:4] == ("length", "namespace", "charset", "range")
    assert set(typing.get_args(emq_id.NodeSource)) == {"env", "set", "fallback"}
    # `holder` is a submodule (`emq_id.holder`, imported on demand), not a name the package exports.
    public = {n for n in dir(emq_id) if not n.startswith("_")} - {"annotations", "os", "Literal", "holder"}
    assert public == set(emq_id.__all__)
    assert len(emq_id.__all__) == len(set(emq_id.__all__))


def test_encode_answers_a_str_from_str_or_bytes() -> None:
    assert emq_id.encode("USR", SNOWFLAKE) == ID
    assert emq_id.encode(b"USR", SNOWFLAKE) == ID
    assert type(emq_id.encode("USR", SNOWFLAKE)) is str
    assert emq_id.encode("MAX", emq_id.MAX_SNOWFLAKE) == "MAXAzL8n0Y58m7"


def test_decode_answers_an_immutable_value() -> None:
    d = emq_id.decode(ID)
    assert isinstance(d, emq_id.Decoded)
    assert (d.ns, d.snowflake, d.unix_ms, d.node, d.seq) == ("USR", SNOWFLAKE, UNIX_MS, 0, 0)
    assert all(type(v) is int for v in (d.snowflake, d.unix_ms, d.node, d.seq))
    assert repr(d) == "Decoded(ns='USR', snowflake=274557032793636864, unix_ms=1769526697641, node=0, seq=0)"
    with pytest.raises(AttributeError):
        setattr(d, "ns", "JOB")
    with pytest.raises(AttributeError):
        setattr(d, "extra", 1)
    with pytest.raises(TypeError):
        type(d)()


def test_decoded_is_equal_hashed_and_ordered_as_its_id() -> None:
    a, b = emq_id.decode(ID), emq_id.decode(ID.encode())
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    later = emq_id.decode(emq_id.encode("USR", SNOWFLAKE + 1))
    other_ns = emq_id.decode(emq_id.encode("ABC", SNOWFLAKE + 5))
    assert a < later and later > a and a <= b and a >= b and a != later
    assert other_ns < a, "namespace first, as the text sorts"
    assert sorted([later, other_ns, a]) == [other_ns, a, later]
    assert a != ID and not (a == SNOWFLAKE)  # noqa: SIM201 - other types are simply unequal
    with pytest.raises(TypeError):
        _ = a < ID  # type: ignore[operator]


def test_datetime_is_an_aware_utc_instant_to_the_millisecond() -> None:
    when = emq_id.decode(ID).datetime
    assert when == dt.datetime(2026, 1, 27, 15, 11, 37, 641000, tzinfo=dt.timezone.utc)
    assert when.utcoffset() == dt.timedelta(0)
    assert emq_id.decode("USR00000000000").datetime == dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    latest = emq_id.decode("ZZZAzL8n0Y58m7").datetime
    assert latest.year == 2093 and latest.microsecond % 1000 == 0


def test_parse_is_decodes_gates_without_the_object() -> None:
    assert emq_id.parse(ID) == ("USR", SNOWFLAKE)
    assert emq_id.parse(ID.encode()) == ("USR", SNOWFLAKE)
    with pytest.raises(emq_id.EmqIdError) as e:
        emq_id.parse("USR0KHTOWnGL!C")
    assert e.value.gate == "charset"


def test_is_valid_never_raises() -> None:
    assert emq_id.is_valid(ID) and emq_id.is_valid(ID.encode())
    for value in ["usr0KHTOWnGLuC", "", b"", None, 42, SNOWFLAKE, 1.5, ["USR"], bytearray(ID.encode()), "USR0KHTOWnGL\ud800"]:
        assert emq_id.is_valid(value) is False, value


def test_compare_orders_ids_as_minus_one_zero_one() -> None:
    later = emq_id.encode("USR", SNOWFLAKE + 1)
    assert (emq_id.compare(ID, later), emq_id.compare(ID, ID), emq_id.compare(later, ID)) == (-1, 0, 1)
    assert emq_id.compare(ID.encode(), later) == -1
    with pytest.raises(emq_id.EmqIdError) as e:
        emq_id.compare(ID, "USR")
    assert e.value.gate == "length"


def test_the_fields_of_a_snowflake_are_total_over_64_bits() -> None:
    assert (emq_id.unix_ms(SNOWFLAKE), emq_id.node(SNOWFLAKE), emq_id.seq(SNOWFLAKE)) == (UNIX_MS, 0, 0)
    assert emq_id.hash32(SNOWFLAKE) == 234878118
    top = 2**64 - 1
    assert emq_id.node(top) == emq_id.MAX_NODE and emq_id.seq(top) == emq_id.MAX_SEQ
    assert 0 <= emq_id.hash32(top) < 2**32
    assert emq_id.unix_ms(0) == emq_id.EPOCH_MS


class Index:
    """Not an int, but usable as one (`__index__`), as numpy's integers are."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_integers_are_ints_or_have_index() -> None:
    assert emq_id.hash32(Index(SNOWFLAKE)) == emq_id.hash32(SNOWFLAKE)  # type: ignore[arg-type]
    assert emq_id.encode("USR", Index(SNOWFLAKE)) == ID  # type: ignore[arg-type]


def test_min_for_takes_an_aware_datetime_or_unix_ms() -> None:
    utc = dt.datetime(2026, 1, 27, 15, 11, 37, 641000, tzinfo=dt.timezone.utc)
    assert emq_id.min_for(UNIX_MS) == SNOWFLAKE
    assert emq_id.min_for(utc) == SNOWFLAKE
    paris = utc.astimezone(dt.timezone(dt.timedelta(hours=1)))
    assert emq_id.min_for(paris) == SNOWFLAKE, "an instant, whatever its zone"
    assert emq_id.min_for(utc + dt.timedelta(microseconds=999)) == SNOWFLAKE, "floored to its millisecond"
    assert emq_id.min_for(utc - dt.timedelta(microseconds=1)) == emq_id.min_for(UNIX_MS - 1)
    assert emq_id.min_for(dt.datetime(1999, 1, 1, tzinfo=dt.timezone.utc)) == 0, "before the epoch: 0"
    assert emq_id.min_for(-(2**63)) == 0


def test_min_for_refuses_a_naive_datetime_saying_why() -> None:
    with pytest.raises(ValueError, match="naive datetime names no instant") as e:
        emq_id.min_for(dt.datetime(2026, 1, 27, 15, 11, 37))
    assert not isinstance(e.value, emq_id.EmqIdError), "not a gate: a host value without a meaning"
    with pytest.raises(TypeError, match="aware datetime or int"):
        emq_id.min_for(dt.date(2026, 1, 27))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emq_id.min_for("2026-01-27")  # type: ignore[arg-type]
    assert emq_id.min_for(Index(UNIX_MS)) == SNOWFLAKE  # type: ignore[arg-type]
    with pytest.raises(emq_id.EmqIdError) as past:
        emq_id.min_for(dt.datetime(2100, 1, 1, tzinfo=dt.timezone.utc))
    assert past.value.gate == "range"


def test_mint_step_is_the_pure_step() -> None:
    state, snowflake = emq_id.mint_step(0, 5, UNIX_MS)
    assert (emq_id.unix_ms(snowflake), emq_id.node(snowflake), emq_id.seq(snowflake)) == (UNIX_MS, 5, 0)
    _, back = emq_id.mint_step(state, 5, UNIX_MS - 1000)
    assert back == snowflake + 1, "a clock going back continues from state + 1"


def test_version_is_the_installed_distributions() -> None:
    import importlib.metadata

    assert emq_id.__version__ == importlib.metadata.version("emq_id")


def test_the_wheel_carries_no_benchmark_floor() -> None:
    """`_noop` exists only in a build with the `bench` feature, which no wheel has."""
    import importlib

    assert not hasattr(importlib.import_module("emq_id._emq_id"), "_noop")


def test_the_stubs_declared_names_are_all() -> None:
    """The stub declares each public name once and does not spell `__all__`:
    its top-level public declarations are the package's `__all__`."""
    import ast
    import pathlib

    stub = ast.parse((pathlib.Path(emq_id.__file__).parent / "__init__.pyi").read_text())
    declared = set()
    for node in stub.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
        elif isinstance(node, ast.Assign):
            declared.update(t.id for t in node.targets if isinstance(t, ast.Name))
    public = {name for name in declared if not name.startswith("_")}
    assert len(public) > 40
    assert public == set(emq_id.__all__)
