"""The Python adapter of `cargo xtask conformance` (conformance/PROTOCOL.md).

JSON lines in, one answer per request out, each through the public `emq_id`
API of the package installed in this interpreter (the runner's fresh virtual
environment). It translates; the runner judges. Fields a request carries that
it does not read (a case's `source`) are ignored.

Run: <venv>/bin/python conformance/python/adapter.py < requests > answers
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Dict, Union

import emq_id

Request = Dict[str, Any]
Answer = Dict[str, Any]


def data(r: Request, name: str) -> Union[str, bytes]:
    """A byte input: `<name>_hex` as bytes (the bytes API), else `<name>` as str (the str API)."""
    if f"{name}_hex" in r:
        return bytes.fromhex(r[f"{name}_hex"])
    value: str = r[name]
    return value


def refused(error: emq_id.EmqIdError) -> Answer:
    return {"error": {"gate": error.gate, "message": str(error)}}


def ok(call: Callable[[], Any]) -> Answer:
    """`{"ok": call()}`, or the contract's refusal the call raised."""
    try:
        return {"ok": call()}
    except emq_id.EmqIdError as error:
        return refused(error)


def decoded(d: emq_id.Decoded) -> Any:
    return {
        "ns": d.ns,
        "snowflake": str(d.snowflake),
        "unix_ms": str(d.unix_ms),
        "node": d.node,
        "seq": d.seq,
        "hash32": emq_id.hash32(d.snowflake),
    }


def mint(r: Request) -> Any:
    minter = emq_id.Minter(r["node"])
    steps = []
    for now in r["now_ms"]:
        try:
            steps.append({"snowflake": str(minter.next_at(int(now)))})
        except emq_id.EmqIdError as error:
            steps.append({"gate": error.gate})
    return {"steps": steps}


def placed(key: Union[str, bytes]) -> Any:
    tag = emq_id.hashtag(key)
    return {"slot": emq_id.slot(key), "hashtag_hex": (tag.encode() if isinstance(tag, str) else tag).hex()}


def parsed(p: emq_id.ParsedKey) -> Any:
    out = {"queue": p.queue, "family": p.family}
    if p.param is not None:
        out["param"] = p.param
    return out


def acquired(a: emq_id.Acquired) -> Any:
    return {"node": a.node, "previous_mark": a.previous_mark}


def renewal(reply: int) -> Any:
    emq_id.parse_renewal(reply)
    return {}


def lease_wait(r: Request) -> Any:
    terms = emq_id.LeaseTerms(r["ttl_ms"], r["margin_ms"])
    emq_id.parse_wait(r["reply"], r["replicas"])
    return {"wait_ms": terms.wait_ms}


def lease_start(r: Request) -> Any:
    previous = -1 if r["previous_mark"] is None else r["previous_mark"]
    acquired = emq_id.parse_acquire(r["node"], previous)
    terms = emq_id.LeaseTerms(r["ttl_ms"], r["margin_ms"])
    now = r["now_ms"]
    minter = emq_id.LeasedMinter(acquired, now, 0, terms)
    snowflake = minter.next_at(now, 0)
    return {"snowflake": str(snowflake), "fence_ms": minter.fence_ms, "next_mark": minter.next_mark(now)}


def lease_reply(r: Request) -> Any:
    to = emq_id.redirect(r["error"])
    where = None if to is None else {"ask": to.ask, "slot": to.slot, "host": to.host, "port": to.port}
    return {"outcome": emq_id.read_lease_error(r["error"], r["asked"]), "redirect": where}


def lease_keeper(r: Request) -> Any:
    """A keeper run through the request's steps: the write due at ``at``, the release begun, or a
    write's outcome settled."""
    terms = emq_id.LeaseTerms(r["ttl_ms"], r["margin_ms"])
    keeper = emq_id.LeaseKeeper(terms, r["since"])
    steps: list[Any] = []
    for step in r["steps"]:
        if "release" in step:
            keeper.release()
            steps.append({"phase": keeper.phase})
            continue
        if "outcome" not in step:
            steps.append({"next": keeper.next(step["at"]), "phase": keeper.phase})
            continue
        done = keeper.settle(step["outcome"], step["sent"], step["at"])
        answer: Answer = {"action": done.action, "after_ms": done.after_ms, "phase": keeper.phase}
        if done.action == "give_up":
            refusal = emq_id.LeaseKeeper.refusal(step["outcome"])
            answer["refusal"] = None if refusal is None else refusal.gate
        steps.append(answer)
    return {"renew_every_ms": terms.renew_every_ms, "retry_ms": terms.retry_ms, "steps": steps}


def translate(r: Request) -> Answer:
    op = r.get("op")
    if op == "decode":
        return ok(lambda: decoded(emq_id.decode(data(r, "text"))))
    if op == "encode":
        return ok(lambda: {"text": emq_id.encode(r["ns"], int(r["snowflake"]))})
    if op == "min_for":
        return ok(lambda: {"snowflake": str(emq_id.min_for(int(r["unix_ms"])))})
    if op == "mint":
        return ok(lambda: mint(r))
    if op == "slot":
        return ok(lambda: placed(data(r, "key")))
    if op == "key":
        return ok(lambda: {"key": emq_id.key(r["queue"], r["kind"], r.get("id"))})
    if op == "parse_key":
        return ok(lambda: parsed(emq_id.parse_key(r["key"])))
    if op == "reserve":
        return ok(lambda: {"key": emq_id.reserve(r["name"])})
    if op == "prefix_bytes":
        return ok(lambda: {"bytes": emq_id.prefix_bytes(r["queue"], r["type"])})
    if op == "queue_prefix":
        return ok(lambda: {"key": emq_id.queue_prefix(r["queue"])})
    if op == "job_prefix":
        return ok(lambda: {"key": emq_id.job_prefix(r["queue"])})
    if op == "xadd_id":
        return ok(lambda: {"entry": emq_id.xadd_id(r["id"])})
    if op == "from_xadd_id":
        return ok(lambda: {"id": emq_id.from_xadd_id(r["entry"], r["ns"])})
    if op == "lease_script":
        script = emq_id.LEASE_SCRIPTS.get(r["name"])
        if script is None:
            return {"unsupported": f"no lease script named {r['name']!r}"}
        return {"ok": {"text": script.text}}
    if op == "lease_keys":
        return {"ok": {"lease_key": emq_id.LEASE_KEY}}
    if op == "parse_acquire":
        return ok(lambda: acquired(emq_id.parse_acquire(r["node"], r["previous"])))
    if op == "parse_acquire_error":
        refusal = emq_id.parse_acquire_error(r["message"])
        return {"ok": {"refusal": False}} if refusal is None else refused(refusal)
    if op == "parse_renewal":
        return ok(lambda: renewal(r["reply"]))
    if op == "lease_start":
        return ok(lambda: lease_start(r))
    if op == "lease_wait":
        return ok(lambda: lease_wait(r))
    if op == "lease_reply":
        return ok(lambda: lease_reply(r))
    if op == "lease_keeper":
        return ok(lambda: lease_keeper(r))
    return {"unsupported": f"unknown op {op!r}"}


def main() -> None:
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        answer = translate(request)
        answer["req"] = request["req"]
        out.write(json.dumps(answer))
        out.write("\n")
    out.flush()


if __name__ == "__main__":
    main()
