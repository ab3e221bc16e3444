//! Negative controls: a copy of the vector file with exactly one expected
//! value wrong, so a test can prove a target's run fails on it.

use serde_json::Value;

/// Every section can be mutated (the expected field changed in its first case).
pub use super::cases::SECTIONS as MUTABLE;

/// `file` with the first case of `section` carrying one wrong expected value.
pub fn one_wrong_value(file: &Value, section: &str) -> Value {
    let mut file = file.clone();
    let case = &mut file[section][0];
    match section {
        "ids" => case["hash32"] = Value::from(case["hash32"].as_u64().unwrap() ^ 1),
        "rejects" | "encode_rejects" => {
            let gate = if case["gate"] == "charset" { "range" } else { "charset" };
            case["gate"] = Value::from(gate);
        }
        "min_for" => bump_decimal(&mut case["snowflake"]),
        "mint" => bump_decimal(&mut case["steps"][0]["snowflake"]),
        "slots" => case["slot"] = Value::from((case["slot"].as_u64().unwrap() + 1) % 16384),
        "keys" | "reserve" => case["key"] = Value::from(format!("{}x", case["key"].as_str().unwrap())),
        "parsed_keys" => case["queue"] = Value::from(format!("{}x", case["queue"].as_str().unwrap())),
        "prefixes" => case["bytes"] = Value::from(case["bytes"].as_u64().unwrap() + 1),
        "xadd" => case["entry"] = Value::from(format!("{}0", case["entry"].as_str().unwrap())),
        "from_xadd" => case["id"] = Value::from(format!("{}x", case["id"].as_str().unwrap())),
        "lease_scripts" => case["text"] = Value::from(format!("{} ", case["text"].as_str().unwrap())),
        "lease_keys" => case["lease_key"] = Value::from(format!("{}x", case["lease_key"].as_str().unwrap())),
        "lease_acquire" => case["node"] = Value::from(case["node"].as_u64().unwrap() + 1),
        "lease_errors" => case["gate"] = Value::from("range"),
        "lease_renewals" => case["gate"] = Value::from("node"),
        "lease_starts" => bump_decimal(&mut case["snowflake"]),
        "lease_waits" => case["wait_ms"] = Value::from(case["wait_ms"].as_u64().unwrap() + 1),
        "lease_replies" => case["outcome"] = Value::from(if case["outcome"] == "fault" { "leased" } else { "fault" }),
        "lease_keepers" => {
            case["steps"][1]["after_ms"] = Value::from(case["steps"][1]["after_ms"].as_u64().unwrap() + 1)
        }
        other => panic!("no mutation for section {other}"),
    }
    file
}

fn bump_decimal(v: &mut Value) {
    let n: u64 = v.as_str().and_then(|s| s.parse().ok()).expect("a decimal string");
    *v = Value::from((n + 1).to_string());
}
