//! `cargo xtask bench core`: runs the core's criterion benchmarks and prints
//! the table for BENCHMARKS.md, each result beside its anchor from the same run.

use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::{root, sh};

/// One measured benchmark: its group, its name, the median in nanoseconds
/// (per input, for a row that times a loop over several).
struct Row {
    group: String,
    name: String,
    ns: f64,
}

/// `cargo xtask bench core`: the core's criterion benchmarks, beside their anchors.
pub fn run() -> Result<()> {
    let started = SystemTime::now();
    sh(Command::new("cargo").args(["bench", "-p", "emq-id", "--bench", "core"]))?;
    let rows = collect(&root().join("target/criterion"), started)?;
    crate::bench::record("core", &table(&rows))
}

/// Every result criterion wrote since `since` (older ones are from other runs).
fn collect(dir: &Path, since: SystemTime) -> Result<Vec<Row>> {
    let mut rows = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("listing {}", d.display()))?.flatten() {
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
            let read = |p: &Path| -> Result<Value> {
                serde_json::from_str(&crate::read(p)?).with_context(|| format!("{} is not JSON", p.display()))
            };
            let meta = read(&path)?;
            let estimates = read(&path.with_file_name("estimates.json"))?;
            let name = meta["value_str"].as_str().or(meta["function_id"].as_str()).unwrap_or("?");
            // A row that times a loop over many inputs is reported per input.
            let inputs = meta["throughput"]["Elements"].as_f64().unwrap_or(1.0);
            rows.push(Row {
                group: meta["group_id"].as_str().unwrap_or("?").into(),
                name: name.into(),
                ns: estimates["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN) / inputs,
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
