//! `cargo xtask <task>`; see `cargo xtask help`.

use std::path::PathBuf;
use std::process::ExitCode;

use xtask::{conformance, load, root, targets, vectors};

const HELP: &str = "\
cargo xtask <task>

Tasks:
  vectors [--check]           regenerate vectors/emq-id.json from the core
                              (--check: fail when the committed file differs)
  conformance [--target NAME]... [--vectors PATH]
                              run each target's adapter over every case of the
                              vector file and print the matrix (default: every target)
  header [--check]            regenerate bindings/c/include/emq_id.h with cbindgen
                              (--check: fail when the committed header differs)
  parity [--check] [--surfaces]
                              the operation x runtime table: fails when a runtime lacks
                              an operation that xtask/parity/exclusions.txt does not excuse;
                              writes it into ARCHITECTURE.md (--check: fail when stale;
                              --surfaces: print every runtime's extracted surface)
  js [--check]                copy the shared JavaScript layer (bindings/js) into both
                              npm packages (--check: fail when a package's copy differs)
  pg-tests                    the PostgreSQL extension's tests on a live server
  colocation                  start a live 3-primary Valkey Cluster and prove that
                              every queue's keys route to one node with no redirect
  node-build                  build the Node package: the addon, its WebAssembly fallback
                              and its copy of the shared JavaScript layer
  wasm-build                  build the WASM package (cargo, wasm-bindgen, wasm-opt)
                              and print the .wasm size, raw and gzipped
  targets                     list the conformance targets
                              (`--target wasm` runs wasm-node and wasm-browser)
  test                        the whole test suite (what .ci/run runs)
  bench [TARGET]...           run benchmarks (core, go, node, elixir, postgres; default: all)
                              and print the tables for BENCHMARKS.md (ratios against the anchors)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("vectors") => vectors_task(args.iter().any(|a| a == "--check")),
        Some("conformance") => conformance_task(&args[1..]),
        Some("bench") => xtask::bench::run(&args[1..]),
        Some("colocation") => xtask::valkey::colocation(),
        Some("pg-tests") => xtask::pg_checks::live_tests(),
        Some("node-build") => xtask::node::build(),
        Some("wasm-build") => xtask::wasm::build_task(),
        Some("parity") => {
            xtask::parity::run(args.iter().any(|a| a == "--check"), args.iter().any(|a| a == "--surfaces"))
        }
        Some("js") => xtask::js::sync(args.iter().any(|a| a == "--check")),
        Some("header") => xtask::header::run(args.iter().any(|a| a == "--check")),
        Some("test") => xtask::suite::run(),
        Some("targets") => {
            for t in targets::TARGETS {
                println!("{:10} {}", t.name, t.about);
            }
            Ok(())
        }
        Some("help" | "--help" | "-h") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task {other:?}\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the vector file, or checks that the committed one is what the core generates.
fn vectors_task(check: bool) -> Result<(), String> {
    let path = root().join(vectors::PATH);
    let fresh = vectors::render(&vectors::generate());
    if check {
        let committed = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if committed != fresh {
            return Err(format!("{} differs from what the core generates: run `cargo xtask vectors`", vectors::PATH));
        }
        println!("{} is what the core generates", vectors::PATH);
    } else {
        std::fs::write(&path, fresh).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", vectors::PATH);
    }
    Ok(())
}

/// Runs the selected targets over a vector file and prints the matrix; with
/// `--negative-control`, also proves each target fails on a file with one wrong value.
fn conformance_task(args: &[String]) -> Result<(), String> {
    let mut names = vec![];
    let mut path = root().join(vectors::PATH);
    let mut negative = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--target" => names.push(it.next().ok_or("--target needs a name")?.clone()),
            "--vectors" => path = PathBuf::from(it.next().ok_or("--vectors needs a path")?),
            "--negative-control" => negative = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let selected: Vec<&targets::Target> = if names.is_empty() {
        targets::TARGETS.iter().collect()
    } else {
        let mut picked = vec![];
        for n in &names {
            let expanded = targets::expand(n);
            if expanded.is_empty() {
                return Err(format!("unknown target {n:?} (see cargo xtask targets)"));
            }
            picked.extend(expanded.into_iter().filter_map(targets::find));
        }
        picked
    };
    let file = load(&path)?;
    println!("vector file: {}", path.display());
    let mut outcomes = vec![];
    let mut controls = vec![];
    for target in selected {
        eprintln!("== {}: {}", target.name, target.about);
        let outcome = match (target.prepare)() {
            Ok(mut adapter) => {
                let outcome = conformance::run_file(target, adapter.as_mut(), &file)?;
                if negative {
                    controls.extend(conformance::negative_controls(target, adapter.as_mut(), &file)?);
                }
                outcome
            }
            Err(e) => conformance::Outcome::broken(target.name, e),
        };
        outcomes.push(outcome);
    }
    print!("{}", conformance::render(&outcomes));
    let mut ok = outcomes.iter().all(conformance::Outcome::passed);
    if negative {
        println!("\nnegative controls (a file with one wrong value must fail the target):");
        for (line, failed_as_expected) in &controls {
            println!("  {line}");
            ok &= failed_as_expected;
        }
    }
    if ok {
        println!("conformance: every check of every target passed");
        Ok(())
    } else {
        Err("conformance failed".into())
    }
}
