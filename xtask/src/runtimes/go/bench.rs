//! `cargo xtask bench go`: the Go module's benchmarks (bindings/go/bench, with
//! its anchors from the Go module proxy) on both backends, and their tables
//! for the performance page: the cgo backend beside its floors and anchors,
//! then the default backend (the core translated to Go by wasm2go) beside the
//! cgo backend of the same run and the pure-Go anchors, both on every core at
//! once, and what the default backend costs a program that starts, builds and
//! ships it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};

use super::{go, go_with, Backend};
use crate::bench::record::{bounds, median};
use crate::runtimes::c;
use crate::{root, sh_out};

/// One call of the Go tables: our benchmark, its same-signature floor (a
/// benchmark in bindings/go/bench/floor.go shaped like our call, its C side
/// doing nothing) and its anchors, the first of them the cgo table's. A
/// per-item row is one item of a 64-item batch call (its anchors run the same
/// items one call each), so it has no floor: the table says so with – in the
/// floor's columns.
struct GoRow {
    ours: &'static str,
    floor: Option<&'static str>,
    anchors: &'static [&'static str],
}

const fn call(ours: &'static str, floor: &'static str, anchors: &'static [&'static str]) -> GoRow {
    GoRow { ours, floor: Some(floor), anchors }
}

const fn per_item(ours: &'static str, anchors: &'static [&'static str]) -> GoRow {
    GoRow { ours, floor: None, anchors }
}

/// The anchors of the text codec: oklog/ulid, and the pure-Go floor
/// (bindings/go/bench/purego.go: the decoder and encoder a Go user would write).
const PARSE_ANCHORS: &[&str] = &["ULIDParse", "PureGoParse"];
const ENCODE_ANCHORS: &[&str] = &["ULIDString", "PureGoEncode"];
const SLOT_ANCHORS: &[&str] = &["RadixClusterSlot"];
/// A minter has no anchor: the cgo table reads it beside the empty cgo call.
const NO_ANCHOR: &[&str] = &[];

const GO_ROWS: &[GoRow] = &[
    call("Hash32", "FloorHash32", &["PureGoHash32"]),
    call("Encode", "FloorEncode", ENCODE_ANCHORS),
    per_item("EncodeManyPerID", ENCODE_ANCHORS),
    call("Parse", "FloorParse", PARSE_ANCHORS),
    per_item("ParseManyPerID", PARSE_ANCHORS),
    per_item("ParseManyIntoPerID", PARSE_ANCHORS),
    call("Slot", "FloorSlot", SLOT_ANCHORS),
    per_item("SlotManyPerKey", SLOT_ANCHORS),
    call("MinterNext", "FloorMinterNext", NO_ANCHOR),
    per_item("MinterNextManyPerID", NO_ANCHOR),
];

/// The calls timed on every core at once (`b.RunParallel`), each beside its
/// single-goroutine benchmark.
const PARALLEL: &[&str] = &["Parse", "PureGoParse", "Slot", "RadixClusterSlot"];

/// The calls whose allocations the issue sets (-benchmem), with the count each should make.
const ALLOCS: &[(&str, f64)] = &[("Parse", 0.0), ("Encode", 1.0), ("Slot", 0.0)];

/// How many times the benchmarks run: cgo calls on a shared VM move by a
/// third from one run to the next, so every figure is a median over these
/// runs, and a difference or ratio is taken within each run before its median.
const RUNS: usize = 5;

/// One backend's output of every run.
type Runs = Vec<String>;

/// `cargo xtask bench go`: the Go benchmarks on both backends, each call beside
/// the empty cgo call, its own same-signature floor and its anchors; then the
/// default backend's start-up and build costs.
pub fn run() -> Result<()> {
    c::build::library()?;
    let (mut cgo, mut default) = (Runs::new(), Runs::new());
    for _ in 0..RUNS {
        let bench = ["test", "-run", "^$", "-bench", ".", "-benchtime", "500ms", "-benchmem"];
        let out = sh_out(go("bindings/go/bench").args(bench))?;
        eprint!("{out}");
        cgo.push(out);
        // The default backend; cgo stays on for the floors' empty C functions, without the tag.
        let out = sh_out(go_with("bindings/go/bench", Backend::Wasm).env("CGO_ENABLED", "1").args(bench))?;
        eprint!("{out}");
        default.push(out);
    }
    let mut t = cgo_table(&cgo)?;
    t.push_str(&default_table(&default, &cgo)?);
    t.push_str(&parallel_table(&default, &cgo)?);
    t.push_str(&allocations(&default, &cgo)?);
    t.push_str(&startup()?);
    crate::bench::record::write("go", &t)
}

/// One benchmark's figure in `unit` (`ns/op`, `allocs/op`) in every run: an
/// error if a run lacks it.
fn metric(runs: &[String], name: &str, unit: &str) -> Result<Vec<f64>> {
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
                    f.iter().position(|x| *x == unit).and_then(|i| f[i - 1].parse().ok())
                })
                .with_context(|| format!("a run of the Go benchmarks printed no {name} {unit}"))
        })
        .collect()
}

