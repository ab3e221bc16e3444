//! From the vector file to checks: each check is one protocol request and the
//! answer the file expects. Nothing here knows how many cases there are.

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

/// What a request must answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// `{"ok": value}` with exactly this value.
    Ok(Value),
    /// `{"error": {"gate": name, ...}}` with this gate.
    Gate(String),
}

/// One request to an adapter and the answer the file expects.
#[derive(Clone, Debug)]
pub struct Check {
    pub section: String,
    /// Where the expectation came from, e.g. `ids[12] decode(text_hex)`.
    pub label: String,
    pub request: Value,
    pub expect: Expect,
}

/// The sections, in file order. A file may leave one out; an unknown one is an error.
pub const SECTIONS: [&str; 21] = concat(NON_LEASE_SECTIONS, LEASE_SECTIONS);

/// `a` then `b`, in a constant.
const fn concat<const A: usize, const B: usize, const C: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; C] {
    let mut out = [""; C];
    let mut i = 0;
    while i < C {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

/// The sections of node leases (emq-lease/3): a target whose runtime has no
/// lease API declares the others as its scope.
pub const LEASE_SECTIONS: [&str; 9] = [
    "lease_scripts",
    "lease_keys",
    "lease_acquire",
    "lease_errors",
    "lease_renewals",
    "lease_starts",
    "lease_waits",
    "lease_replies",
    "lease_keepers",
];

/// Every section but the lease sections.
pub const NON_LEASE_SECTIONS: [&str; 12] = [
    "ids",
    "rejects",
    "encode_rejects",
    "min_for",
    "mint",
    "slots",
    "keys",
    "parsed_keys",
    "reserve",
    "prefixes",
    "xadd",
    "from_xadd",
];

fn field<'a>(case: &'a Value, name: &str, at: &str) -> Result<&'a Value> {
    case.get(name).with_context(|| format!("{at}: missing field {name:?}"))
}

fn pick(case: &Value, names: &[&str], at: &str) -> Result<Value> {
    let mut out = Map::new();
    for name in names {
        out.insert(name.to_string(), field(case, name, at)?.clone());
    }
    Ok(Value::Object(out))
}

/// `{"ok": …}` unless the case names a gate (under `gate` or `error`).
fn outcome(case: &Value, gate_field: &str, ok_fields: &[&str], at: &str) -> Result<Expect> {
    match case.get(gate_field) {
        Some(g) => Ok(Expect::Gate(g.as_str().with_context(|| format!("{at}: {gate_field} is not a string"))?.into())),
        None => Ok(Expect::Ok(pick(case, ok_fields, at)?)),
    }
}

