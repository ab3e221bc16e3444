//! The `emq-keyspace/2` sections of the vector file: every family of keys
//! (valid and refused, each parameter position), keys parsed back, the
//! reserve, family prefixes, and stream entry ids. As in `vectors/mod.rs`, the
//! core computes every expected value; this module only chooses inputs.

use emq_id::{Family, Param};
use serde_json::{json, Map, Value};

const JOB: &str = "JOB0KHTOWnGLuC";

/// A parameter of `family` that is valid, for building its example type.
fn example_param(family: &Family) -> &'static str {
    match family.param() {
        Param::None => "",
        Param::Name => "vip",
        Param::JobId => JOB,
    }
}

/// The type of `family` with `param` in its place.
fn ty(family: &Family, param: &str) -> String {
    format!("{}{param}{}", family.head(), family.tail())
}

/// Types to try, valid and refused, for every family and parameter position.
pub fn types() -> Vec<String> {
    let name128 = "n".repeat(128);
    let name129 = "n".repeat(129);
    let mut out = vec![];
    for family in Family::ALL {
        out.push(ty(family, example_param(family)));
        match family.param() {
            Param::None => {
                out.push(format!("{}x", family.head()));
                out.push(family.head().to_uppercase());
            }
            Param::Name => {
                for name in ["a", name128.as_str(), "AZaz09_.-", "", name129.as_str(), "a:b", "a{b}", "a b", "é"] {
                    out.push(ty(family, name));
                }
            }
            Param::JobId => {
                for id in [
                    "",
                    "JOB0KHTOWnGLu",
                    "job0KHTOWnGLuC",
                    "JOB0KHTOWnGL!C",
                    "JOBzzzzzzzzzzz",
                    "USR0KHTOWnGLuC",
                    "JOB0KHTOWnGLuC:x",
                ] {
                    out.push(ty(family, id));
                }
            }
        }
    }
    out.extend(["", ":", "job:", "g::pending", "stream:", "metrics", "flow", "g:vip", "de", "nope"].map(String::from));
    out
}

/// `parse_key` of every key the `keys` section builds, and of keys it cannot build.
pub fn parsed_keys(built: &[String]) -> Vec<Value> {
    let mut keys: Vec<String> = built.to_vec();
    // Every type tried in `keys`, valid or refused, as a key to read back.
    keys.extend(types().iter().map(|ty| format!("emq:{{orders}}:{ty}")));
    keys.extend(
        [
            "{emq}:version",
            "emq:{orders}",
            "emq:{orders}:",
            "emq:{orders}pending",
            "emq:{}:pending",
            "emq:{or ders}:pending",
            "emq:orders:pending",
            "emq{orders}:pending",
            "emq:{orders}:done",
            "emq:{orders}:job:",
            "emq:{orders}:job:USR0KHTOWnGLuC",
            "emq:{orders}:job:JOB0KHTOWnGLuC:lock:x",
            "emq:{orders}:g:a:b:pending",
            "emq:{a{b}:pending",
            "emq:{a}b}:pending",
            "emq:{orders}:job::lock",
            "",
        ]
        .map(String::from),
    );
    let mut seen = std::collections::HashSet::new();
    keys.retain(|k| seen.insert(k.clone()));
    keys.iter()
        .map(|key| {
            let mut case = Map::new();
            case.insert("key".into(), json!(key));
            match emq_id::parse_key(key.as_bytes()) {
                Ok(p) => {
                    case.insert("queue".into(), json!(String::from_utf8_lossy(p.queue)));
                    case.insert("family".into(), json!(p.family.pattern().to_string()));
                    if let Some(param) = p.param {
                        case.insert("param".into(), json!(String::from_utf8_lossy(param)));
                    }
                }
                Err(e) => {
                    case.insert("error".into(), json!(e.code()));
                }
            }
            Value::Object(case)
        })
        .collect()
}

/// `reserve(name)`: the cross-queue keys.
pub fn reserve() -> Vec<Value> {
    let n128 = "n".repeat(128);
    let n129 = "n".repeat(129);
    ["version", "locks", "node:7", "a", n128.as_str(), "AZaz09_.:-", "", n129.as_str(), "a{b}", "a b", "é"]
        .iter()
        .map(|name| match emq_id::reserve(name.as_bytes()) {
            Ok(key) => json!({"name": name, "key": key.as_str()}),
            Err(e) => json!({"name": name, "error": e.code()}),
        })
        .collect()
}

