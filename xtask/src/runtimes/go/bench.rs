//! `cargo xtask bench go`: the Go module's benchmarks (bindings/go/bench, with
//! its anchors from the Go module proxy) and their table for BENCHMARKS.md.

use anyhow::{Context, Result};

use super::go;
use crate::runtimes::c;
use crate::sh_out;

/// One row of the Go table: our benchmark, its same-signature floor (a
/// benchmark in bindings/go/bench/floor.go shaped like our call, its C side
/// doing nothing), and its anchor. A per-item row is one item of a
/// 1,000-item batch call (its anchor runs the same items one by one), so it
/// has no floor: the table says so with – in the floor's columns.
struct GoRow {
    ours: &'static str,
    floor: Option<&'static str>,
    anchor: &'static str,
}

const fn call(ours: &'static str, floor: &'static str, anchor: &'static str) -> GoRow {
    GoRow { ours, floor: Some(floor), anchor }
}

const fn per_item(ours: &'static str, anchor: &'static str) -> GoRow {
    GoRow { ours, floor: None, anchor }
}

const GO_ROWS: &[GoRow] = &[
    call("Hash32", "FloorHash32", "CgoFloor"),
    call("Encode", "FloorEncode", "ULIDString"),
    per_item("EncodeManyPerID", "ULIDStringPerID"),
    call("Parse", "FloorParse", "ULIDParse"),
    per_item("ParseManyPerID", "ULIDParsePerID"),
    per_item("ParseManyIntoPerID", "ULIDParsePerID"),
    call("Slot", "FloorSlot", "RadixClusterSlot"),
    per_item("SlotManyPerKey", "RadixClusterSlotPerKey"),
    call("MinterNext", "FloorMinterNext", "CgoFloor"),
    per_item("MinterNextManyPerID", "CgoFloor"),
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
         the spread is emqid's slowest run over its fastest. The cgo floor is an empty cgo call \
         ({floor:.2} ns); a call's own floor has its signature and does none of the work.\n\n\
         | Go call | emqid | spread | − cgo floor | its floor | ÷ its floor | − its floor | anchor | anchor time | anchor ÷ emqid |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in GO_ROWS {
        let (Some(o), Some(a)) = (median(row.ours), median(row.anchor)) else { continue };
        let all = runs(row.ours);
        let spread = all.last().zip(all.first()).map_or(1.0, |(max, min)| max / min);
        let dash = || "–".to_string();
        let (over_cgo, own, times, over_own) = match row.floor.and_then(median) {
            Some(f) => (
                format!("{:+.2} ns", o - floor),
                format!("{f:.2} ns"),
                format!("{:.2}×", o / f),
                format!("{:+.2} ns", o - f),
            ),
            None => (dash(), dash(), dash(), dash()),
        };
        t.push_str(&format!(
            "| {} | {o:.2} ns | {spread:.2}× | {over_cgo} | {own} | {times} | {over_own} | {} | {a:.2} ns | **{:.2}×** |\n",
            row.ours,
            row.anchor,
            a / o
        ));
    }
    crate::bench::record("go", &t)
}
