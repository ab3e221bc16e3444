//! The `rust` target: the core's public API, in process.

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::conformance::adapter::{bytes, decimal, Adapter};
use crate::vectors::hex;

/// Nothing to build: the core is linked into xtask.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(RustAdapter))
}

pub struct RustAdapter;

impl Adapter for RustAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        Ok(requests
            .iter()
            .map(|r| {
                let mut a = answer(r);
                a["req"] = r["req"].clone();
                a
            })
            .collect())
    }
}

fn gate(e: emq_id::Error) -> Value {
    json!({"error": {"gate": e.code(), "message": e.to_string()}})
}

fn answer(r: &Value) -> Value {
    match translate(r) {
        Ok(Ok(v)) => json!({ "ok": v }),
        Ok(Err(e)) => gate(e),
        Err(protocol) => json!({ "unsupported": format!("{protocol:#}") }),
    }
}

/// A JSON integer field of the request.
fn number(r: &Value, name: &str) -> Result<i64> {
    r.get(name).and_then(Value::as_i64).with_context(|| format!("{name} is not an integer"))
}

/// The core's answer, or (outside) why the request could not be translated.
type Answer = Result<emq_id::Result<Value>>;

fn translate(r: &Value) -> Answer {
    let op = r.get("op").and_then(Value::as_str).unwrap_or("");
    Ok(match op {
        "decode" => {
            let text = bytes(r, "text")?;
            emq_id::decode(&text).map(|(ns, s)| {
                json!({
                    "ns": String::from_utf8_lossy(&ns),
                    "snowflake": s.to_string(),
                    "unix_ms": emq_id::unix_ms(s).to_string(),
                    "node": emq_id::node(s),
                    "seq": emq_id::seq(s),
                    "hash32": emq_id::hash32(s),
                })
            })
        }
        "encode" => {
            let ns = bytes(r, "ns")?;
            emq_id::encode(&ns, decimal(r, "snowflake")?).map(|t| json!({ "text": String::from_utf8_lossy(&t) }))
        }
        "min_for" => emq_id::min_for(decimal(r, "unix_ms")?).map(|s| json!({ "snowflake": s.to_string() })),
        "mint" => {
            let node = r.get("node").and_then(Value::as_u64).context("node is not a number")?;
            let clock = r.get("now_ms").and_then(Value::as_array).context("now_ms is not an array")?;
            let minter = match emq_id::Minter::new(u16::try_from(node).unwrap_or(u16::MAX)) {
                Ok(m) => m,
                Err(e) => return Ok(Err(e)),
            };
            let mut steps = Vec::with_capacity(clock.len());
            for now in clock {
                let now: i64 = now.as_str().and_then(|s| s.parse().ok()).context("now_ms holds a non-decimal")?;
                steps.push(match minter.next_at(now) {
                    Ok(s) => json!({ "snowflake": s.to_string() }),
                    Err(e) => json!({ "gate": e.code() }),
                });
            }
            Ok(json!({ "steps": steps }))
        }
        "slot" => {
            let key = bytes(r, "key")?;
            Ok(json!({ "slot": emq_id::slot(&key), "hashtag_hex": hex::encode(emq_id::hashtag(&key)) }))
        }
        "key" => {
            let queue = bytes(r, "queue")?;
            let kind = bytes(r, "kind")?;
            let id = r.get("id").map(|_| bytes(r, "id")).transpose()?;
            emq_id::key(&queue, &kind, id.as_deref()).map(|k| json!({ "key": k.as_str() }))
        }
        "parse_key" => {
            let key = bytes(r, "key")?;
            emq_id::parse_key(&key).map(|p| {
                let mut v =
                    json!({ "queue": String::from_utf8_lossy(p.queue), "family": p.family.pattern().to_string() });
                if let Some(param) = p.param {
                    v["param"] = json!(String::from_utf8_lossy(param));
                }
                v
            })
        }
        "reserve" => emq_id::reserve(&bytes(r, "name")?).map(|k| json!({ "key": k.as_str() })),
        "prefix_bytes" => emq_id::prefix_bytes(&bytes(r, "queue")?, &bytes(r, "type")?).map(|n| json!({ "bytes": n })),
        "queue_prefix" => emq_id::queue_prefix(&bytes(r, "queue")?).map(|k| json!({ "key": k.as_str() })),
        "job_prefix" => emq_id::job_prefix(&bytes(r, "queue")?).map(|k| json!({ "key": k.as_str() })),
        "xadd_id" => emq_id::xadd_id(&bytes(r, "id")?).map(|e| json!({ "entry": e.as_str() })),
        "from_xadd_id" => {
            emq_id::from_xadd_id(&bytes(r, "entry")?, &bytes(r, "ns")?).map(|id| json!({ "id": id.to_string() }))
        }
        "lease_script" => {
            let name = r.get("name").and_then(Value::as_str).context("name is not a string")?;
            let script =
                emq_id::SCRIPTS.iter().find(|s| s.name == name).with_context(|| format!("no script {name:?}"))?;
            Ok(json!({ "text": script.text }))
        }
        "lease_keys" => Ok(json!({ "lease_key": emq_id::LEASE_KEY })),
        "parse_acquire" => emq_id::parse_acquire(number(r, "node")?, number(r, "previous")?)
            .map(|a| json!({ "node": a.node, "previous_mark": a.previous_mark })),
        "parse_acquire_error" => {
            let message = r.get("message").and_then(Value::as_str).context("message is not a string")?;
            match emq_id::parse_acquire_error(message) {
                Some(refusal) => Err(refusal),
                None => Ok(json!({ "refusal": false })),
            }
        }
        "parse_renewal" => emq_id::parse_renewal(number(r, "reply")?).map(|()| json!({})),
        "lease_start" => {
            let node = u16::try_from(number(r, "node")?).unwrap_or(u16::MAX);
            let previous = match r.get("previous_mark") {
                Some(Value::Null) | None => -1,
                Some(_) => number(r, "previous_mark")?,
            };
            let now = number(r, "now_ms")?;
            let (ttl, margin) = (number(r, "ttl_ms")?, number(r, "margin_ms")?);
            let started = emq_id::parse_acquire(i64::from(node), previous).and_then(|acquired| {
                let terms = emq_id::LeaseTerms::new(ttl.max(0) as u64, margin.max(0) as u64)?;
                emq_id::LeasedMinter::start(acquired, now, 0, terms)
            });
            started.and_then(|m| {
                let s = m.next_at(now, 0)?;
                Ok(json!({ "snowflake": s.to_string(), "fence_ms": m.fence_ms(), "next_mark": m.next_mark(now) }))
            })
        }
        "lease_wait" => {
            let (ttl, margin) = (number(r, "ttl_ms")?, number(r, "margin_ms")?);
            let replicas = u32::try_from(number(r, "replicas")?).context("replicas is not a u32")?;
            let reply = number(r, "reply")?;
            emq_id::LeaseTerms::new(ttl.max(0) as u64, margin.max(0) as u64).and_then(|terms| {
                emq_id::parse_wait(reply, replicas)?;
                Ok(json!({ "wait_ms": terms.wait_ms() }))
            })
        }
        "lease_reply" => {
            let error = r.get("error").and_then(Value::as_str).context("error is not a string")?;
            let asked = r.get("asked").and_then(Value::as_bool).context("asked is not a boolean")?;
            let redirect = emq_id::redirect(error)
                .map(|d| json!({ "ask": d.ask, "slot": d.slot, "host": d.host, "port": d.port }));
            Ok(json!({ "outcome": emq_id::read_lease_error(error, asked).name(), "redirect": redirect }))
        }
        "lease_keeper" => return lease_keeper(r),
        other => anyhow::bail!("unknown op {other:?}"),
    })
}