/// Every check the file implies, in file order.
pub fn checks(file: &Value) -> Result<Vec<Check>> {
    let obj = file.as_object().context("the vector file is not a JSON object")?;
    for key in obj.keys() {
        if !SECTIONS.contains(&key.as_str()) && !["contract", "keyspace", "lease"].contains(&key.as_str()) {
            bail!("unknown section {key:?} in the vector file");
        }
    }
    let mut out = Vec::new();
    for section in SECTIONS {
        let Some(cases) = obj.get(section) else {
            continue;
        };
        let cases = cases.as_array().with_context(|| format!("section {section} is not an array"))?;
        for (i, case) in cases.iter().enumerate() {
            let at = format!("{section}[{i}]");
            let mut add = |what: &str, request: Value, expect: Expect| {
                out.push(Check { section: section.into(), label: format!("{at} {what}"), request, expect });
            };
            match section {
                "ids" => {
                    let decoded = pick(case, &["ns", "snowflake", "unix_ms", "node", "seq", "hash32"], &at)?;
                    let text_hex = field(case, "text_hex", &at)?;
                    add("decode(text_hex)", json!({"op": "decode", "text_hex": text_hex}), Expect::Ok(decoded.clone()));
                    let text = field(case, "text", &at)?;
                    add("decode(text)", json!({"op": "decode", "text": text}), Expect::Ok(decoded));
                    let request = json!({"op": "encode", "ns": field(case, "ns", &at)?, "snowflake": field(case, "snowflake", &at)?});
                    add("encode", request, Expect::Ok(json!({"text": text})));
                }
                "rejects" => {
                    let gate = outcome(case, "gate", &[], &at)?;
                    add(
                        "decode(text_hex)",
                        json!({"op": "decode", "text_hex": field(case, "text_hex", &at)?}),
                        gate.clone(),
                    );
                    if let Some(text) = case.get("text") {
                        add("decode(text)", json!({"op": "decode", "text": text}), gate);
                    }
                }
                "encode_rejects" => {
                    let request = json!({"op": "encode", "ns": field(case, "ns", &at)?, "snowflake": field(case, "snowflake", &at)?});
                    add("encode", request, outcome(case, "gate", &[], &at)?);
                }
                "min_for" => {
                    let request = json!({"op": "min_for", "unix_ms": field(case, "unix_ms", &at)?});
                    add("min_for", request, outcome(case, "gate", &["snowflake"], &at)?);
                }
                "mint" => {
                    let steps = field(case, "steps", &at)?
                        .as_array()
                        .with_context(|| format!("{at}: steps is not an array"))?;
                    let now: Vec<Value> =
                        steps.iter().map(|s| field(s, "now_ms", &at).cloned()).collect::<Result<_, _>>()?;
                    let answers: Vec<Value> = steps
                        .iter()
                        .map(|s| match s.get("gate") {
                            Some(g) => Ok(json!({"gate": g})),
                            None => pick(s, &["snowflake"], &at),
                        })
                        .collect::<Result<_, _>>()?;
                    let request = json!({"op": "mint", "node": field(case, "node", &at)?, "now_ms": now});
                    add("mint", request, Expect::Ok(json!({"steps": answers})));
                }
                "slots" => {
                    let answer = Expect::Ok(pick(case, &["slot", "hashtag_hex"], &at)?);
                    add(
                        "slot(key_hex)",
                        json!({"op": "slot", "key_hex": field(case, "key_hex", &at)?}),
                        answer.clone(),
                    );
                    if let Some(key) = case.get("key") {
                        add("slot(key)", json!({"op": "slot", "key": key}), answer);
                    }
                }
                "keys" => {
                    let mut request =
                        json!({"op": "key", "queue": field(case, "queue", &at)?, "kind": field(case, "kind", &at)?});
                    if let Some(id) = case.get("id") {
                        request["id"] = id.clone();
                    }
                    add("key", request, outcome(case, "error", &["key"], &at)?);
                }
                "parsed_keys" => {
                    let expect = match case.get("param") {
                        Some(_) => outcome(case, "error", &["queue", "family", "param"], &at)?,
                        None => outcome(case, "error", &["queue", "family"], &at)?,
                    };
                    add("parse_key", json!({"op": "parse_key", "key": field(case, "key", &at)?}), expect);
                }
                "reserve" => {
                    let request = json!({"op": "reserve", "name": field(case, "name", &at)?});
                    add("reserve", request, outcome(case, "error", &["key"], &at)?);
                }
                "prefixes" => {
                    let (queue, ty) = (field(case, "queue", &at)?, field(case, "type", &at)?);
                    let request = json!({"op": "prefix_bytes", "queue": queue, "type": ty});
                    add("prefix_bytes", request, outcome(case, "error", &["bytes"], &at)?);
                    if let Some(prefix) = case.get("job_prefix") {
                        add(
                            "job_prefix",
                            json!({"op": "job_prefix", "queue": queue}),
                            Expect::Ok(json!({"key": prefix})),
                        );
                    } else if ty == "job:" {
                        add(
                            "job_prefix",
                            json!({"op": "job_prefix", "queue": queue}),
                            outcome(case, "error", &[], &at)?,
                        );
                    }
                    let expect = match case.get("queue_prefix") {
                        Some(prefix) => Expect::Ok(json!({"key": prefix})),
                        None => outcome(case, "error", &[], &at)?,
                    };
                    add("queue_prefix", json!({"op": "queue_prefix", "queue": queue}), expect);
                }
                "xadd" => {
                    let id = field(case, "id", &at)?;
                    add("xadd_id", json!({"op": "xadd_id", "id": id}), outcome(case, "error", &["entry"], &at)?);
                    if let (Some(entry), Some(ns)) = (case.get("entry"), id.as_str().and_then(|t| t.get(..3))) {
                        let request = json!({"op": "from_xadd_id", "entry": entry, "ns": ns});
                        add("from_xadd_id(entry)", request, Expect::Ok(json!({"id": id})));
                    }
                }
                "from_xadd" => {
                    let request = json!({"op": "from_xadd_id", "entry": field(case, "entry", &at)?, "ns": field(case, "ns", &at)?});
                    add("from_xadd_id", request, outcome(case, "error", &["id"], &at)?);
                }
                "lease_scripts" => {
                    let request = json!({"op": "lease_script", "name": field(case, "name", &at)?});
                    add("lease_script", request, Expect::Ok(json!({"text": field(case, "text", &at)?})));
                }
                "lease_keys" => {
                    add("lease_keys", json!({"op": "lease_keys"}), outcome(case, "gate", &["lease_key"], &at)?);
                }
                "lease_acquire" => {
                    let (node, previous) = (field(case, "reply_node", &at)?, field(case, "reply_previous", &at)?);
                    let request = json!({"op": "parse_acquire", "node": node, "previous": previous});
                    add("parse_acquire", request, outcome(case, "gate", &["node", "previous_mark"], &at)?);
                }
                "lease_errors" => {
                    let request = json!({"op": "parse_acquire_error", "message": field(case, "message", &at)?});
                    add("parse_acquire_error", request, outcome(case, "gate", &["refusal"], &at)?);
                }
                "lease_renewals" => {
                    let request = json!({"op": "parse_renewal", "reply": field(case, "reply", &at)?});
                    add("parse_renewal", request, outcome(case, "gate", &[], &at)?);
                }
                "lease_starts" => {
                    let request = json!({"op": "lease_start"}).as_object().cloned().map(|mut r| {
                        for name in ["node", "previous_mark", "now_ms", "ttl_ms", "margin_ms"] {
                            r.insert(name.into(), case.get(name).cloned().unwrap_or(Value::Null));
                        }
                        Value::Object(r)
                    });
                    let request = request.context("a request object")?;
                    add("lease_start", request, outcome(case, "gate", &["snowflake", "fence_ms", "next_mark"], &at)?);
                }
                "lease_waits" => {
                    let request = pick(case, &["ttl_ms", "margin_ms", "replicas", "reply"], &at)?;
                    let mut request = request.as_object().cloned().context("a request object")?;
                    request.insert("op".into(), json!("lease_wait"));
                    add("lease_wait", Value::Object(request), outcome(case, "gate", &["wait_ms"], &at)?);
                }
                "lease_replies" => {
                    let request = json!({"op": "lease_reply", "error": field(case, "error", &at)?, "asked": field(case, "asked", &at)?});
                    add("lease_reply", request, Expect::Ok(pick(case, &["outcome", "redirect"], &at)?));
                }
                "lease_keepers" => {
                    let steps = field(case, "steps", &at)?
                        .as_array()
                        .with_context(|| format!("{at}: steps is not an array"))?;
                    let (mut asked, mut answers) = (vec![], vec![]);
                    for step in steps {
                        if step.get("next").is_some() {
                            asked.push(pick(step, &["at"], &at)?);
                            answers.push(pick(step, &["next", "phase"], &at)?);
                        } else if step.get("release").is_some() {
                            asked.push(pick(step, &["at", "release"], &at)?);
                            answers.push(pick(step, &["phase"], &at)?);
                        } else {
                            asked.push(pick(step, &["outcome", "sent", "at"], &at)?);
                            let answer = match step.get("refusal") {
                                Some(_) => pick(step, &["action", "after_ms", "phase", "refusal"], &at)?,
                                None => pick(step, &["action", "after_ms", "phase"], &at)?,
                            };
                            answers.push(answer);
                        }
                    }
                    let mut request = pick(case, &["ttl_ms", "margin_ms", "since"], &at)?;
                    request["op"] = json!("lease_keeper");
                    request["steps"] = json!(asked);
                    let mut answer = pick(case, &["renew_every_ms", "retry_ms"], &at)?;
                    answer["steps"] = json!(answers);
                    add("lease_keeper", request, Expect::Ok(answer));
                }
                _ => unreachable!("SECTIONS is exhaustive"),
            }
        }
    }
    Ok(out)
}

/// Compares one answer with its expectation; `None` when they agree.
pub fn mismatch(expect: &Expect, answer: Option<&Value>) -> Option<String> {
    let Some(answer) = answer else {
        return Some("no answer".into());
    };
    match (expect, answer.get("ok"), answer.get("error")) {
        (Expect::Ok(want), Some(got), _) if got == want => None,
        (Expect::Gate(want), _, Some(err)) if err.get("gate").and_then(Value::as_str) == Some(want) => None,
        (Expect::Ok(want), ..) => Some(format!("expected ok {want}, got {}", strip_id(answer))),
        (Expect::Gate(want), ..) => Some(format!("expected gate {want:?}, got {}", strip_id(answer))),
    }
}

fn strip_id(answer: &Value) -> Value {
    let mut a = answer.clone();
    if let Some(o) = a.as_object_mut() {
        o.remove("req");
    }
    a
}
