//! `cargo xtask bench go`: the Go module's benchmarks (bindings/go/bench, with
//! its anchors from the Go module proxy) on both backends, and their tables
//! for the performance page: the cgo backend beside its floors and anchors, then the
//! default backend (the core as WebAssembly under wazero) beside the cgo
//! backend of the same run and the pure-Go anchors, and what loading the
//! module costs a process.

use anyhow::{Context, Result};

use super::{go, go_with, Backend};
use crate::bench::record::{bounds, median};
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

/// How many times the benchmarks run: cgo calls on a shared VM move by a
/// third from one run to the next, so every figure is a median over these
/// runs, and a difference or ratio is taken within each run before its median.
const RUNS: usize = 5;

/// `cargo xtask bench go`: the Go benchmarks, each beside the empty cgo call,
/// its own same-signature floor and its anchor.
pub fn run() -> Result<()> {
    c::build::library()?;
    let mut runs = vec![];
    let mut wasm_runs = vec![];
    for _ in 0..RUNS {
        let bench = ["test", "-run", "^$", "-bench", ".", "-benchtime", "500ms"];
        let out = sh_out(go("bindings/go/bench").args(bench))?;
        eprint!("{out}");
        runs.push(out);
        // The default backend; cgo stays on for the floors' empty C functions, without the tag.
        let out = sh_out(go_with("bindings/go/bench", Backend::Wasm).env("CGO_ENABLED", "1").args(bench))?;
        eprint!("{out}");
        wasm_runs.push(out);
    }
    let per_run = |name: &str| ns_per_op(&runs, name);
    let wasm_per_run = |name: &str| ns_per_op(&wasm_runs, name);
    let mut t = cgo_table(&per_run)?;
    t.push_str(&format!(
        "\n**The default backend** (no cgo: the core as WebAssembly, run by wazero), in the same {RUNS} runs, \
         each run of it right after the cgo run it is paired with:\n\n\
         | Go call | WebAssembly backend | spread | ÷ cgo backend | anchor | anchor time | anchor ÷ WebAssembly backend |\n\
         |---|---|---|---|---|---|---|\n"
    ));
    for row in GO_ROWS {
        let (w, o, a) = (wasm_per_run(row.ours)?, per_run(row.ours)?, wasm_per_run(row.anchor)?);
        let (fastest, slowest) = bounds(&w);
        t.push_str(&format!(
            "| {} | {:.2} ns | {:.2}× | {:.2}× | {} | {:.2} ns | **{:.2}×** |\n",
            row.ours,
            median(w.clone()),
            slowest / fastest,
            paired(&w, &o, |w, o| w / o),
            row.anchor,
            median(a.clone()),
            paired(&a, &w, |a, w| a / w)
        ));
    }
    let load = sh_out(go_with("bindings/go", Backend::Wasm).args([
        "test",
        "-run",
        "^$",
        "-bench",
        "Load",
        "-benchtime",
        "10x",
        "./internal/wasmcore",
    ]))?;
    let loads = [load];
    let (compiling, cached) = (ns_per_op(&loads, "LoadCompiling")?[0], ns_per_op(&loads, "LoadCached")?[0]);
    t.push_str(&format!(
        "\nLoading the module, once per process at its first call (`go test -bench Load ./internal/wasmcore`, 10 loads): \
         {:.1} ms compiling it to machine code (a machine's first start), {:.1} ms from wazero's compilation cache \
         in the user's cache directory (every later start).\n",
        compiling / 1e6,
        cached / 1e6
    ));
    crate::bench::record::write("go", &t)
}

/// One benchmark's ns/op in every run: an error if a run lacks it.
fn ns_per_op(runs: &[String], name: &str) -> Result<Vec<f64>> {
    {
        runs.iter()
            .map(|out| {
                // `BenchmarkName-N`, N being GOMAXPROCS; no suffix when it is 1.
                out.lines()
                    .filter(|l| {
                        l.split_whitespace()
                            .next()
                            .and_then(|w| w.strip_prefix("Benchmark"))
                            .map(|w| w.split('-').next() == Some(name))
                            .unwrap_or(false)
                    })
                    .find_map(|l| {
                        let f: Vec<&str> = l.split_whitespace().collect();
                        f.iter().position(|x| *x == "ns/op").and_then(|i| f[i - 1].parse().ok())
                    })
                    .with_context(|| format!("a run of the Go benchmarks printed no {name} result"))
            })
            .collect()
    }
}

/// The median over the runs of f(a, b), each run's a and b measured in it.
fn paired(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64) -> f64 {
    median(a.iter().zip(b).map(|(a, b)| f(*a, *b)).collect())
}

/// The cgo backend's table: each call beside the empty cgo call, its own
/// same-signature floor and its anchor.
fn cgo_table(per_run: &dyn Fn(&str) -> Result<Vec<f64>>) -> Result<String> {
    let cgo = per_run("CgoFloor")?;
    let mut t = format!(
        "Each figure the median of {RUNS} runs (`go test -bench . -benchtime 500ms`, run {RUNS} times); \
         a difference or ratio is taken within each run, then its median. The spread is the cgo backend's slowest \
         run over its fastest. The cgo floor is an empty cgo call ({:.2} ns); a call's own floor has its \
         signature and does none of the work.\n\n\
         | Go call | cgo backend | spread | − cgo floor | its floor | ÷ its floor | − its floor (runs) | anchor | anchor time | anchor ÷ cgo backend |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        median(cgo.clone())
    );
    for row in GO_ROWS {
        let (o, a) = (per_run(row.ours)?, per_run(row.anchor)?);
        let (fastest, slowest) = bounds(&o);
        let spread = slowest / fastest;
        let dash = || "–".to_string();
        let (over_cgo, own, times, over_own) = match row.floor {
            Some(floor) => {
                let f = per_run(floor)?;
                let over: Vec<f64> = o.iter().zip(&f).map(|(o, f)| o - f).collect();
                let (lo, hi) = bounds(&over);
                (
                    format!("{:+.2} ns", paired(&o, &cgo, |o, c| o - c)),
                    format!("{:.2} ns", median(f.clone())),
                    format!("{:.2}×", paired(&o, &f, |o, f| o / f)),
                    format!("{:+.2} ns ({lo:+.1} to {hi:+.1})", median(over)),
                )
            }
            None => (dash(), dash(), dash(), dash()),
        };
        t.push_str(&format!(
            "| {} | {:.2} ns | {spread:.2}× | {over_cgo} | {own} | {times} | {over_own} | {} | {:.2} ns | **{:.2}×** |\n",
            row.ours,
            median(o.clone()),
            row.anchor,
            median(a.clone()),
            paired(&a, &o, |a, o| a / o)
        ));
    }
    Ok(t)
}
