"""Minting: one Minter shared by threads, batches, and the process-wide
minter's node (EMQ_NODE, a drawn node and its warning, threads racing to a
first mint, a node another process holds, a forked child), each rule in a
process of its own."""

from __future__ import annotations

import bisect
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import List, Tuple

import pytest
from conftest import RunPython

import emq_id


Span = Tuple[int, int, int]  # a batch's first id, last id, and length


def race(
    minter: emq_id.Minter, threads: int, rounds: int, calls: int, batch: int
) -> Tuple[List[List[int]], List[Span]]:
    """Threads let go at once, each `rounds` times: `calls` next() calls, then
    one next_many(batch). Each thread's ids in order, and every batch's span."""
    minted: List[List[int]] = [[] for _ in range(threads)]
    spans: List[Span] = []
    start = threading.Barrier(threads)

    def work(out: List[int]) -> None:
        start.wait()
        next_id, next_many = minter.next, minter.next_many
        for _ in range(rounds):
            for _ in range(calls):
                out.append(next_id())
            ids = next_many(batch)
            spans.append((ids[0], ids[-1], len(ids)))
            out.extend(ids)

    workers = [threading.Thread(target=work, args=(minted[i],)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return minted, spans


def within(ordered: List[int], first: int, last: int) -> int:
    """How many of the sorted ids lie in first..=last."""
    return bisect.bisect_right(ordered, last) - bisect.bisect_left(ordered, first)


def test_eight_threads_race_next_and_gil_free_batches_on_one_minter() -> None:
    """8 threads x 100,000 ids through one Minter. next() holds the GIL, so
    the threads' next() calls take turns; next_many mints with the GIL
    released, so a thread's batch runs alongside the other threads' calls on
    the same minter state. Each race is checked (0 duplicates, each thread's
    ids increasing), and raced again until some batch has another thread's id
    inside its span: two threads minted at the same time."""
    for attempt in range(1, 51):
        minted, spans = race(emq_id.Minter(42), threads=8, rounds=500, calls=100, batch=100)
        everything = sorted(s for ids in minted for s in ids)
        assert len(everything) == 8 * 100_000
        assert len(set(everything)) == len(everything), "0 duplicates"
        for ids in minted:
            assert all(a < b for a, b in zip(ids, ids[1:])), "each thread's ids increase"
        assert {emq_id.node(s) for s in everything} == {42}
        shared = sum(within(everything, first, last) > n for first, last, n in spans)
        if shared:
            break
    assert shared, "in 50 races no thread minted inside another's batch"
    print(
        f"\n8 threads x 100,000 ids through one Minter (next, and next_many with the GIL released): "
        f"{len(everything)} ids, 0 duplicates, {shared} batches with another thread's ids inside (race {attempt})"
    )


def test_batches_in_threads_with_the_gil_released() -> None:
    minter = emq_id.Minter(3)
    batches: List[List[int]] = []

    def work() -> None:
        for _ in range(20):
            batches.append(minter.next_many(5_000))

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    everything = [s for b in batches for s in b]
    assert len(everything) == 400_000 and len(set(everything)) == len(everything)
    assert all(all(a < b for a, b in zip(batch, batch[1:])) for batch in batches)


def test_a_minter_has_its_node_and_mints_in_order() -> None:
    minter = emq_id.Minter(7)
    assert minter.node == 7 and repr(minter) == "Minter(node=7)"
    a, b = minter.next(), minter.next()
    assert a < b and emq_id.node(a) == 7
    ids = minter.next_many(3)
    assert type(ids) is list and len(ids) == 3 and b < ids[0] < ids[1] < ids[2]
    at = emq_id.Minter(1).next_at(1769526697641)
    assert emq_id.unix_ms(at) == 1769526697641
    with pytest.raises(MemoryError):
        minter.next_many(2**62)


def test_emq_node_is_the_processs_node(run_python: RunPython) -> None:
    done = run_python(
        """
        import warnings
        warnings.simplefilter("error")
        import emq_id
        assert emq_id.process_node() == (5, "env"), emq_id.process_node()
        assert emq_id.decode(emq_id.mint("JOB")).node == 5
        assert emq_id.set_node(5) == (5, "env"), "asking for the node it holds"
        try:
            emq_id.set_node(6)
        except emq_id.EmqIdError as e:
            assert e.gate == "node" and "keeps its node" in str(e), e
        else:
            raise AssertionError("a process keeps its node")
        print("ok")
        """,
        {"EMQ_NODE": "5"},
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_without_emq_node_a_drawn_node_and_one_warning(run_python: RunPython) -> None:
    done = run_python(
        """
        import warnings
        import emq_id
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            first = emq_id.mint("JOB")
            second = emq_id.mint("JOB")
            node, source = emq_id.process_node()
        assert source == "fallback" and emq_id.decode(first).node == node
        assert [w.category for w in seen] == [emq_id.NodeWarning], [str(w.message) for w in seen]
        assert issubclass(emq_id.NodeWarning, RuntimeWarning)
        message = str(seen[0].message)
        assert "EMQ_NODE is not set" in message and f"node {node}" in message and "collide" in message, message
        assert seen[0].filename == "<string>", "the warning points at the caller's line"
        print("ok")
        """
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_warning_can_be_made_an_error(run_python: RunPython) -> None:
    done = run_python(
        """
        import warnings
        import emq_id
        warnings.filterwarnings("error", category=emq_id.NodeWarning)
        for call in (emq_id.process_node, lambda: emq_id.mint("JOB"), lambda: emq_id.mint("JOB")):
            try:
                call()
            except emq_id.NodeWarning:
                print("refused")
        """
    )
    assert done.stdout.split() == ["refused"] * 3, "never minted with a drawn node: " + done.stderr


# Eight threads whose first call is emq_id.mint, let go at once; each says
# "refused" (NodeWarning raised) or "minted-after-N" (N: the warnings shown when
# its mint returned). `Slow` is a filter's message pattern matched in Python,
# sleeping with the GIL released, as any Python code in the warning machinery
# may let another thread run: the first thread's warning stays undecided while
# the others' first mints arrive.
FIRST_MINTS = textwrap.dedent(
    """
    import threading, time, warnings
    import emq_id

    class Slow:
        def match(self, text):
            time.sleep(0.05)
            return True

    def first_mints(shown):
        start = threading.Barrier(8)
        outcomes = []

        def first_mint():
            start.wait()
            try:
                emq_id.mint("JOB")
                outcomes.append(f"minted-after-{len(shown)}")
            except emq_id.NodeWarning:
                outcomes.append("refused")

        workers = [threading.Thread(target=first_mint) for _ in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return outcomes
    """
)


@pytest.mark.parametrize(
    "error",
    [
        'warnings.filterwarnings("error", category=emq_id.NodeWarning)',
        'warnings.filters.insert(0, ("error", Slow(), emq_id.NodeWarning, None, 0))',
    ],
    ids=["filterwarnings", "slow-filter"],
)
def test_threads_racing_to_a_first_mint_are_all_refused_when_the_warning_is_an_error(
    run_python: RunPython, error: str
) -> None:
    done = run_python(FIRST_MINTS + f"{error}\nprint(*first_mints([]))\n")
    assert done.stdout.split() == ["refused"] * 8, "no thread mints with a drawn node: " + done.stdout + done.stderr


def test_threads_racing_to_a_first_mint_warn_once_and_mint_after_the_warning(run_python: RunPython) -> None:
    done = run_python(
        FIRST_MINTS
        + textwrap.dedent(
            """
            with warnings.catch_warnings(record=True) as shown:
                warnings.simplefilter("always")
                warnings.filters.insert(0, ("always", Slow(), emq_id.NodeWarning, None, 0))
                outcomes = first_mints(shown)
            print(sum(w.category is emq_id.NodeWarning for w in shown), *outcomes)
            """
        )
    )
    assert done.stdout.split() == ["1"] + ["minted-after-1"] * 8, done.stdout + done.stderr


def test_a_mint_inside_the_warnings_handler_goes_on(run_python: RunPython) -> None:
    done = run_python(
        """
        import warnings
        import emq_id
        inside = []
        warnings.showwarning = lambda *warning, **where: inside.append(emq_id.mint("LOG"))
        first = emq_id.mint("JOB")
        assert len(inside) == 1 and emq_id.decode(inside[0]).node == emq_id.decode(first).node, inside
        print("ok")
        """
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_set_node_gives_the_node_in_place_of_emq_node(run_python: RunPython) -> None:
    done = run_python(
        """
        import warnings
        warnings.simplefilter("error")
        import emq_id
        assert emq_id.set_node(9) == (9, "set")
        assert emq_id.decode(emq_id.mint(b"EVT")).node == 9
        print("ok")
        """
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_an_invalid_emq_node_is_range_on_every_mint(run_python: RunPython) -> None:
    done = run_python(
        """
        import emq_id
        for call in (lambda: emq_id.mint("JOB"), emq_id.process_node, lambda: emq_id.mint("JOB")):
            try:
                call()
            except emq_id.EmqIdError as e:
                print(e.gate)
        """,
        {"EMQ_NODE": "1024"},
    )
    assert done.stdout.split() == ["range", "range", "range"], done.stderr


def test_a_node_held_by_another_live_process_is_refused_naming_it(run_python: RunPython, claims: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import emq_id, sys; emq_id.mint('JOB'); print('held', flush=True); sys.stdin.read()"],
        env={**os.environ, "EMQ_NODE": "11", "EMQ_NODE_DIR": str(claims)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        done = run_python(
            """
            import emq_id
            try:
                emq_id.mint("JOB")
            except emq_id.EmqIdError as e:
                print(e.gate)
                print(e)
            """,
            {"EMQ_NODE": "11"},
        )
        gate, message = done.stdout.splitlines()[:2]
        assert gate == "node", done.stderr
        assert f"node 11 (held by pid {holder.pid})" in message, message
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    again = run_python("import emq_id; print(emq_id.decode(emq_id.mint('JOB')).node)", {"EMQ_NODE": "11"})
    assert again.stdout.strip() == "11", "free again once its holder is gone: " + again.stderr


def test_a_forked_child_does_not_mint_its_parents_ids(run_python: RunPython) -> None:
    done = run_python(
        """
        import os
        import emq_id
        parent = emq_id.mint("JOB")
        fd = emq_id._emq_id._claim_fd()
        assert fd >= 0
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                assert os.readlink(f"/proc/self/fd/{fd}") == "/dev/null", "the child holds no share of the lock"
                try:
                    emq_id.mint("JOB")
                    code = 3  # minted on the parent's node
                except emq_id.EmqIdError as e:
                    assert e.gate == "node", e
                assert emq_id.set_node(13) == (13, "set")
                child = emq_id.decode(emq_id.mint("JOB"))
                assert child.node == 13
            except BaseException as e:
                print("child:", repr(e), flush=True)
                code = 2
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
        assert emq_id.decode(emq_id.mint("JOB")).node == 12, "the parent keeps its node"
        print("ok", parent)
        """,
        {"EMQ_NODE": "12"},
    )
    assert done.returncode == 0 and done.stdout.startswith("ok"), done.stdout + done.stderr


def test_a_forked_child_of_a_drawn_node_draws_its_own_and_warns_again(run_python: RunPython) -> None:
    done = run_python(
        """
        import os, warnings
        import emq_id
        warnings.simplefilter("ignore")
        parent_node = emq_id.decode(emq_id.mint("JOB")).node
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                node = emq_id.decode(emq_id.mint("JOB")).node
            os.write(write, f"{node} {len(seen)}".encode())
            os._exit(0)
        os.waitpid(pid, 0)
        child_node, warned = map(int, os.read(read, 64).split())
        assert child_node != parent_node and warned == 1, (parent_node, child_node, warned)
        print("ok")
        """
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
