//! `cargo xtask bench go`: the Go module's benchmarks (bindings/go/bench, with
//! its anchors from the Go module proxy) and their table for BENCHMARKS.md.

use anyhow::{Context, Result};

use super::go;
use crate::runtimes::c;
use crate::sh_out;

/// The Go benchmarks and the pairs they are read in: (ours, anchor, per item).
/// A per-item row is one item of a 1,000-item batch call (its anchor runs the
/// same items one by one), so its distance from the cgo floor means nothing:
/// the table says so with – in both of the floor's columns.
const GO_PAIRS: &[(&str, &str, bool)] = &[
    ("Hash32", "CgoFloor", false),
    ("Encode", "ULIDString", false),
    ("EncodeManyPerID", "ULIDStringPerID", true),
    ("Parse", "ULIDParse", false),
    ("ParseManyPerID", "ULIDParsePerID", true),
    ("ParseManyIntoPerID", "ULIDParsePerID", true),
    ("Slot", "RadixClusterSlot", false),
    ("SlotManyPerKey", "RadixClusterSlotPerKey", true),
    ("MinterNext", "CgoFloor", false),
    ("MinterNextManyPerID", "CgoFloor", true),
];

/// How many times each benchmark runs: cgo calls on a shared VM move by a
/// third from one run to the next, so every figure is the median of these.
const COUNT: usize = 5;

/// `cargo xtask bench go`: the Go benchmarks, each beside the cgo floor and its anchor.
pub fn run() -> Result<()> {
    c::build::library()?;
    let count = COUNT.to_string();
    let out = sh_out(go("bindings/go/bench").args([
        "test",
        "-run",
        "^$",
        "-bench",
        ".",
        "-benchtime",
        "500ms",
        "-count",
        &count,
    ]))?;
    eprint!("{out}");
    // Every run's ns/op of one benchmark, sorted.
    let runs = |name: &str| -> Vec<f64> {
        let mut ns: Vec<f64> = out
            .lines()
            .filter(|l| l.starts_with(&format!("Benchmark{name}-")))
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.iter().position(|x| *x == "ns/op").and_then(|i| f[i - 1].parse().ok())
            })
            .collect();
        ns.sort_by(f64::total_cmp);
        ns
    };
    let median = |name: &str| -> Option<f64> {
        let ns = runs(name);
        ns.get(ns.len() / 2).copied()
    };
    let floor = median("CgoFloor").context("the Go benchmarks printed no CgoFloor result")?;
    let mut t = format!(
        "Each figure the median of {COUNT} runs (`go test -bench . -benchtime 500ms -count {COUNT}`); \
         the spread is emqid's slowest run over its fastest.\n\n\
         | Go call | emqid | spread | ÷ cgo floor | − cgo floor | anchor | anchor time | anchor ÷ emqid |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for &(ours, anchor, per_item) in GO_PAIRS {
        let (Some(o), Some(a)) = (median(ours), median(anchor)) else { continue };
        let all = runs(ours);
        let spread = all.last().zip(all.first()).map_or(1.0, |(max, min)| max / min);
        let (times, over) = match per_item {
            true => ("–".to_string(), "–".to_string()),
            false => (format!("{:.2}×", o / floor), format!("{:+.2} ns", o - floor)),
        };
        t.push_str(&format!(
            "| {ours} | {o:.2} ns | {spread:.2}× | {times} | {over} | {anchor} | {a:.2} ns | **{:.2}×** |\n",
            a / o
        ));
    }
    crate::bench::record("go", &t)
}
