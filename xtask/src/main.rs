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
  targets                     list the conformance targets
  test                        the whole test suite (what .ci/run runs)
  bench                       run the core's benchmarks and print the table
                              for BENCHMARKS.md (ratios against the anchors)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("vectors") => vectors_task(args.iter().any(|a| a == "--check")),
        Some("conformance") => conformance_task(&args[1..]),
        Some("bench") => xtask::bench::run(),
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
        let committed =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if committed != fresh {
            return Err(format!(
                "{} differs from what the core generates: run `cargo xtask vectors`",
                vectors::PATH
            ));
        }
        println!("{} is what the core generates", vectors::PATH);
    } else {
        std::fs::write(&path, fresh).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", vectors::PATH);
    }
    Ok(())
}

/// Runs the selected targets over a vector file and prints the matrix.
fn conformance_task(args: &[String]) -> Result<(), String> {
    let mut names = vec![];
    let mut path = root().join(vectors::PATH);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--target" => names.push(it.next().ok_or("--target needs a name")?.clone()),
            "--vectors" => path = PathBuf::from(it.next().ok_or("--vectors needs a path")?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let selected: Vec<&targets::Target> = if names.is_empty() {
        targets::TARGETS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                targets::find(n).ok_or(format!("unknown target {n:?} (see cargo xtask targets)"))
            })
            .collect::<Result<_, _>>()?
    };
    let file = load(&path)?;
    let checks = conformance::cases::checks(&file)?;
    println!("vector file: {} ({} checks)", path.display(), checks.len());
    let mut outcomes = vec![];
    for target in selected {
        eprintln!("== {}: {}", target.name, target.about);
        let outcome = match (target.prepare)() {
            Ok(mut adapter) => conformance::run_target(target.name, adapter.as_mut(), &checks),
            Err(e) => conformance::Outcome {
                target: target.name.into(),
                tally: Default::default(),
                mismatches: vec![],
                failed_checks: 0,
                broken: Some(e),
            },
        };
        outcomes.push(outcome);
    }
    print!("{}", conformance::render(&outcomes));
    if outcomes.iter().all(conformance::Outcome::passed) {
        println!("conformance: every check of every target passed");
        Ok(())
    } else {
        Err("conformance failed".into())
    }
}
