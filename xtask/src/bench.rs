//! `cargo xtask bench`: runs the core's criterion benchmarks and prints the
//! table for BENCHMARKS.md, each result beside its anchor from the same run.

use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use serde_json::Value;

use crate::{root, sh};

/// One measured benchmark: its group, its name, the median in nanoseconds.
struct Row {
    group: String,
    name: String,
    ns: f64,
}

/// `cargo xtask bench [core|go|node|elixir|postgres]...` (default: all).
pub fn run(which: &[String]) -> Result<(), String> {
    let all = which.is_empty();
    if all || which.iter().any(|w| w == "core") {
        core()?;
    }
    if all || which.iter().any(|w| w == "go") {
        go()?;
    }
    if all || which.iter().any(|w| w == "node" || w == "wasm") {
        node_and_wasm()?;
    }
    if all || which.iter().any(|w| w == "elixir") {
        crate::elixir::bench()?;
    }
    if all || which.iter().any(|w| w == "postgres") {
        crate::pg_checks::bench()?;
    }
    Ok(())
}

fn core() -> Result<(), String> {
    let started = SystemTime::now();
    sh(Command::new("cargo").args(["bench", "-p", "emq-id", "--bench", "core"]))?;
    let rows = collect(&root().join("target/criterion"), started)?;
    println!("{}", table(&rows));
    Ok(())
}

/// The Node package, the WASM package beside it, and the pure-JS anchors, in one Node run.
fn node_and_wasm() -> Result<(), String> {
    crate::node::build()?;
    crate::node::dev_dependencies()?;
    let (raw, gz) = crate::wasm::build()?;
    println!("WASM package: emq_id_wasm_bg.wasm {raw} B raw, {gz} B gzip -9\n");
    sh(Command::new("node")
        .arg(root().join("bindings/node/bench/bench.js"))
        .env("EMQ_ID_PACKAGE", root().join(crate::wasm::PACKAGE))
        .env("EMQ_NODE", "1")
        // Claims apart from the host's: a benchmark mints far ahead of the clock.
        .env("EMQ_NODE_DIR", root().join("target/bench-claims")))
}

/// The Go benchmarks and the pairs they are read in: (ours, anchor).
const GO_PAIRS: &[(&str, &str)] = &[
    ("Hash32", "CgoFloor"),
    ("Encode", "ULIDString"),
    ("Parse", "ULIDParse"),
    ("Slot", "RadixClusterSlot"),
    ("SlotManyPerKey", "RadixClusterSlotPerKey"),
    ("MinterNext", "CgoFloor"),
    ("MinterNextManyPerID", "CgoFloor"),
];

fn go() -> Result<(), String> {
    crate::native::build_library()?;
    let mut cmd = Command::new("go");
    cmd.current_dir(root().join("bindings/go/bench")).args(["test", "-run", "^$", "-bench", ".", "-benchtime", "1s"]);
    let out = crate::sh_out(&mut cmd)?;
    eprint!("{out}");
    let ns = |name: &str| -> Option<f64> {
        out.lines().find(|l| l.starts_with(&format!("Benchmark{name}-"))).and_then(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.iter().position(|x| *x == "ns/op").and_then(|i| f[i - 1].parse().ok())
        })
    };
    let floor = ns("CgoFloor").ok_or("no CgoFloor result")?;
    let mut t = String::from(
        "| Go call | emqid | ÷ cgo floor | anchor | anchor time | anchor ÷ emqid |\n|---|---|---|---|---|---|\n",
    );
    for (ours, anchor) in GO_PAIRS {
        let (Some(o), Some(a)) = (ns(ours), ns(anchor)) else { continue };
        t.push_str(&format!("| {ours} | {o:.2} ns | {:.2}× | {anchor} | {a:.2} ns | **{:.2}×** |\n", o / floor, a / o));
    }
    println!("{t}");
    Ok(())
}

/// Every result criterion wrote since `since` (older ones are from other runs).
fn collect(dir: &Path, since: SystemTime) -> Result<Vec<Row>, String> {
    let mut rows = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.file_name().is_none_or(|n| n != "benchmark.json") || !path.parent().unwrap().ends_with("new") {
                continue;
            }
            let fresh = entry.metadata().and_then(|m| m.modified()).map(|m| m >= since).unwrap_or(false);
            if !fresh {
                continue;
            }
            let read = |p: &Path| -> Result<Value, String> {
                serde_json::from_str(&std::fs::read_to_string(p).map_err(|e| e.to_string())?).map_err(|e| e.to_string())
            };
            let meta = read(&path)?;
            let estimates = read(&path.with_file_name("estimates.json"))?;
            let name = meta["value_str"].as_str().or(meta["function_id"].as_str()).unwrap_or("?");
            rows.push(Row {
                group: meta["group_id"].as_str().unwrap_or("?").into(),
                name: name.into(),
                ns: estimates["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN),
            });
        }
    }
    rows.sort_by(|a, b| (&a.group, &a.name).cmp(&(&b.group, &b.name)));
    Ok(rows)
}

fn show(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{:.2} µs", ns / 1000.0)
    } else {
        format!("{ns:.2} ns")
    }
}

/// Ratios first: how many times faster emq-id is than each anchor of its group.
fn table(rows: &[Row]) -> String {
    let mut out =
        String::from("| benchmark | emq-id | anchor | anchor time | anchor ÷ emq-id |\n|---|---|---|---|---|\n");
    let mut groups: Vec<&str> = rows.iter().map(|r| r.group.as_str()).collect();
    groups.dedup();
    for g in groups {
        let in_group: Vec<&Row> = rows.iter().filter(|r| r.group == g).collect();
        let ours: Vec<&&Row> = in_group.iter().filter(|r| r.name.starts_with("emq-id") || g == "mint").collect();
        let anchors: Vec<&&Row> = in_group.iter().filter(|r| !r.name.starts_with("emq-id") && g != "mint").collect();
        for o in &ours {
            let label = if g == "mint" { format!("mint: {}", o.name) } else { g.to_string() };
            if anchors.is_empty() {
                out.push_str(&format!("| {label} | {} | – | – | – |\n", show(o.ns)));
            }
            for a in &anchors {
                out.push_str(&format!(
                    "| {label} | {} | {} | {} | **{:.2}×** |\n",
                    show(o.ns),
                    a.name,
                    show(a.ns),
                    a.ns / o.ns
                ));
            }
        }
    }
    out
}
