"""Node leases (emq-lease/3) in Python terms: the scripts as data, the key,
reply parsers, terms and the leased minter's life (start after the previous
mark, the fence, renewals, the stop). The live protocol runs in
`cargo xtask leases`; the answers are checked by the vector file."""

from __future__ import annotations

import threading
from typing import List

import pytest

import emq_id

T = 1769526697641


def test_the_scripts_are_the_cores_by_name_and_read_only() -> None:
    scripts = emq_id.LEASE_SCRIPTS
    assert list(scripts) == ["acquire", "renew", "release"]
    acquire = scripts["acquire"]
    assert isinstance(acquire, emq_id.LeaseScript) and acquire.name == "acquire"
    assert "redis.call('HSET', leases" in acquire.text and acquire.text.endswith("\n")
    assert len(acquire.keys) == 1 and len(acquire.args) == 5 and type(acquire.keys) is tuple
    assert [(len(scripts[n].keys), len(scripts[n].args)) for n in ("renew", "release")] == [(1, 4), (1, 3)]
    # Every key a script touches is its one KEYS[1]: none is built inside a script.
    assert all(s.text.count("KEYS[") == 1 and "KEYS[1]" in s.text and "{emq}" not in s.text for s in scripts.values())
    with pytest.raises(TypeError):
        scripts["acquire"] = acquire  # type: ignore[index]
    assert emq_id.LEASE_PROTOCOL == "emq-lease/3"


def test_the_lease_key_is_the_reserves_one_key() -> None:
    assert emq_id.LEASE_KEY == "{emq}:leases" and "LEASE_KEY" in emq_id.__all__
    assert emq_id.reserve("leases") == emq_id.LEASE_KEY
    assert emq_id.slot(emq_id.LEASE_KEY) == emq_id.slot(emq_id.VERSION_KEY)
    for gone in ("lease_prefix", "lease_key", "mark_key"):
        assert not hasattr(emq_id, gone), gone


def test_replies_are_read_or_refused() -> None:
    fresh = emq_id.parse_acquire(7, -1)
    assert (fresh.node, fresh.previous_mark) == (7, None)
    assert repr(fresh) == "Acquired(node=7, previous_mark=None)"
    assert emq_id.parse_acquire(1023, T).previous_mark == T
    assert fresh == emq_id.parse_acquire(7, -1) and hash(fresh) == hash(emq_id.parse_acquire(7, -1))
    for node, previous in [(1024, -1), (-1, -1), (0, -2)]:
        with pytest.raises(emq_id.EmqIdError) as e:
            emq_id.parse_acquire(node, previous)
        assert e.value.gate == "range"
    emq_id.parse_renewal(1)
    with pytest.raises(emq_id.EmqIdError) as lost:
        emq_id.parse_renewal(0)
    assert lost.value.gate == "node"
    every = emq_id.parse_acquire_error("ERR EMQLEASE every node is leased")
    assert isinstance(every, emq_id.EmqIdError) and every.gate == "node"
    assert emq_id.parse_acquire_error(b"EMQLEASE every node is leased") is not None
    assert emq_id.parse_acquire_error("NOSCRIPT No matching script") is None
    assert emq_id.parse_acquire_error(b"\xff\xfe") is None


def test_a_lease_write_counts_once_acknowledged() -> None:
    assert emq_id.LEASE_REPLICAS == 1
    for acknowledged, replicas in [(1, emq_id.LEASE_REPLICAS), (2, 1), (0, 0), (3, 2)]:
        emq_id.parse_wait(acknowledged, replicas)
    with pytest.raises(emq_id.EmqIdError) as unacknowledged:
        emq_id.parse_wait(1, 3)
    assert unacknowledged.value.gate == "node"
    assert (unacknowledged.value.acknowledged, unacknowledged.value.replicas) == (1, 3)
    assert str(unacknowledged.value).startswith("node: acknowledged by 1 of 3 replicas: ")
    for acknowledged, replicas in [(-1, 1), (1, -1), (1, 2**32)]:
        with pytest.raises(emq_id.EmqIdError) as e:
            emq_id.parse_wait(acknowledged, replicas)
        assert e.value.gate == "range" and e.value.acknowledged is None
    with pytest.raises(TypeError):
        emq_id.parse_wait(1, "1")  # type: ignore[arg-type]
    assert emq_id.LeaseTerms.DEFAULT.wait_ms == 2_500
    assert emq_id.LeaseTerms(3_000, 500).wait_ms == 250
    assert emq_id.LeaseTerms(3, 1).wait_ms == 1


def test_terms_are_the_cores() -> None:
    default = emq_id.LeaseTerms.DEFAULT
    assert (default.ttl_ms, default.margin_ms) == (emq_id.LEASE_TTL_MS, emq_id.LEASE_MARGIN_MS)
    assert emq_id.LeaseTerms.for_ttl(3_000) == emq_id.LeaseTerms(3_000, 500)
    assert repr(emq_id.LeaseTerms(3_000, 500)) == "LeaseTerms(ttl_ms=3000, margin_ms=500)"
    for ttl, margin in [(10, 10), (30_000, 0), (30_000, 20_001), (2, 1)]:
        with pytest.raises(emq_id.EmqIdError) as e:
            emq_id.LeaseTerms(ttl, margin)
        assert e.value.gate == "range"


def test_a_leased_minter_starts_after_the_previous_mark_and_stops_at_its_fence() -> None:
    previous = T + 35_000
    minter = emq_id.LeasedMinter(emq_id.parse_acquire(3, previous), T, 0)
    assert minter.node == 3 and minter.terms == emq_id.LeaseTerms.DEFAULT
    first = minter.next_at(T, 0)
    assert emq_id.unix_ms(first) == previous + 1 and emq_id.node(first) == 3
    assert minter.fence_ms == emq_id.LEASE_TTL_MS - emq_id.LEASE_MARGIN_MS
    with pytest.raises(emq_id.EmqIdError) as fenced:
        minter.next_at(T, minter.fence_ms)
    assert fenced.value.gate == "node"
    mark = minter.next_mark(T + 20_000)
    minter.renewed(20_000, mark)
    assert minter.next_at(T + 20_000, 44_999) > first
    minter.stop()
    with pytest.raises(emq_id.EmqIdError) as stopped:
        minter.next_at(T + 21_000, 21_000)
    assert stopped.value.gate == "node"
    assert minter.high_water >= previous + 1


def test_a_leased_minter_mints_with_its_own_clocks_and_between_threads() -> None:
    now = emq_id.unix_ms(emq_id.Minter(0).next())
    minter = emq_id.LeasedMinter(emq_id.parse_acquire(5, -1), now, emq_id.monotonic_ms(), emq_id.LeaseTerms(30_000, 5_000))
    minted: List[int] = []

    def work() -> None:
        for _ in range(10_000):
            minted.append(minter.next())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(minted)) == 40_000 and {emq_id.node(s) for s in minted} == {5}
    a = emq_id.monotonic_ms()
    assert emq_id.monotonic_ms() >= a >= 0


def test_a_lease_before_the_epoch_or_with_bad_terms_is_refused() -> None:
    acquired = emq_id.parse_acquire(1, -1)
    with pytest.raises(emq_id.EmqIdError) as e:
        emq_id.LeasedMinter(acquired, 0, 0)
    assert e.value.gate == "range"
    with pytest.raises(TypeError):
        emq_id.LeasedMinter(acquired, T, 0, (30_000, 5_000))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emq_id.LeasedMinter((1, None), T, 0)  # type: ignore[arg-type]