fn ns(runs: &[String], name: &str) -> Result<Vec<f64>> {
    metric(runs, name, "ns/op")
}

/// The median over the runs of f(a, b), each run's a and b measured in it.
fn paired(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64) -> f64 {
    median(a.iter().zip(b).map(|(a, b)| f(*a, *b)).collect())
}

/// f(a, b) over the runs, each run's a and b measured in it: its median, then
/// its lowest and highest.
fn ratios(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64) -> (f64, f64, f64) {
    let each: Vec<f64> = a.iter().zip(b).map(|(a, b)| f(*a, *b)).collect();
    let (lo, hi) = bounds(&each);
    (median(each), lo, hi)
}

/// f of the two benchmarks' fastest samples over all runs: a ratio the
/// machine's slow moments disturb least.
fn fastest(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64) -> f64 {
    f(bounds(a).0, bounds(b).0)
}

/// The cgo backend's table: each call beside the empty cgo call, its own
/// same-signature floor and its first anchor.
fn cgo_table(runs: &[String]) -> Result<String> {
    let cgo = ns(runs, "CgoFloor")?;
    let mut t = format!(
        "Each figure the median of {RUNS} runs (`go test -bench . -benchtime 500ms -benchmem`, run {RUNS} times); \
         a difference or ratio is taken within each run, then its median. Every benchmark goes over the same 64 \
         inputs, one call per item (a `Many` row: one call over all 64, per item), so every time is per item. \
         The spread is the cgo backend's slowest run over its fastest. The cgo floor is an empty cgo call ({:.2} ns); \
         a call's own floor has its signature and does none of the work.\n\n\
         | Go call | cgo backend | spread | − cgo floor | its floor | ÷ its floor | − its floor (runs) | anchor | anchor time | anchor ÷ cgo backend |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        median(cgo.clone())
    );
    for row in GO_ROWS {
        let anchor = row.anchors.first().copied().unwrap_or("CgoFloor");
        let (o, a) = (ns(runs, row.ours)?, ns(runs, anchor)?);
        let (fastest, slowest) = bounds(&o);
        let spread = slowest / fastest;
        let dash = || "–".to_string();
        let (over_cgo, own, times, over_own) = match row.floor {
            Some(floor) => {
                let f = ns(runs, floor)?;
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
            "| {} | {:.2} ns | {spread:.2}× | {over_cgo} | {own} | {times} | {over_own} | {anchor} | {:.2} ns | **{:.2}×** |\n",
            row.ours,
            median(o.clone()),
            median(a.clone()),
            paired(&a, &o, |a, o| a / o)
        ));
    }
    Ok(t)
}

/// The default backend's table: each call beside the cgo backend of the same
/// run and each of its anchors, a row per anchor.
fn default_table(runs: &[String], cgo_runs: &[String]) -> Result<String> {
    let mut t = format!(
        "\n**The default backend** (no cgo: the core translated to Go by wasm2go), in the same {RUNS} runs, \
         each run of it right after the cgo run it is paired with. `÷ cgo backend` is its time over the cgo \
         backend's (below 1×, the default backend is faster); `anchor ÷ default backend` is the median of the \
         runs' ratios, `runs` their lowest and highest, and `fastest` the ratio of the two benchmarks' fastest \
         samples. The pure-Go floors (bindings/go/bench/purego.go) are the decoder, encoder and hash a Go user \
         would write, checked against emqid by a test.\n\n\
         | Go call | default backend | spread | allocs/op | ÷ cgo backend | fastest | anchor | anchor time | anchor ÷ default backend | runs | fastest |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for row in GO_ROWS {
        let (w, o) = (ns(runs, row.ours)?, ns(cgo_runs, row.ours)?);
        let allocs = median(metric(runs, row.ours, "allocs/op")?);
        let (lo, hi) = bounds(&w);
        let ours = format!(
            "| {} | {:.2} ns | {:.2}× | {allocs} | {:.2}× | {:.2}× |",
            row.ours,
            median(w.clone()),
            hi / lo,
            paired(&w, &o, |w, o| w / o),
            fastest(&w, &o, |w, o| w / o)
        );
        if row.anchors.is_empty() {
            t.push_str(&format!("{ours} – | – | – | – | – |\n"));
        }
        for anchor in row.anchors {
            let a = ns(runs, anchor)?;
            let (mid, lo, hi) = ratios(&a, &w, |a, w| a / w);
            t.push_str(&format!(
                "{ours} {anchor} | {:.2} ns | **{mid:.2}×** | {lo:.2}×–{hi:.2}× | {:.2}× |\n",
                median(a.clone()),
                fastest(&a, &w, |a, w| a / w)
            ));
        }
    }
    Ok(t)
}

