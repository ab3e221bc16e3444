"""The contract's self-check (SPEC.md §8) through this package's public API.

The core hands out its self-check vectors as text, one check per line
(``emq_id.SELF_CHECK_VECTORS``). ``self_check`` answers every line with the
package's public functions, so their conversions of ``str``, ``bytes``,
``int`` and errors are checked too, not only the extension, and raises
``SelfCheckError`` naming the first line answered differently. The package
runs it when it is imported and refuses to import on a mismatch.
"""

from __future__ import annotations

from typing import Callable, List, Tuple

from . import (
    SELF_CHECK_VECTORS,
    EmqIdError,
    Minter,
    compare,
    decode,
    encode,
    hash32,
    hashtag,
    is_valid,
    key,
    min_for,
    node,
    parse,
    seq,
    slot,
    unix_ms,
    xadd_id,
)
from ._errors import SelfCheckError

#: What a check expects and what the API answered, compared with ``==``.
Check = Tuple[object, object]


def self_check(vectors: str | None = None) -> None:
    """Runs every line of ``vectors`` (by default the core's
    ``SELF_CHECK_VECTORS``) through this package's API.

    Raises ``SelfCheckError`` for the first line this build answers
    differently: ``line`` is the line, ``answer`` what the API said (an
    exception it raised, or ``"unknown line"`` for a form this package does
    not know, such as a line of a newer core). Text with no line is refused
    too: it checks nothing.
    """
    text = SELF_CHECK_VECTORS if vectors is None else vectors
    lines = [line for line in text.split("\n") if line]
    if not lines:
        raise SelfCheckError("", "no lines to check")
    for line in lines:
        try:
            expected, answer = _check(line.split(" "))
        except Exception as raised:  # noqa: BLE001 - any exception is an answer to report
            expected, answer = "an answer", raised
        if answer != expected:
            raise SelfCheckError(line, answer)


def _refusal(call: Callable[[], object]) -> object:
    """The gate of the EmqIdError ``call`` raises, else what it returned."""
    try:
        return call()
    except EmqIdError as refused:
        return ("refused", refused.gate)


def _key(queue: str, kind: str, id: str) -> object:
    if id == "-":
        return _refusal(lambda: key(queue, kind))
    return _refusal(lambda: key(queue, kind, id))


def _check(words: List[str]) -> Check:
    """One line of the vectors (the forms of the core's check.rs) as (expected, answer)."""
    op, args = words[0], words[1:]
    if op == "decode" and len(args) == 7:
        id, ns, s, ms, n, q, h = args
        snowflake = int(s)
        d = decode(id)
        fields = (d.ns, d.snowflake, d.unix_ms, d.node, d.seq)
        expected: object = (
            (ns, snowflake, int(ms), int(n), int(q)),
            (int(ms), int(n), int(q), int(h)),
            (ns, snowflake),
            d,
            True,
            0,
        )
        answer: object = (
            fields,
            (unix_ms(snowflake), node(snowflake), seq(snowflake), hash32(snowflake)),
            parse(id),
            decode(id.encode()),
            is_valid(id),
            compare(id, id),
        )
        return expected, answer
    if op == "encode" and len(args) == 3:
        ns, s, id = args
        return (id, id), (encode(ns, int(s)), encode(ns.encode(), int(s)))
    if op == "reject" and len(args) == 2:
        text, gate = args
        refusal = ("refused", gate)
        return (refusal, refusal, False), (
            _refusal(lambda: decode(text)),
            _refusal(lambda: decode(text.encode())),
            is_valid(text),
        )
    if op == "encode_reject" and len(args) == 3:
        ns, s, gate = args
        return ("refused", gate), _refusal(lambda: encode(ns, int(s)))
    if op == "min_for" and len(args) == 2:
        ms, s = args
        return int(s), min_for(int(ms))
    if op == "mint" and len(args) == 5:
        n, t1, t2, s1, s2 = args
        minter = Minter(int(n))
        return (int(s1), int(s2)), (minter.next_at(int(t1)), minter.next_at(int(t2)))
    if op == "slot" and len(args) == 2:
        k, expected_slot = args
        return (int(expected_slot), int(expected_slot)), (slot(k), slot(k.encode()))
    if op == "hashtag" and len(args) == 2:
        k, tag = args
        return (tag, tag.encode()), (hashtag(k), hashtag(k.encode()))
    if op == "key" and len(args) == 4:
        queue, kind, id, built = args
        return built, _key(queue, kind, id)
    if op == "key_reject" and len(args) == 4:
        queue, kind, id, gate = args
        return ("refused", gate), _key(queue, kind, id)
    if op == "xadd_id" and len(args) == 2:
        id, entry = args
        return entry, xadd_id(id)
    return "a line this package knows", "unknown line"
