"""The contract's self-check through the public API: every line holds; a
corrupted copy is refused naming its first wrong line; and a copy of the
package whose extension answers one thing wrong refuses to import."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Callable, Dict, List

import pytest

import emq_id

TEXT = emq_id.SELF_CHECK_VECTORS


def line(op: str) -> str:
    return next(entry for entry in TEXT.split("\n") if entry.startswith(op + " "))


def corrupt(good: str, bad: str) -> str:
    assert good + "\n" in TEXT
    return TEXT.replace(good + "\n", bad + "\n")


def swap_last(entry: str, word: str) -> str:
    return " ".join(entry.split(" ")[:-1] + [word])


def test_every_line_of_the_cores_vectors_holds() -> None:
    lines = [entry for entry in TEXT.split("\n") if entry]
    assert len(lines) >= 10
    for entry in lines:
        emq_id.self_check(entry)
    emq_id.self_check()
    emq_id.self_check(TEXT)


def test_a_wrong_line_is_refused_with_the_line_and_the_answer() -> None:
    good = line("slot")
    key, slot = good.split(" ")[1:]
    bad = f"slot {key} {(int(slot) + 1) % 16384}"
    with pytest.raises(emq_id.SelfCheckError) as e:
        emq_id.self_check(corrupt(good, bad))
    assert e.value.line == bad
    assert e.value.answer == (emq_id.slot(key), emq_id.slot(key))
    assert str(e.value).startswith(f'self_check: at "{bad}": got ')
    assert isinstance(e.value, RuntimeError)


def test_each_kind_of_line_fails_when_it_is_wrong() -> None:
    gates = list(emq_id.GATES)
    wrong: Dict[str, Callable[[str], str]] = {
        "decode": lambda e: swap_last(e, str(int(e.split(" ")[-1]) + 1)),
        "encode": lambda e: swap_last(e, "USR0KHTOWnGLuD"),
        "reject": lambda e: swap_last(e, next(g for g in gates if g != e.split(" ")[-1])),
        "encode_reject": lambda e: swap_last(e, "charset"),
        "min_for": lambda e: swap_last(e, "1"),
        "mint": lambda e: swap_last(e, "1"),
        "hashtag": lambda e: swap_last(e, "nope"),
        "key": lambda e: swap_last(e, "emq:{x}:pending"),
        "key_reject": lambda e: swap_last(e, "kind" if e.endswith("queue") else "queue"),
        "xadd_id": lambda e: swap_last(e, "1-1"),
    }
    for op, make in wrong.items():
        good = line(op)
        bad = make(good)
        with pytest.raises(emq_id.SelfCheckError) as e:
            emq_id.self_check(corrupt(good, bad))
        assert e.value.line == bad, op


def test_an_unknown_line_an_unreadable_line_and_no_line_fail() -> None:
    first = TEXT.split("\n")[0]
    for text, answer in [
        (TEXT + "to_uuid USR0KHTOWnGLuC x\n", "unknown line"),
        ("decode USR0KHTOWnGLuC USR 1 2\n", "unknown line"),
        ("", "no lines to check"),
    ]:
        with pytest.raises(emq_id.SelfCheckError) as e:
            emq_id.self_check(text)
        assert e.value.answer == answer
    with pytest.raises(emq_id.SelfCheckError) as raised:
        emq_id.self_check("min_for x 1")
    assert isinstance(raised.value.answer, ValueError), "an exception is an answer"
    emq_id.self_check(first)


#: Stands in for the extension in a copy of the package: the real extension,
#: loaded from the installed package, with one answer made wrong (or none).
WRAPPER = """
import importlib.machinery, importlib.util
_loader = importlib.machinery.ExtensionFileLoader("emq_id._emq_id", {so!r})
_spec = importlib.util.spec_from_loader("emq_id._emq_id", _loader)
_real = importlib.util.module_from_spec(_spec)
_loader.exec_module(_real)
globals().update({{k: v for k, v in vars(_real).items() if not k.startswith("__")}})
__version__ = _real.__version__
{wrong}
"""


def tampered(tmp_path: Path, wrong: str) -> Path:
    """A copy of the installed package whose extension is the real one with `wrong` applied."""
    installed = Path(emq_id.__file__).parent
    (extension,) = [p for p in installed.iterdir() if p.name.startswith("_emq_id.") and p.suffix == ".so"]
    root = tmp_path / "site"
    shutil.copytree(installed, root / "emq_id", ignore=shutil.ignore_patterns("_emq_id.*", "__pycache__"))
    wrapper = WRAPPER.format(so=str(extension), wrong=textwrap.dedent(wrong))
    (root / "emq_id" / "_emq_id.py").write_text(wrapper)
    return root


def import_from(root: Path) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import emq_id; print(emq_id.__file__)"
    return subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)


def test_the_harness_imports_a_faithful_copy(tmp_path: Path) -> None:
    done = import_from(tampered(tmp_path, ""))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "site" / "emq_id" / "__init__.py")


@pytest.mark.parametrize(
    ("wrong", "named"),
    [
        ("slot = lambda key: (_real.slot(key) + 1) % 16384", "slot 123456789 12739"),
        ("hash32 = lambda s: _real.hash32(s) ^ 1", "decode USR0KHTOWnGLuC"),
        ("encode = lambda ns, s: _real.encode(ns, s).lower()", "encode USR 274557032793636864"),
        ("def decode(text):\n    raise ValueError('miscompiled')", "decode USR0KHTOWnGLuC"),
    ],
)
def test_a_wrong_extension_refuses_to_import_saying_why(tmp_path: Path, wrong: str, named: str) -> None:
    done = import_from(tampered(tmp_path, wrong))
    assert done.returncode != 0
    last: List[str] = done.stderr.strip().splitlines()[-1:]
    assert last and last[0].startswith("ImportError: emq_id refuses to import: this build disagrees"), done.stderr
    assert f'at "{named}' in last[0], last[0]