/// Each call on every core at once beside itself on one goroutine, on each
/// backend: how much more work the cores get through together.
fn parallel_table(default: &[String], cgo: &[String]) -> Result<String> {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut t = format!(
        "\nOn {cores} cores at once (`b.RunParallel`, one goroutine per core) against one goroutine: ns per call \
         is wall time over all the calls, so `throughput ÷ one goroutine's` is the single goroutine's ns over the \
         parallel run's (the median of the runs' ratios; {cores}× is every core doing a goroutine's work). The \
         pure-Go anchors are the same in both builds; they are read from the default backend's runs.\n\n\
         | Go call | backend | one goroutine | {cores} goroutines | throughput ÷ one goroutine's | fastest |\n\
         |---|---|---|---|---|---|\n"
    );
    for name in PARALLEL {
        let ours = GO_ROWS.iter().any(|r| r.ours == *name);
        let backends: &[(&str, &[String])] =
            if ours { &[("default", default), ("cgo", cgo)] } else { &[("pure Go", default)] };
        for (backend, runs) in backends {
            let (one, all) = (ns(runs, name)?, ns(runs, &format!("{name}Parallel"))?);
            t.push_str(&format!(
                "| {name} | {backend} | {:.2} ns | {:.2} ns | {:.2}× | {:.2}× |\n",
                median(one.clone()),
                median(all.clone()),
                paired(&one, &all, |one, all| one / all),
                fastest(&one, &all, |one, all| one / all)
            ));
        }
    }
    Ok(t)
}

/// The allocations per call the issue sets, as `-benchmem` counted them.
fn allocations(default: &[String], cgo: &[String]) -> Result<String> {
    let mut said = vec![];
    for (name, goal) in ALLOCS {
        let (d, c) = (median(metric(default, name, "allocs/op")?), median(metric(cgo, name, "allocs/op")?));
        let verdict = if d <= *goal { "met" } else { "**not met**" };
        said.push(format!("{name} {d} on the default backend, {c} on cgo (goal {goal}: {verdict})"));
    }
    Ok(format!("\nAllocations per call (`-benchmem`, the median of the runs): {}.\n", said.join("; ")))
}

/// A program whose first act is `emqid.Parse`, timing it; and the second Parse
/// after two collections have emptied the pool of instances (sync.Pool drops
/// its victim cache at the second): each P's instance at hand outlives them.
const STARTUP_MAIN: &str = r#"package main

import (
	"fmt"
	"runtime"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
)

func main() {
	start := time.Now()
	if _, err := emqid.Parse("JOB0KHTOWnGLuC"); err != nil {
		panic(err)
	}
	first := time.Since(start)
	runtime.GC()
	runtime.GC()
	start = time.Now()
	if _, err := emqid.Parse("JOB0KHTOWnGLuC"); err != nil {
		panic(err)
	}
	fresh := time.Since(start)
	fmt.Println(first.Nanoseconds(), fresh.Nanoseconds())
}
"#;

/// What the startup program is measured against: the same build of a program
/// without emqid.
const HELLO_MAIN: &str = r#"package main

import "fmt"

func main() { fmt.Println("hello") }
"#;

/// How many fresh processes the start-up figures are the median of.
const STARTS: usize = 10;

