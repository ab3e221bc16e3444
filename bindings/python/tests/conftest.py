"""Shared fixtures: a Python process of its own for what one process cannot
show (EMQ_NODE is read once per process, a node is held by a process, an
import that must fail), with its own claim directory."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, Optional, Protocol

import pytest


class RunPython(Protocol):
    """Runs Python code in a new interpreter (with extra environment): the finished process."""

    def __call__(self, code: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess[str]: ...


@pytest.fixture
def claims(tmp_path: Path) -> Path:
    """A claim directory (EMQ_NODE_DIR) for this test alone."""
    path = tmp_path / "claims"
    path.mkdir()
    return path


@pytest.fixture
def run_python(claims: Path) -> RunPython:
    def run(code: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
        base = {k: v for k, v in os.environ.items() if k != "EMQ_NODE"}
        base["EMQ_NODE_DIR"] = str(claims)
        base.update(env or {})
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            env=base,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run