/// `prefix_bytes(queue, type)`, `job_prefix(queue)` for the type `job:`, and
/// `queue_prefix(queue)` in every case whose queue it takes; a case without
/// one is refused, as `queue_prefix` refuses its queue (the queue's gate
/// comes first).
pub fn prefixes() -> Vec<Value> {
    let q128 = "q".repeat(128);
    let mut cases = vec![];
    let heads =
        ["job:", "g:", "de:", "repeat:", "stream:", "pending", "metrics:failed:data", "job", "g", "stream:x", ""];
    for queue in ["orders", "a", q128.as_str(), "", "a{b}"] {
        for head in heads {
            let mut case = Map::new();
            case.insert("queue".into(), json!(queue));
            case.insert("type".into(), json!(head));
            match emq_id::prefix_bytes(queue.as_bytes(), head.as_bytes()) {
                Ok(n) => {
                    case.insert("bytes".into(), json!(n));
                    if head == "job:" {
                        let prefix = emq_id::job_prefix(queue.as_bytes()).expect("a valid queue");
                        case.insert("job_prefix".into(), json!(prefix.as_str()));
                    }
                }
                Err(e) => {
                    case.insert("error".into(), json!(e.code()));
                }
            }
            match emq_id::queue_prefix(queue.as_bytes()) {
                Ok(prefix) => {
                    case.insert("queue_prefix".into(), json!(prefix.as_str()));
                }
                Err(e) => assert_eq!(case.get("error"), Some(&json!(e.code())), "queue_prefix({queue:?})'s refusal"),
            }
            cases.push(Value::Object(case));
        }
    }
    cases
}

/// `xadd_id(id)` over ids of every namespace and edge, valid or not.
pub fn xadd(evt_snowflakes: &[u64]) -> Vec<Value> {
    let mut ids: Vec<String> =
        evt_snowflakes.iter().map(|&s| emq_id::Id::new(b"EVT", s).unwrap().to_string()).collect();
    ids.extend(
        ["EVT000xY9Wvvcd", "EVT00000000000", "EVTAzL8n0Y58m7", "ORD000xY9Wvvcd", "JOB0KHTOWnGLuC"].map(String::from),
    );
    ids.extend(["EVT000xY9Wvvc", "evt000xY9Wvvcd", "EVT000xY9Wvv!d", "EVTzzzzzzzzzzz", ""].map(String::from));
    ids.iter()
        .map(|id| match emq_id::xadd_id(id.as_bytes()) {
            Ok(entry) => json!({"id": id, "entry": entry.as_str()}),
            Err(e) => json!({"id": id, "error": e.code()}),
        })
        .collect()
}

/// `from_xadd_id(entry, ns)` over entry ids that no `EVT` id makes.
pub fn from_xadd() -> Vec<Value> {
    let last_ms = emq_id::EPOCH_MS + emq_id::MAX_TS;
    let cases: Vec<(String, &str)> = vec![
        ("1704117200000-1620567".into(), "EVT"),
        ("1704117200000-1620567".into(), "ORD"),
        ("1704067200000-0".into(), "EVT"),
        (format!("{last_ms}-4194303"), "EVT"),
        (format!("{}-0", last_ms + 1), "EVT"),
        ("1704117200000-4194304".into(), "EVT"),
        ("1704067199999-0".into(), "EVT"),
        ("0-0".into(), "EVT"),
        ("99999999999999999999999-0".into(), "EVT"),
        ("1704117200000-99999999999999999999999".into(), "EVT"),
        ("01704117200000-1620567".into(), "EVT"),
        ("1704117200000-01620567".into(), "EVT"),
        ("1704117200000-00".into(), "EVT"),
        ("1704117200000-x".into(), "EVTX"),
        ("1704117200000-1620567".into(), ""),
        ("1704117200000-1620567".into(), "EV"),
        ("1704117200000-x".into(), "EVT"),
        ("1704117200000".into(), "EVT"),
        ("-1620567".into(), "EVT"),
        ("1704117200000-".into(), "EVT"),
        ("+1704117200000-1".into(), "EVT"),
        ("1704117200000-1-2".into(), "EVT"),
        ("1704117200000-1620567".into(), "evt"),
        ("1704117200000-1620567".into(), "EVTX"),
        ("".into(), "EVT"),
    ];
    cases
        .into_iter()
        .map(|(entry, ns)| match emq_id::from_xadd_id(entry.as_bytes(), ns.as_bytes()) {
            Ok(id) => json!({"entry": entry, "ns": ns, "id": id.to_string()}),
            Err(e) => json!({"entry": entry, "ns": ns, "error": e.code()}),
        })
        .collect()
}