/// What the default backend costs before its first answer: the package's init
/// (its self-check, which makes the first instances) and the first Parse, in
/// fresh processes; a cold build with an empty build cache; and the binary's
/// growth over a hello-world built the same way. Apart from the benchmarks, so
/// a quick run can leave it out.
fn startup() -> Result<String> {
    let dir = root().join("target/go-startup");
    crate::mkdir(dir.join("hello"))?;
    crate::write(
        dir.join("go.mod"),
        format!(
            "module emqid-startup\n\ngo 1.22\n\nrequire github.com/echomq/emq-id/bindings/go v0.0.0\n\n\
             replace github.com/echomq/emq-id/bindings/go => {}\n",
            root().join("bindings/go").display()
        ),
    )?;
    crate::write(dir.join("main.go"), STARTUP_MAIN)?;
    crate::write(dir.join("hello/main.go"), HELLO_MAIN)?;
    let (hello_s, hello_bytes) = cold_build(&dir, "./hello", "hello")?;
    let (startup_s, startup_bytes) = cold_build(&dir, ".", "startup")?;
    anyhow::ensure!(hello_bytes > 100_000, "the hello-world binary is {hello_bytes} bytes: not a Go program");

    let (mut init_ms, mut first_ns, mut fresh_ns) = (vec![], vec![], vec![]);
    for _ in 0..STARTS {
        let out = Command::new(dir.join("bin/startup"))
            .env("GODEBUG", "inittrace=1")
            .output()
            .context("running target/go-startup/startup")?;
        anyhow::ensure!(
            out.status.success(),
            "target/go-startup/startup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut times = stdout.split_whitespace().map(str::parse::<f64>);
        let (Some(Ok(first)), Some(Ok(fresh))) = (times.next(), times.next()) else {
            anyhow::bail!("target/go-startup/startup printed {stdout:?}, not two times");
        };
        first_ns.push(first);
        fresh_ns.push(fresh);
        init_ms.push(emqid_init_ms(&String::from_utf8_lossy(&out.stderr)));
    }
    let (new_ns, new_bytes) = new_instance()?;
    let mb = |bytes: u64| bytes as f64 / 1e6;
    let growth = mb(startup_bytes) - mb(hello_bytes);
    Ok(format!(
        "\nStart-up of the default backend, the median of {STARTS} fresh processes (target/go-startup): the emqid \
         packages' init, whose self-check makes the first instances, {:.2} ms (`GODEBUG=inittrace=1`); then the \
         first `emqid.Parse` {:.1} µs; a Parse after two collections (they empty the pool; each P keeps the \
         instance it has at hand) {:.1} µs. Making an instance, what a call pays when its P has none at hand \
         and the pool is empty (`go test -bench NewInstance ./internal/wasmcore`, the median of 5): {:.1} µs and \
         {:.0} KB. A cold `go build` (empty GOCACHE, `CGO_ENABLED=0`) of that program takes {:.1} s, \
         against {:.1} s for a hello-world; its binary is {:.1} MB, {:+.1} MB over the hello-world's {:.1} MB \
         (goal ≤ 3 MB: {}).\n",
        median(init_ms),
        median(first_ns) / 1e3,
        median(fresh_ns) / 1e3,
        new_ns / 1e3,
        new_bytes / 1e3,
        startup_s,
        hello_s,
        mb(startup_bytes),
        growth,
        mb(hello_bytes),
        if growth <= 3.0 { "met" } else { "**not met**" }
    ))
}

/// Builds `package` in `dir` as bin/`output` (apart from the sources: `go build -o` into a
/// directory's name writes into the directory) with a fresh, empty build cache and
/// the default backend: seconds taken and the binary's size.
fn cold_build(dir: &Path, package: &str, output: &str) -> Result<(f64, u64)> {
    let cache = dir.join(format!("gocache-{output}"));
    if cache.exists() {
        std::fs::remove_dir_all(&cache).with_context(|| format!("removing {}", cache.display()))?;
    }
    let start = Instant::now();
    sh_out(go_with("target/go-startup", Backend::Wasm).env("GOCACHE", &cache).env("GOFLAGS", "-mod=mod").args([
        "build",
        "-o",
        &format!("bin/{output}"),
        package,
    ]))?;
    let seconds = start.elapsed().as_secs_f64();
    let bytes =
        std::fs::metadata(dir.join("bin").join(output)).with_context(|| format!("{output} was not built"))?.len();
    Ok((seconds, bytes))
}

/// The init time of the emqid packages (the binding and its internal
/// packages) in a `GODEBUG=inittrace=1` trace: lines `init PACKAGE @T ms, N
/// ms clock, …`, summed.
fn emqid_init_ms(trace: &str) -> f64 {
    trace
        .lines()
        .filter_map(|l| l.strip_prefix("init github.com/echomq/emq-id/bindings/go"))
        .filter_map(|rest| rest.split(", ").nth(1)?.strip_suffix(" ms clock")?.parse::<f64>().ok())
        .sum()
}

/// What making one instance of the core costs (ns and bytes allocated): the
/// median of `BenchmarkNewInstance` over five counts.
fn new_instance() -> Result<(f64, f64)> {
    let out = sh_out(go_with("bindings/go", Backend::Wasm).args([
        "test",
        "-run",
        "^$",
        "-bench",
        "NewInstance",
        "-benchmem",
        "-count",
        "5",
        "./internal/wasmcore",
    ]))?;
    let (mut ns, mut bytes) = (vec![], vec![]);
    for line in out.lines().filter(|line| line.starts_with("BenchmarkNewInstance")) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let before =
            |unit: &str| fields.iter().position(|f| *f == unit).and_then(|i| fields[i - 1].parse::<f64>().ok());
        if let (Some(n), Some(b)) = (before("ns/op"), before("B/op")) {
            ns.push(n);
            bytes.push(b);
        }
    }
    anyhow::ensure!(!ns.is_empty(), "BenchmarkNewInstance printed no result: {out}");
    Ok((median(ns), median(bytes)))
}
