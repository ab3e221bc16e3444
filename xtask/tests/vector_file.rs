//! The committed vector file, checked against sources that are not the core:
//! the contract's literal vectors, a bit-by-bit CRC, the cluster spec's examples,
//! and the coverage minimums. Then the negative controls: one wrong value in any
//! section makes a conformance run fail.

use serde_json::Value;
use xtask::conformance::{self, mutate};
use xtask::vectors::{self, hex};
use xtask::{load, root, runtimes};

fn file() -> Value {
    load(&root().join(vectors::PATH)).unwrap()
}

fn section<'a>(f: &'a Value, name: &str) -> &'a Vec<Value> {
    f[name].as_array().unwrap_or_else(|| panic!("section {name} missing"))
}

#[test]
fn committed_file_is_what_the_core_generates() {
    let committed = std::fs::read_to_string(root().join(vectors::PATH)).unwrap();
    assert!(committed == vectors::render(&vectors::generate()), "run `cargo xtask vectors`");
}

#[test]
fn header_names_the_contract_and_keyspace() {
    let f = file();
    assert_eq!(f["contract"], "branded-snowflake/1.0.0");
    assert_eq!(f["keyspace"], "emq-keyspace/2");
}

#[test]
fn contains_the_contracts_own_vectors() {
    let f = file();
    let id = |text: &str| section(&f, "ids").iter().find(|c| c["text"] == text).cloned();
    let a = id("USR0KHTOWnGLuC").expect("encode(USR, 274557032793636864)");
    assert_eq!(a["snowflake"], "274557032793636864");
    assert_eq!(a["hash32"], 234878118);
    assert_eq!(a["unix_ms"], "1769526697641");
    let b = id("USR0NgWEfAEJfs").expect("decode(USR0NgWEfAEJfs)");
    assert_eq!(b["snowflake"], "320636799581945856");
    assert_eq!(b["unix_ms"], "1780512970164");
    let max = section(&f, "ids").iter().find(|c| c["snowflake"] == "9223372036854775807").expect("2^63 - 1");
    assert_eq!(&max["text"].as_str().unwrap()[3..], "AzL8n0Y58m7");
    for (text, gate) in [
        ("USRzzzzzzzzzzz", "range"),
        ("usr0KHTOWnGLuC", "namespace"),
        ("USR0KHTOWnGLu", "length"),
        ("USR0KHTOWnGL!C", "charset"),
    ] {
        let case = section(&f, "rejects").iter().find(|c| c["text"] == text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(case["gate"], gate, "{text}");
    }
}

#[test]
fn carries_the_buss_own_cases_marked_as_such() {
    let f = file();
    let bus =
        |name: &str| -> Vec<Value> { section(&f, name).iter().filter(|c| c["source"] == "bus").cloned().collect() };
    let texts: Vec<&str> = ["USRAzL8n0Y58m7", "USR00000000000", "CRS0KHTOWnGLuC", "EVT000xY9Wvvcd"]
        .into_iter()
        .chain(["ORD000xY9Wvvcd", "JOB0Nb1VTbfnu4", "ORD0NgWEfAEJfs", "ORD0NsVQMCRgHI"])
        .collect();
    let ids = bus("ids");
    assert_eq!(ids.iter().map(|c| c["text"].as_str().unwrap()).collect::<Vec<_>>(), texts);
    // The bus's own answers for its ids, written down independently of the core.
    assert_eq!(ids[0]["snowflake"], "9223372036854775807");
    assert_eq!(ids[1]["snowflake"], "0");
    assert_eq!(ids[2]["snowflake"], "274557032793636864");
    assert_eq!(ids[6]["snowflake"], "320636799581945856");
    let rejects: Vec<(String, String)> = bus("rejects")
        .iter()
        .map(|c| (c["text"].as_str().unwrap().into(), c["gate"].as_str().unwrap().into()))
        .collect();
    let want = [
        ("USR0KHTOWnGLu*", "charset"),
        ("USR0KHTOWnGLuCx", "length"),
        ("USR0KHTOWnGLu!", "charset"),
        ("CRS0KHTOWnGL!C", "charset"),
        ("not-a-branded-id", "length"),
        ("not-branded", "length"),
    ];
    assert_eq!(rejects, want.map(|(t, g)| (t.to_string(), g.to_string())));
    let slots = bus("slots");
    let slot = |key: &str| slots.iter().find(|c| c["key"] == key).unwrap_or_else(|| panic!("{key}"))["slot"].clone();
    // The two slots the bus publishes; the other two share {orders}'s.
    assert_eq!(slot("{fills}"), 4165);
    assert_eq!(slot("emq:{payments}:pending"), 8507);
    assert_eq!(slot("emq:{orders}:meta"), slot("emq:{orders}:job:ORD0NgWEfAEJfs"));
    assert_eq!(slots.len(), 4);
}

/// CRC16-XMODEM one bit at a time, independent of the core's tables.
fn bitwise_crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in data {
        crc ^= (byte as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

#[test]
fn slots_agree_with_a_bitwise_crc_and_the_cluster_spec() {
    assert_eq!(bitwise_crc16(b"123456789"), 0x31C3);
    let f = file();
    let slots = section(&f, "slots");
    let by_key = |k: &str| slots.iter().find(|c| c["key"] == k).unwrap_or_else(|| panic!("{k}"));
    assert_eq!(by_key("123456789")["slot"], 12739); // 0x31C3 < 16384
    assert_eq!(by_key("")["slot"], 0);
    // The cluster specification's hashtag examples.
    for (key, tag) in [
        ("{user1000}.following", "user1000"),
        ("foo{}{bar}", "foo{}{bar}"),
        ("foo{{bar}}zap", "{bar"),
        ("foo{bar}{zap}", "bar"),
    ] {
        assert_eq!(by_key(key)["hashtag_hex"], hex::encode(tag.as_bytes()), "{key}");
    }
    for case in slots {
        let tag = hex::decode(case["hashtag_hex"].as_str().unwrap()).unwrap();
        assert_eq!(case["slot"], (bitwise_crc16(&tag) % 16384) as u64, "{case}");
    }
}

#[test]
fn meets_every_coverage_minimum() {
    let f = file();
    let count = |s: &str| section(&f, s).len();
    assert!(count("ids") >= 300);
    assert!(count("rejects") >= 80);
    assert!(count("min_for") >= 30);
    assert!(count("mint") >= 5);
    assert!(count("slots") >= 200);
    assert!(count("keys") >= 30);
    for gate in ["length", "namespace", "charset", "range"] {
        assert!(section(&f, "rejects").iter().any(|c| c["gate"] == gate), "reject gate {gate}");
    }
    for (ns, s) in [("USR", "9223372036854775808"), ("USR", "18446744073709551615"), ("usr", "0"), ("US", "0")] {
        assert!(section(&f, "encode_rejects").iter().any(|c| c["ns"] == ns && c["snowflake"] == s), "{ns} {s}");
    }
    let binary = section(&f, "slots").iter().filter(|c| c.get("key").is_none()).count();
    assert!(binary >= 20, "non-UTF-8 slot keys: {binary}");
    assert!(section(&f, "slots").iter().any(|c| c["key_hex"].as_str().unwrap().len() >= 2048), "a 1 KiB key");
    let mint = section(&f, "mint");
    assert!(mint.iter().any(|m| m["node"] == 0) && mint.iter().any(|m| m["node"] == 1023));
    assert!(mint.iter().any(|m| m["steps"].as_array().unwrap().len() >= 4100), "a burst of 4,100");
    assert!(
        mint.iter().any(|m| m["steps"].as_array().unwrap().iter().any(|s| s.get("gate").is_some())),
        "the 41-bit limit"
    );
    for kind in ["pending", "active", "job"] {
        assert!(section(&f, "keys").iter().any(|c| c["kind"] == kind && c.get("key").is_some()), "{kind}");
    }
    for error in ["queue", "kind", "length", "namespace", "charset", "range"] {
        assert!(section(&f, "keys").iter().any(|c| c["error"] == error), "key error {error}");
    }
}

/// The bus's own facts for `emq-keyspace/2`, written here by hand, not by the core.
#[test]
fn contains_the_keyspace_facts_of_the_bus() {
    let f = file();
    let xadd = |id: &str| section(&f, "xadd").iter().find(|c| c["id"] == id).cloned().unwrap_or_else(|| panic!("{id}"));
    assert_eq!(xadd("EVT000xY9Wvvcd")["entry"], "1704117200000-1620567");
    assert_eq!(xadd("ORD000xY9Wvvcd")["error"], "kind");
    assert_eq!(xadd("EVT00000000000")["entry"], "1704067200000-0");
    let prefix = section(&f, "prefixes").iter().find(|c| c["queue"] == "orders" && c["type"] == "job:").unwrap();
    assert_eq!((&prefix["bytes"], &prefix["job_prefix"]), (&Value::from(17), &Value::from("emq:{orders}:job:")));
    assert_eq!(prefix["queue_prefix"], "emq:{orders}:");
    let reserve = |name: &str| section(&f, "reserve").iter().find(|c| c["name"] == name).cloned().unwrap();
    assert_eq!(reserve("version")["key"], "{emq}:version");
    assert_eq!(reserve("locks")["key"], "{emq}:locks");
    // Every family the bus writes, as it writes it, builds its key.
    let built = |ty: &str| {
        section(&f, "keys")
            .iter()
            .any(|c| c["queue"] == "orders" && c["kind"] == ty && c["key"] == format!("emq:{{orders}}:{ty}"))
    };
    for ty in [
        "pending",
        "active",
        "schedule",
        "dead",
        "ring",
        "wake",
        "meta",
        "paused",
        "repeat",
        "gactive",
        "glimit",
        "gweight",
        "limiter",
        "events",
        "flow:outbox",
        "metrics:completed",
        "metrics:completed:data",
        "metrics:failed",
        "metrics:failed:data",
        "g:vip:pending",
        "de:vip",
        "repeat:vip",
        "stream:vip",
        "stream:vip:archived",
        "job:JOB0KHTOWnGLuC",
        "job:JOB0KHTOWnGLuC:lock",
        "job:JOB0KHTOWnGLuC:logs",
    ] {
        assert!(built(ty), "family {ty}");
    }
    let refused = |ty: &str, gate: &str| section(&f, "keys").iter().any(|c| c["kind"] == ty && c["error"] == gate);
    assert!(refused("g:a:b:pending", "kind"), "a : in a name");
    assert!(refused("job:USR0KHTOWnGLuC:lock", "kind"), "a job key of another namespace is kind (EMQKIND)");
    assert!(refused(&format!("de:{}", "n".repeat(129)), "kind"), "a name of 129 bytes");
    assert!(built(&format!("de:{}", "n".repeat(128))), "a name of 128 bytes");
    let longest = section(&f, "keys").iter().filter_map(|c| c["key"].as_str()).map(str::len).max();
    assert_eq!(longest, Some(279), "a key of MAX_KEY_LEN, the C buffer's size");
    // Every key the keys section builds parses back to its parts.
    let parsed = section(&f, "parsed_keys");
    for case in section(&f, "keys").iter().filter(|c| c.get("key").is_some()) {
        assert!(parsed.iter().any(|p| p["key"] == case["key"] && p["queue"] == case["queue"]), "{case}");
    }
    let from = section(&f, "from_xadd");
    for gate in ["charset", "range"] {
        assert!(from.iter().any(|c| c["error"] == gate), "from_xadd {gate}");
    }
}

/// A target over a file, as `cargo xtask conformance` runs it: the sections in its scope.
fn run(target: &str, f: &Value) -> conformance::Outcome {
    let target = runtimes::find(target).unwrap();
    let mut adapter = (target.prepare)().unwrap();
    conformance::run_file(target, adapter.as_mut(), f).unwrap()
}

#[test]
fn one_wrong_value_in_any_section_fails_the_rust_target() {
    let f = file();
    assert!(run("rust", &f).passed(), "the unmodified file passes");
    for section in mutate::MUTABLE {
        let outcome = run("rust", &mutate::one_wrong_value(&f, section));
        assert!(!outcome.passed(), "a wrong value in {section} must fail the run");
        assert!(
            outcome.mismatches.iter().all(|m| m.starts_with(&format!("{section}[0] "))),
            "{:?}",
            outcome.mismatches
        );
    }
}

#[test]
fn one_wrong_value_fails_the_cli_target() {
    let f = file();
    for section in ["ids", "keys", "parsed_keys", "xadd"] {
        let outcome = run("cli", &mutate::one_wrong_value(&f, section));
        assert!(!outcome.passed(), "a wrong value in {section} must fail the cli run");
        assert!(
            outcome.mismatches.iter().all(|m| m.starts_with(&format!("{section}[0] "))),
            "{:?}",
            outcome.mismatches
        );
    }
}

#[test]
fn a_file_without_cases_does_not_pass() {
    let empty: Value = serde_json::json!({"contract": "branded-snowflake/1.0.0"});
    assert!(!run("rust", &empty).passed());
}

/// The book's keyspace table lists every family of the core's table.
#[test]
fn the_book_lists_every_family() {
    let page = std::fs::read_to_string(root().join("docs/src/guide/keyspace.md")).unwrap();
    for family in emq_id::Family::ALL {
        let row = format!("| `{}` | `emq:{{orders}}:", family.pattern());
        assert!(page.contains(&row), "docs/src/guide/keyspace.md has no row for {}", family.pattern());
    }
}

/// The checks the section mutations above do not reach can fail too: a wrong
/// job or queue prefix, a wrong gate in a refused case, a wrong id behind an entry id.
#[test]
fn every_kind_of_check_can_fail() {
    let f = file();
    let mut wrong_prefix = f.clone();
    let case =
        wrong_prefix["prefixes"].as_array_mut().unwrap().iter_mut().find(|c| c.get("job_prefix").is_some()).unwrap();
    case["job_prefix"] = Value::from("emq:{orders}:jobs:");
    let mut wrong_queue_prefix = f.clone();
    let case = wrong_queue_prefix["prefixes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c.get("queue_prefix").is_some())
        .unwrap();
    case["queue_prefix"] = Value::from("emq:{orders}");
    let mut wrong_gate = f.clone();
    let case = wrong_gate["from_xadd"].as_array_mut().unwrap().iter_mut().find(|c| c["error"] == "charset").unwrap();
    case["error"] = Value::from("range");
    let mut wrong_kind = f.clone();
    let case = wrong_kind["keys"].as_array_mut().unwrap().iter_mut().find(|c| c["error"] == "kind").unwrap();
    case["error"] = Value::from("queue");
    let wrong = [
        ("job_prefix", wrong_prefix),
        ("queue_prefix", wrong_queue_prefix),
        ("from_xadd gate", wrong_gate),
        ("keys gate", wrong_kind),
    ];
    for (what, file) in wrong {
        let outcome = run("rust", &file);
        assert_eq!(outcome.mismatches.len(), 1, "{what}: {:?}", outcome.mismatches);
    }
}
