//! `cargo xtask conformance --adapter 'CMD ARGS…'`: certifies a port that is
//! not in this repository. Any program that speaks conformance/PROTOCOL.md
//! (JSON lines in, one answer per request out) is run over the vector file
//! and judged by the same runner as the repository's own targets. A port may
//! leave whole sections out (every request of the section answered
//! `unsupported`): the matrix shows them so, and the port is certified for the
//! sections it implements, each of which must pass completely, and, with
//! `--negative-control`, must fail on a file with one wrong value in it.
//!
//! The suite proves this with `conformance/fixtures/minimal-port/port.py`, a
//! minimal port written apart from the project's code (ids and slots in plain
//! Python): certified, and a copy of it with one constant changed refused, on
//! the section that constant breaks and no other.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, ensure, Result};
use serde_json::Value;

use super::adapter::ProcessAdapter;
use super::{checks_for, mutate, render, run_target, Outcome, Target};
use crate::root;

/// The outside port as a target: every section in scope, nothing to build.
const OUTSIDE: Target = Target::new("adapter", "a port from outside this repository (--adapter)", || {
    bail!("an outside adapter is started by its command, not prepared")
});

/// `command` run by bash (so a user passes it as one string, arguments and all).
fn adapter(command: &str) -> ProcessAdapter {
    let mut cmd = Command::new("bash");
    cmd.args(["-c", command]);
    ProcessAdapter { command: cmd }
}

/// The port's outcome over `file`, and with `negative` one line per
/// implemented section saying whether a file with one wrong value there failed it.
pub fn certify(command: &str, file: &Value, negative: bool) -> Result<(Outcome, Vec<(String, bool)>)> {
    let mut port = adapter(command);
    let mut outcome = run_target(OUTSIDE.name, &mut port, &checks_for(&OUTSIDE, file)?);
    outcome.outside = true;
    // What a left-out section answered is not a finding: keep the mismatches of the others.
    let left_out: Vec<String> = outcome.tally.keys().filter(|s| outcome.left_out(s)).cloned().collect();
    outcome.mismatches.retain(|m| !left_out.iter().any(|s| m.starts_with(&format!("{s}["))));
    let mut controls = vec![];
    if negative && outcome.broken.is_none() {
        for section in mutate::MUTABLE.iter().filter(|s| outcome.tally.contains_key(**s) && !outcome.left_out(s)) {
            let wrong = mutate::one_wrong_value(file, section);
            let checks: Vec<_> = checks_for(&OUTSIDE, &wrong)?.into_iter().filter(|c| c.section == *section).collect();
            let control = run_target(OUTSIDE.name, &mut port, &checks);
            let failed = control.broken.is_none() && control.failed_checks > 0;
            let verdict = if failed { "fails, as it must" } else { "DID NOT FAIL AS IT MUST" };
            controls.push((format!("one wrong value in {section}[0]: {verdict}"), failed));
        }
    }
    Ok((outcome, controls))
}

/// The task: prints the matrix, the sections left out and the verdict.
pub fn run(command: &str, path: &Path, negative: bool) -> Result<()> {
    let file = crate::load(path)?;
    println!("vector file: {}\nadapter: {command}", path.display());
    let (outcome, controls) = certify(command, &file, negative)?;
    print!("{}", render(std::slice::from_ref(&outcome)));
    for (line, _) in &controls {
        println!("  {line}");
    }
    let left_out: Vec<&String> = outcome.tally.keys().filter(|s| outcome.left_out(s)).collect();
    let implemented: Vec<&String> = outcome.tally.keys().filter(|s| !outcome.left_out(s)).collect();
    if !left_out.is_empty() {
        println!("\nnot implemented (every request answered unsupported): {}", join(&left_out));
    }
    ensure!(
        outcome.passed() && controls.iter().all(|(_, ok)| *ok),
        "the adapter is not conformant (see the matrix above)"
    );
    println!("conformant for: {}", join(&implemented));
    Ok(())
}

fn join(sections: &[&String]) -> String {
    sections.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// The suite's proof: the minimal port is certified for ids and slots with
/// every negative control; a copy with CRC16's polynomial changed is refused
/// on the slots and nowhere else.
pub fn suite() -> Result<()> {
    let file = crate::load(&root().join(crate::vectors::PATH))?;
    let fixture = root().join("conformance/fixtures/minimal-port/port.py");
    let (outcome, controls) = certify(&format!("python3 {}", fixture.display()), &file, true)?;
    print!("{}", render(std::slice::from_ref(&outcome)));
    ensure!(outcome.passed(), "the minimal port was not certified");
    ensure!(controls.iter().all(|(_, ok)| *ok), "a negative control of the minimal port did not fail: {controls:?}");
    for section in ["ids", "rejects", "encode_rejects", "slots"] {
        ensure!(
            !outcome.left_out(section),
            "the minimal port implements {section}, but the runner says it left it out"
        );
    }
    ensure!(outcome.left_out("keys"), "the minimal port answers no key, but keys is not shown as left out");

    let source = crate::read(&fixture)?;
    let broken = source.replace("^ 0x1021", "^ 0x1023");
    ensure!(broken != source, "the fixture no longer spells CRC16's polynomial as `^ 0x1021`");
    let copy = root().join("target/conformance-broken-port.py");
    crate::write(&copy, broken)?;
    let (broken, _) = certify(&format!("python3 {}", copy.display()), &file, false)?;
    print!("{}", render(std::slice::from_ref(&broken)));
    let failing: Vec<&String> =
        broken.tally.iter().filter(|(_, (p, t))| p != t).map(|(s, _)| s).filter(|s| !broken.left_out(s)).collect();
    ensure!(
        !broken.passed() && failing == ["slots"],
        "the broken port should fail on slots alone, fails on {failing:?}"
    );
    println!("conformance --adapter: the minimal port is certified for {}; its broken copy fails on slots alone", {
        let implemented: Vec<&String> = outcome.tally.keys().filter(|s| !outcome.left_out(s)).collect();
        join(&implemented)
    });
    Ok(())
}
