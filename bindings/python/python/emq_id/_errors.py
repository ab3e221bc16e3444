"""The package's exception and warning classes.

The extension raises ``EmqIdError`` through its one error helper
(``src/error.rs``) and warns with ``NodeWarning``; both look the classes up
here, so they are plain Python classes that pickle with their attributes
(a refusal raised in a ``multiprocessing`` worker keeps its ``.gate``).
"""

from __future__ import annotations

from typing import Literal

#: The contract's gate names (SPEC.md §9): the ``gate`` of every EmqIdError.
#: A test holds this to the core's own list, ``emq_id.GATES``.
Gate = Literal["length", "namespace", "charset", "range", "queue", "kind", "node"]


class EmqIdError(ValueError):
    """A refusal of the contract: ``gate`` names the rule the input broke.

    ``str(err)`` is ``"<gate>: <what was wrong>"``, as every runtime says it.
    """

    gate: Gate
    #: For ``parse_wait``'s ``node`` refusal: the replicas that acknowledged
    #: the lease write, and the replicas wanted; ``None`` for any other refusal.
    acknowledged: int | None = None
    replicas: int | None = None

    def __init__(self, gate: Gate, message: str) -> None:
        super().__init__(gate, message)
        self.gate = gate

    def __str__(self) -> str:
        return f"{self.args[0]}: {self.args[1]}"


class NodeWarning(RuntimeWarning):
    """The process-wide minter drew its node because ``EMQ_NODE`` is unset:
    unique on this host, but another host can draw the same node, and then ids
    collide. With ``warnings.filterwarnings("error", category=emq_id.NodeWarning)``
    every mint on a drawn node raises it: the process never mints with one.
    """


class SelfCheckError(RuntimeError):
    """This build answers a line of the contract's self-check vectors
    differently (``line``: the line, ``answer``: what the API said). The
    package refuses to import when that happens.
    """

    line: str
    answer: object

    def __init__(self, line: str, answer: object) -> None:
        super().__init__(line, answer)
        self.line = line
        self.answer = answer

    def __str__(self) -> str:
        return f'self_check: at "{self.line}": got {self.answer!r}'
