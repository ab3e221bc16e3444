"""EchoMQ branded ids and Valkey Cluster key placement, with exactly the
answers of the emq-id Rust core (contract ``branded-snowflake/1.0.0``).

A branded id is 14 characters: a three-letter namespace and 11 base62 digits
of a 63-bit snowflake (time, node, sequence). Keys of a queue are braced with
the queue's name, so every key of a queue lives in one cluster slot.

>>> import emq_id
>>> emq_id.encode("USR", 274557032793636864)
'USR0KHTOWnGLuC'
>>> emq_id.decode("USR0KHTOWnGLuC").unix_ms
1769526697641
>>> emq_id.slot("emq:{orders}:pending") == emq_id.slot("orders")
True

Bytes in are ``str`` (its UTF-8) or ``bytes``; 64-bit values are ``int``. A
value the contract refuses raises ``EmqIdError`` (a ``ValueError``) whose
``gate`` names the rule; a value of the wrong type raises ``TypeError``.
The package runs the contract's self-check vectors through this API when it
is imported, and refuses to import (``ImportError``) when they disagree.
The types are in ``__init__.pyi``.
"""

from __future__ import annotations

import os
from typing import Literal

from . import _emq_id
# Every public name of the compiled module: its registrations (src/lib.rs) are
# the one list, and the stub types each name (stubtest holds the two together).
from ._emq_id import *  # noqa: F403
from ._emq_id import __version__
from ._errors import EmqIdError, Gate, NodeWarning, SelfCheckError

#: Where the process-wide minter's node came from: ``EMQ_NODE``, ``set_node``, or drawn.
NodeSource = Literal["env", "set", "fallback"]

__all__ = [name for name in vars(_emq_id) if not name.startswith("_")]
__all__ += ["EmqIdError", "Gate", "NodeSource", "NodeWarning", "SelfCheckError", "self_check"]

# Imported after the names above: it checks the package through them.
from ._self_check import self_check  # noqa: E402


def _after_fork_in_child() -> None:
    """In the child of ``os.fork()``: the child inherited the parent's node and
    mint state, so the process minter refuses (gate ``node``) until the child
    takes a node of its own; and the child's copy of the claim file's
    descriptor is pointed at ``/dev/null``, so a child that never mints holds
    no share of its parent's lock after the parent dies."""
    _emq_id._forked()
    fd = _emq_id._claim_fd()
    if fd >= 0:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, fd, inheritable=False)
        finally:
            os.close(null)


try:
    self_check()
except SelfCheckError as mismatch:
    raise ImportError(
        f"emq_id refuses to import: this build disagrees with the contract ({mismatch}); "
        "reinstall the package, and report it if it persists"
    ) from None

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
