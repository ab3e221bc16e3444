//! `cargo xtask bench go`: the Go module's benchmarks (bindings/go/bench, with
//! its anchors from the Go module proxy) and their table for BENCHMARKS.md.

use anyhow::{Context, Result};

use super::go;
use crate::runtimes::c;
use crate::sh_out;

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

/// `cargo xtask bench go`: the Go benchmarks, each beside the cgo floor and its anchor.
pub fn run() -> Result<()> {
    c::build::library()?;
    let out = sh_out(go("bindings/go/bench").args(["test", "-run", "^$", "-bench", ".", "-benchtime", "1s"]))?;
    eprint!("{out}");
    let ns = |name: &str| -> Option<f64> {
        out.lines().find(|l| l.starts_with(&format!("Benchmark{name}-"))).and_then(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.iter().position(|x| *x == "ns/op").and_then(|i| f[i - 1].parse().ok())
        })
    };
    let floor = ns("CgoFloor").context("the Go benchmarks printed no CgoFloor result")?;
    let mut t = String::from(
        "| Go call | emqid | ÷ cgo floor | anchor | anchor time | anchor ÷ emqid |\n|---|---|---|---|---|---|\n",
    );
    for (ours, anchor) in GO_PAIRS {
        let (Some(o), Some(a)) = (ns(ours), ns(anchor)) else { continue };
        t.push_str(&format!("| {ours} | {o:.2} ns | {:.2}× | {anchor} | {a:.2} ns | **{:.2}×** |\n", o / floor, a / o));
    }
    crate::bench::record("go", &t)
}