/// Runs a keeper through the request's steps: the write due at `at`, or a
/// write's outcome settled; answers what the keeper said at each.
fn lease_keeper(r: &Value) -> Answer {
    let (ttl, margin) = (number(r, "ttl_ms")?, number(r, "margin_ms")?);
    let terms = match emq_id::LeaseTerms::new(ttl.max(0) as u64, margin.max(0) as u64) {
        Ok(terms) => terms,
        Err(e) => return Ok(Err(e)),
    };
    let mut keeper = emq_id::Keeper::starting(terms, number(r, "since")?.max(0) as u64);
    let steps = r.get("steps").and_then(Value::as_array).context("steps is not an array")?;
    let mut answers = vec![];
    for step in steps {
        let at = number(step, "at")?.max(0) as u64;
        if step.get("release").is_some() {
            keeper.release();
            answers.push(json!({ "phase": keeper.phase().name() }));
            continue;
        }
        let Some(outcome) = step.get("outcome") else {
            let next = keeper.next(at);
            answers.push(json!({ "next": next.name(), "phase": keeper.phase().name() }));
            continue;
        };
        let name = outcome.as_str().context("outcome is not a string")?;
        let outcome = emq_id::Outcome::from_name(name).with_context(|| format!("no outcome {name:?}"))?;
        let done = keeper.settle(outcome, number(step, "sent")?.max(0) as u64, at);
        let mut answer =
            json!({ "action": done.action.name(), "after_ms": done.after_ms, "phase": keeper.phase().name() });
        if done.action == emq_id::Action::GiveUp {
            answer["refusal"] = json!(emq_id::Keeper::refusal(outcome).map(|e| e.gate().name()));
        }
        answers.push(answer);
    }
    Ok(Ok(json!({ "renew_every_ms": terms.renew_every_ms(), "retry_ms": terms.retry_ms(), "steps": answers })))
}
