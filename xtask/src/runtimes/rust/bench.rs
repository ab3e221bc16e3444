//! `cargo xtask bench core`: runs the core's criterion benchmarks three times
//! and prints the table for the performance page, each result beside its anchor from
//! the same run, with the runs' spread.

use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::bench::record::{bounds, median};
use crate::{root, sh};

/// One measured benchmark: its group, its name, the median in nanoseconds
/// and its fastest sample's time (per input, for a row that times a loop
/// over several).
struct Row {
    group: String,
    name: String,
    ns: f64,
    fastest: f64,
}

/// How many times the benchmarks run: a row's figures are its medians over
/// these runs, and each ratio comes with its lowest and highest run.
const RUNS: usize = 3;

/// `cargo xtask bench core`: the core's criterion benchmarks, beside their anchors.
pub fn run() -> Result<()> {
    let mut runs = vec![];
    for _ in 0..RUNS {
        let started = SystemTime::now();
        sh(Command::new("cargo").args(["bench", "-p", "emq-id", "--bench", "core"]))?;
        runs.push(collect(&root().join("target/criterion"), started)?);
    }
    // Every run must have measured the same rows, or a median would mix them.
    let names = |rows: &[Row]| rows.iter().map(|r| (r.group.clone(), r.name.clone())).collect::<Vec<_>>();
    anyhow::ensure!(
        runs.iter().all(|rows| names(rows) == names(&runs[0])),
        "the runs of the core benchmark measured different rows"
    );
    crate::bench::record::write("core", &table(&runs))
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
            // Each sample is a number of iterations and their total time.
            let sample = read(&path.with_file_name("sample.json"))?;
            let column = |key: &str| -> Vec<f64> {
                sample[key].as_array().map(|v| v.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
            };
            let fastest = column("times").iter().zip(column("iters")).map(|(t, n)| t / n).fold(f64::INFINITY, f64::min);
            anyhow::ensure!(fastest.is_finite(), "{} holds no samples", path.with_file_name("sample.json").display());
            rows.push(Row {
                group: meta["group_id"].as_str().unwrap_or("?").into(),
                name: name.into(),
                ns: estimates["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN) / inputs,
                fastest: fastest / inputs,
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

/// "2.06–2.08×": the lowest and highest of `values`.
fn range(values: &[f64], show: impl Fn(f64) -> String) -> String {
    let (lo, hi) = bounds(values);
    format!("{}–{}", show(lo), show(hi))
}

/// One row in every run (`run` checked that every run has every row).
fn each_run<'a>(runs: &'a [Vec<Row>], group: &'a str, name: &'a str) -> impl Iterator<Item = &'a Row> {
    runs.iter().filter_map(move |rows| rows.iter().find(|r| r.group == group && r.name == name))
}

/// One row's time in every run.
fn times(runs: &[Vec<Row>], group: &str, name: &str) -> Vec<f64> {
    each_run(runs, group, name).map(|r| r.ns).collect()
}

/// One row's fastest sample over every run: two rows' fastest samples may
/// come from different runs, the one figure of the table not paired within
/// a run.
fn fastest(runs: &[Vec<Row>], group: &str, name: &str) -> f64 {
    each_run(runs, group, name).map(|r| r.fastest).fold(f64::INFINITY, f64::min)
}

/// Ratios first: how many times faster emq-id is than each anchor of its
/// group. Each run's ratio is of that run's two times, both measured in it;
/// the table gives their median, their lowest and highest, and the ratio of
/// the two rows' fastest samples in any run.
fn table(runs: &[Vec<Row>]) -> String {
    let mut out = format!(
        "Times are medians over {} runs of `cargo bench -p emq-id --bench core`. `anchor ÷ emq-id` is the median \
         of the runs' ratios, each of two times measured in one run; `runs` is their lowest and highest, and \
         `fastest` the ratio of the two rows' fastest samples in any run. A row without an anchor gives its \
         times' range and its fastest sample.\n\n\
         | benchmark | emq-id | anchor | anchor time | anchor ÷ emq-id | runs | fastest |\n\
         |---|---|---|---|---|---|---|\n",
        runs.len()
    );
    let Some(first) = runs.first() else { return out };
    let mut groups: Vec<&str> = first.iter().map(|r| r.group.as_str()).collect();
    groups.dedup();
    for g in groups {
        let in_group: Vec<&Row> = first.iter().filter(|r| r.group == g).collect();
        let ours: Vec<&&Row> = in_group.iter().filter(|r| r.name.starts_with("emq-id") || g == "mint").collect();
        let anchors: Vec<&&Row> = in_group.iter().filter(|r| !r.name.starts_with("emq-id") && g != "mint").collect();
        for o in &ours {
            let label = if g == "mint" { format!("mint: {}", o.name) } else { g.to_string() };
            let o_ns = times(runs, g, &o.name);
            if anchors.is_empty() {
                out.push_str(&format!(
                    "| {label} | {} | – | – | – | {} | {} |\n",
                    show(median(o_ns.clone())),
                    range(&o_ns, show),
                    show(fastest(runs, g, &o.name))
                ));
            }
            for a in &anchors {
                let a_ns = times(runs, g, &a.name);
                let ratios: Vec<f64> = a_ns.iter().zip(&o_ns).map(|(a, o)| a / o).collect();
                out.push_str(&format!(
                    "| {label} | {} | {} | {} | **{:.2}×** | {} | {:.2}× |\n",
                    show(median(o_ns.clone())),
                    a.name,
                    show(median(a_ns)),
                    median(ratios.clone()),
                    range(&ratios, |r| format!("{r:.2}×")),
                    fastest(runs, g, &a.name) / fastest(runs, g, &o.name)
                ));
            }
        }
    }
    out
}
