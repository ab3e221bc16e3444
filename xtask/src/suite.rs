//! `cargo xtask test`: every check of the workspace, in one command that
//! works the same on a laptop and in `.ci/run`. Each step runs even when an
//! earlier one failed, so one run shows every problem.

use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Result};

use crate::runtimes::{c, elixir, go, jvm, node, postgres, python, valkey, wasm};
use crate::sh;
use crate::tree::readme;

type Step = (&'static str, fn() -> Result<()>);

/// The features that only `cargo xtask bench` builds: the floors it measures
/// calls against, kept out of every package.
const BENCH_FEATURES: &str = "emq-id-node/bench,emq-id-python/bench,emq-id-elixir/bench,emq-id-jvm/bench";

const STEPS: &[Step] = &[
    ("format", || sh(Command::new("cargo").args(["fmt", "--all", "--check"]))),
    ("clippy (and again with the benchmark-only features, which no release build enables)", || {
        sh(Command::new("cargo").args(["clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"]))?;
        sh(Command::new("cargo").args(["clippy", "--workspace", "--all-targets", "--quiet", "--features"]).args([
            BENCH_FEATURES,
            "--",
            "-D",
            "warnings",
        ]))
    }),
    ("clippy of the WASM crate for wasm32 (its scratch buffer, allocator and panic handler exist only there)", || {
        crate::runtimes::wasm::setup::tools()?;
        sh(Command::new("cargo").args([
            "clippy",
            "--quiet",
            "-p",
            "emq-id-wasm",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ]))
    }),
    ("rustdoc of the core, warnings denied (every public item documented, links resolve)", || {
        sh(Command::new("cargo")
            .args(["doc", "--quiet", "-p", "emq-id", "--no-deps", "--features", "std"])
            .env("RUSTDOCFLAGS", "-D warnings"))
    }),
    ("cargo test (unit, property, doc, CLI, vector file, negative controls)", || {
        sh(Command::new("cargo").args(["test", "--workspace"]))
    }),
    ("one node, one mint state: the CLI's sibling processes, with their counts", || {
        sh(Command::new("cargo").args(["test", "--quiet", "-p", "emq-id-cli", "--test", "nodes", "--", "--nocapture"]))
    }),
    ("cargo test of the core's compact build (what wasm32 compiles)", || {
        sh(Command::new("cargo").args(["test", "-p", "emq-id", "--features", "compact"]))
    }),
    ("vectors --check", || sh(Command::new("cargo").args(["xtask", "vectors", "--check"]))),
    ("C header --check", || sh(Command::new("cargo").args(["xtask", "header", "--check"]))),
    ("C ABI tests under valgrind, drop-in host", c::tests::run),
    ("Go: vet, test -race", go::tests::run),
    ("the book's examples in C, Go, Node, Elixir, Python and Java, compiled and run", readme::examples),
    ("README and book shell transcripts, run and compared with what they print", crate::tree::transcripts::readme),
    (
        "docs: the book and every API reference built (warnings denied), every link resolved, screenshots (cargo xtask docs)",
        crate::tree::docs::suite,
    ),
    ("Node: node --test", node::tests::run),
    ("WASM: node --test, the browser driver", wasm::tests::run),
    ("JS: one layer for both packages (copies --check), one API over every backend", || {
        node::build::package()?;
        sh(Command::new("cargo").args(["xtask", "js", "--check"]))?;
        // fast-check, for the property tests (a dev dependency of the tests alone).
        let js = crate::root().join("bindings/js");
        if !js.join("node_modules/fast-check").exists() {
            sh(node::npm(&js).arg("ci"))?;
        }
        sh(Command::new("node").current_dir(&js).args(["--test", "test/"]))
    }),
    ("API parity: every operation in every runtime, or reasoned (--check)", || {
        sh(Command::new("cargo").args(["xtask", "parity", "--check"]))
    }),
    ("Elixir: mix format --check-formatted, mix test (ExUnit and doctests)", elixir::tests::run),
    ("Python: pytest, mypy --strict, stubtest (its packages are proven in the dist step)", python::tests::run),
    (
        "JVM: mvn test on JDK 17 and on Temurin 25 (JUnit; one node across a JVM and the CLI; its packages are proven in the dist step)",
        jvm::tests::run,
    ),
    ("PostgreSQL extension: fmt --check, clippy -D warnings (its own workspace)", || {
        postgres::setup::prerequisites()?;
        let dir = crate::root().join(postgres::EXTENSION);
        sh(Command::new("cargo").current_dir(&dir).args(["fmt", "--check"]))?;
        sh(Command::new("cargo").current_dir(&dir).args(["clippy", "--all-targets", "--quiet", "--", "-D", "warnings"]))
    }),
    ("PostgreSQL: live server tests", postgres::tests::run),
    ("Valkey Cluster colocation (3 primaries, live)", valkey::colocation::run),
    ("Node leases on live Valkey clusters (emq-lease/3), resharding among them, with their counts", valkey::leases::run),
    (
        "Node leases through failovers: the lossy failover and a one-node cluster; every runtime's holder through the same live tests; the book's lease examples; the chaos fleet and its negative control (cargo xtask chaos)",
        valkey::chaos::run,
    ),
    (
        "dist: every package of every platform built, installed outside the checkout, used, removed (cargo xtask dist-check)",
        || crate::dist::outside(&[]),
    ),
    ("fuzz: every libFuzzer target for 5 s under AddressSanitizer (control first), no crash", crate::fuzz::smoke),
    (
        "conformance --adapter: a minimal port from outside certified, its broken copy refused on the section it breaks",
        crate::conformance::outside::suite,
    ),
    ("conformance, every target, with negative controls", || {
        sh(Command::new("cargo").args(["xtask", "conformance", "--negative-control"]))
    }),
];

/// Every step, or with `--only TEXT` (repeatable) those whose name contains one of the texts.
pub fn run(args: &[String]) -> Result<()> {
    let mut only = vec![];
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match (arg.as_str(), it.next()) {
            ("--only", Some(text)) => only.push(text.to_lowercase()),
            _ => bail!("cargo xtask test takes --only TEXT, not {arg:?}"),
        }
    }
    let chosen: Vec<_> = STEPS
        .iter()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|t| name.to_lowercase().contains(t)))
        .collect();
    ensure!(!chosen.is_empty(), "no step's name contains {only:?}");
    let mut failed = vec![];
    for (name, step) in &chosen {
        eprintln!("\n==== {name}");
        let started = Instant::now();
        match step() {
            Ok(()) => eprintln!("==== {name}: ok ({:.1}s)", started.elapsed().as_secs_f64()),
            Err(e) => {
                eprintln!("==== {name}: FAILED: {e:#}");
                failed.push((*name, format!("{e:#}")));
            }
        }
    }
    println!("\nxtask: {} passed, {} failed", chosen.len() - failed.len(), failed.len());
    // Each failure's reason again at the end, where a log cut to its tail still shows it.
    for (name, reason) in &failed {
        println!("xtask: FAILED {name}: {reason}");
    }
    if !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|(name, _)| *name).collect();
        bail!("failed steps: {}", names.join(", "));
    }
    Ok(())
}
