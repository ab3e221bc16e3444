"""The lease keeper (SPEC.md §5.2) in Python terms: an error reply read, a
redirect's node, the core's Keeper through its steps, the schedule on the
terms, and the refusals. Every answer's value is checked by the vector file
(`lease_replies`, `lease_keepers`); here, the shapes and the gates."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest

import emq_id
from emq_id import LeaseKeeper, LeaseTerms


def test_an_error_reply_reads_as_the_cores_outcome() -> None:
    assert emq_id.read_lease_error("ERR EMQLEASE every node is leased", False) == "leased"
    assert emq_id.read_lease_error("ASK 9051 10.0.0.2:7001", False) == "ask"
    assert emq_id.read_lease_error("ASK 9051 10.0.0.2:7001", True) == "fault"
    assert emq_id.read_lease_error(b"MOVED 9051 10.0.0.2:7001", False) == "moved"
    assert emq_id.read_lease_error("READONLY You can't write against a read only replica.", False) == "moved"
    for not_run in (
        "TRYAGAIN Multiple keys",
        "CLUSTERDOWN The cluster is down",
        "NOREPLICAS Not enough good replicas",
        "OOM command not allowed when used memory > 'maxmemory'.",
        "MISCONF Errors writing to the AOF file",
    ):
        assert emq_id.read_lease_error(not_run, False) == "not_run", not_run
    assert emq_id.read_lease_error("ERR Error running script", False) == "fault"
    assert emq_id.read_lease_error(b"\xff\xfe", False) == "fault"  # no UTF-8: not the protocol's
    with pytest.raises(TypeError):
        emq_id.read_lease_error(1, False)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emq_id.read_lease_error("ASK 9051 10.0.0.2:7001", 1)  # type: ignore[arg-type]


def test_a_redirect_names_its_node_or_leaves_the_host_out() -> None:
    asked = emq_id.redirect("ASK 9051 10.0.0.2:7001")
    assert asked is not None and (asked.ask, asked.slot, asked.host, asked.port) == (True, 9051, "10.0.0.2", 7001)
    assert repr(asked) == "Redirect(ask=True, slot=9051, host='10.0.0.2', port=7001)"
    assert asked == emq_id.redirect(b"ASK 9051 10.0.0.2:7001") and hash(asked) == hash(emq_id.redirect(b"ASK 9051 10.0.0.2:7001"))
    moved = emq_id.redirect("MOVED 9051 :7001")
    assert moved is not None and (moved.ask, moved.host) == (False, None)
    bracketed = emq_id.redirect("ASK 9051 [2001:db8::1]:7001")
    assert bracketed is not None and bracketed.host == "2001:db8::1"
    for other in ("MOVED 16384 10.0.0.2:7001", "ASK 9051", "CLUSTERDOWN The cluster is down", ""):
        assert emq_id.redirect(other) is None
    with pytest.raises(AttributeError):
        setattr(asked, "port", 1)


def test_the_schedule_is_the_terms() -> None:
    assert (LeaseTerms.DEFAULT.renew_every_ms, LeaseTerms.DEFAULT.retry_ms) == (10_000, 250)
    assert (LeaseTerms(2_000, 333).renew_every_ms, LeaseTerms(2_000, 333).retry_ms) == (666, 100)
    assert (LeaseTerms(3, 1).renew_every_ms, LeaseTerms(3, 1).retry_ms) == (1, 10)


def test_a_keeper_takes_renews_loses_and_expires_a_lease() -> None:
    terms = LeaseTerms(3_000, 500)
    keeper = LeaseKeeper(terms, 0)
    assert (keeper.phase, keeper.asked, keeper.terms) == ("starting", False, terms)
    assert keeper.next(0) == "acquire"
    step = keeper.settle("not_run", 0, 1)  # the cluster not up yet: tried again
    assert (step.action, step.after_ms, keeper.phase) == ("retry", terms.retry_ms, "starting")
    assert keeper.settle("ask", 150, 151).action == "follow" and keeper.asked
    published = keeper.settle("counted", 150, 160)
    assert (published.action, published.after_ms) == ("publish", 1_000)
    assert keeper.phase == "held" and not keeper.asked
    assert repr(published) == "Step(action='publish', after_ms=1000)" and repr(keeper) == "<LeaseKeeper held>"
    assert keeper.next(1_160) == "renew"
    assert keeper.settle("counted", 1_160, 1_170).action == "renewed"
    assert keeper.settle("unacknowledged", 2_170, 2_180).action == "wait"
    assert keeper.next(5_169) == "renew"
    assert keeper.next(5_170) == "expired" and keeper.phase == "unleased"
    assert keeper.settle("unacknowledged", 5_170, 5_180).action == "pend" and keeper.phase == "pending"
    lost = keeper.settle("gone", 5_400, 5_410)
    assert (lost.action, lost.after_ms, keeper.phase) == ("lose", 0, "unleased")
    assert keeper.settle("fault", 5_410, 5_420).action == "reconnect"
    assert keeper.settle("moved", 5_420, 5_430).action == "reroute"


def test_steps_are_values() -> None:
    a, b = LeaseKeeper(LeaseTerms.DEFAULT, 0), LeaseKeeper(LeaseTerms.DEFAULT, 0)
    one, two = a.settle("counted", 0, 1), b.settle("counted", 0, 1)
    assert one == two and hash(one) == hash(two) and one != a.settle("counted", 1, 2)
    with pytest.raises(AttributeError):
        setattr(one, "after_ms", 0)


def test_the_first_acquire_gives_up_with_the_cores_refusal() -> None:
    terms = LeaseTerms(2_000, 333)
    keeper = LeaseKeeper(terms, 100)
    assert keeper.settle("not_run", 2_000, 2_099).action == "retry"  # within a TTL of the first try
    gave_up = keeper.settle("not_run", 2_099, 2_100)
    assert (gave_up.action, gave_up.after_ms, keeper.phase) == ("give_up", 0, "unleased")
    for outcome in ("not_run", "moved", "leased"):
        refusal = LeaseKeeper.refusal(outcome)
        assert isinstance(refusal, emq_id.EmqIdError) and refusal.gate == "node", outcome
    assert "for a whole TTL" in str(LeaseKeeper.refusal("not_run"))
    assert str(LeaseKeeper.refusal("leased")) == str(emq_id.parse_acquire_error("EMQLEASE every node is leased"))
    for theirs in ("fault", "unacknowledged", "counted", "gone", "ask"):
        assert LeaseKeeper.refusal(theirs) is None, theirs
    assert LeaseKeeper(terms, 0).settle("leased", 0, 1).action == "give_up"


def test_a_release_goes_through_the_keeper() -> None:
    terms = LeaseTerms(3_000, 500)
    keeper = LeaseKeeper(terms, 0)
    keeper.settle("counted", 0, 10)
    keeper.release()
    assert keeper.phase == "releasing" and repr(keeper) == "<LeaseKeeper releasing>"
    assert keeper.next(10) == "release" and keeper.next(100_000) == "release", "never expired: handed back"
    assert keeper.settle("ask", 20, 21).action == "follow" and keeper.asked
    rerouted, retried = keeper.settle("moved", 20, 22), keeper.settle("not_run", 30, 31)
    assert (rerouted.action, rerouted.after_ms) == ("reroute", 0), "at once, to where the reserve went"
    assert (retried.action, retried.after_ms) == ("retry", terms.retry_ms)
    gave_up = keeper.settle("not_run", 40, 41)
    assert (gave_up.action, keeper.phase) == ("give_up", "unleased"), "three tries at most"
    for ran in ("counted", "unacknowledged", "gone"):
        keeper.release()
        released = keeper.settle(ran, 50, 51)
        assert (released.action, released.after_ms, keeper.phase) == ("released", 0, "unleased"), ran
    for fault in ("fault", "leased"):
        keeper.release()
        assert keeper.settle(fault, 60, 61).action == "give_up", fault
    keeper.release()
    keeper.settle("ask", 70, 71)
    assert keeper.settle("ask", 70, 72).action == "give_up", "an ASK after ASKING"


def test_a_write_that_ran_is_counted_unacknowledged_or_gone() -> None:
    assert LeaseKeeper.of_write(True, True) == "counted"
    assert LeaseKeeper.of_write(True, False) == "unacknowledged"
    assert LeaseKeeper.of_write(False, True) == LeaseKeeper.of_write(False, False) == "gone"


def test_bad_terms_clocks_and_outcomes_are_refused() -> None:
    with pytest.raises(emq_id.EmqIdError) as bad_terms:
        LeaseKeeper(LeaseTerms(2, 1), 0)  # the terms' own gate, before a keeper
    assert bad_terms.value.gate == "range"
    with pytest.raises(TypeError):
        LeaseKeeper((3_000, 500), 0)  # type: ignore[arg-type]
    keeper = LeaseKeeper(LeaseTerms.DEFAULT, 0)
    for clock in (-1, 2**64):
        with pytest.raises(emq_id.EmqIdError) as outside:
            keeper.next(clock)
        assert outside.value.gate == "range"
    with pytest.raises(TypeError):
        keeper.next(1.5)  # type: ignore[arg-type]
    with pytest.raises(emq_id.EmqIdError) as unknown:
        keeper.settle("held", 0, 0)  # type: ignore[arg-type]
    assert unknown.value.gate == "range" and "not_run" in str(unknown.value)
    with pytest.raises(emq_id.EmqIdError):
        LeaseKeeper.refusal("NotRun")  # type: ignore[arg-type]
    assert keeper.phase == "starting", "a refused call changes nothing"


def test_the_stubs_names_are_the_cores() -> None:
    """The stub's ``Literal`` aliases of the keeper's names (which stubtest cannot hold to the
    package) against the core's lists, in their order."""
    ext: Any = importlib.import_module("emq_id._emq_id")
    stub = ast.parse(Path(emq_id.__file__).with_suffix(".pyi").read_text(encoding="utf-8"))
    aliases: Dict[str, Tuple[object, ...]] = {}
    for node in stub.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            target, of = node.targets[0], node.value.slice
            if isinstance(target, ast.Name) and isinstance(of, ast.Tuple):
                aliases[target.id] = tuple(c.value for c in of.elts if isinstance(c, ast.Constant))
    assert set(ext._KEEPER_NAMES) == {"_Outcome", "_Action", "_Phase", "_Next"}
    for alias, names in ext._KEEPER_NAMES.items():
        assert aliases[alias] == names, alias
    assert names[-1] == "release" and ext._KEEPER_NAMES["_Action"][-1] == "released"
