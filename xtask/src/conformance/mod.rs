//! `cargo xtask conformance`: one vector file, every runtime, judged here.
//!
//! The runner turns the file into checks ([`cases`]), hands each target's
//! adapter the requests, and compares every answer with the file. Adapters
//! translate; only this module decides pass or fail. The targets themselves,
//! and their adapters, are in `crate::runtimes`; [`mutate`] makes the negative
//! controls.

pub mod adapter;
pub mod cases;
pub mod mutate;
pub mod outside;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{bail, Result};
use serde_json::Value;

use adapter::Adapter;
use cases::{mismatch, Check, SECTIONS};

/// A runtime the runner can judge: how to reach it and what it covers. The
/// list of them is `crate::runtimes::TARGETS`.
pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// Builds (and installs what is missing), then hands back the adapter.
    pub prepare: fn() -> Result<Box<dyn Adapter>>,
    /// The sections this runtime can answer; `None` is all of them. A target
    /// with a narrower scope shows `-` in the matrix for the others.
    pub scope: Option<&'static [&'static str]>,
    /// The answer fields this runtime can know; `None` is all of them (a
    /// server computes a slot but does not report the hashtag it hashed).
    pub fields: Option<&'static [&'static str]>,
}

impl Target {
    /// A target that answers every section and every field.
    pub const fn new(name: &'static str, about: &'static str, prepare: fn() -> Result<Box<dyn Adapter>>) -> Target {
        Target { name, about, prepare, scope: None, fields: None }
    }

    /// The same target, answering only `sections`.
    pub const fn only(self, sections: &'static [&'static str]) -> Target {
        Target { scope: Some(sections), ..self }
    }

    /// The same target, knowing only `fields` of each answer.
    pub const fn fields(self, fields: &'static [&'static str]) -> Target {
        Target { fields: Some(fields), ..self }
    }

    pub fn covers(&self, section: &str) -> bool {
        self.scope.is_none_or(|s| s.contains(&section))
    }
}

/// `cargo xtask conformance`: runs `targets` over the vector file at `path` and
/// prints the matrix; with `negative`, also proves each target fails on a file
/// with one wrong value.
pub fn run(targets: &[&Target], path: &Path, negative: bool) -> Result<()> {
    let file = crate::load(path)?;
    println!("vector file: {}", path.display());
    let mut outcomes = vec![];
    let mut controls = vec![];
    for target in targets {
        eprintln!("== {}: {}", target.name, target.about);
        let outcome = match (target.prepare)() {
            Ok(mut adapter) => {
                let outcome = run_file(target, adapter.as_mut(), &file)?;
                if negative {
                    controls.extend(negative_controls(target, adapter.as_mut(), &file)?);
                }
                outcome
            }
            Err(e) => Outcome::broken(target.name, format!("{e:#}")),
        };
        outcomes.push(outcome);
    }
    print!("{}", render(&outcomes));
    let mut ok = outcomes.iter().all(Outcome::passed);
    if negative {
        println!("\nnegative controls (a file with one wrong value must fail the target):");
        for (line, failed_as_expected) in &controls {
            println!("  {line}");
            ok &= failed_as_expected;
        }
    }
    if !ok {
        bail!("conformance failed");
    }
    println!("conformance: every check of every target passed");
    Ok(())
}

/// One target's results.
#[derive(Default)]
pub struct Outcome {
    pub target: String,
    /// section → (passed, total)
    pub tally: BTreeMap<String, (usize, usize)>,
    /// The first mismatches, as `label: what`.
    pub mismatches: Vec<String>,
    pub failed_checks: usize,
    /// An adapter that could not run at all.
    pub broken: Option<String>,
    /// section → how many of its requests were answered `unsupported`.
    pub unsupported: BTreeMap<String, usize>,
    /// A port from outside this repository (`--adapter`): a section it
    /// answers `unsupported` throughout is shown so, not failed (it certifies
    /// the sections it implements, each completely).
    pub outside: bool,
}

impl Outcome {
    /// A target whose adapter could not even start.
    pub fn broken(target: &str, why: String) -> Outcome {
        Outcome { target: target.into(), broken: Some(why), ..Outcome::default() }
    }

    /// Whether a port from outside left `section` out altogether.
    pub fn left_out(&self, section: &str) -> bool {
        self.outside
            && self
                .tally
                .get(section)
                .is_some_and(|(_, total)| *total > 0 && self.unsupported.get(section) == Some(total))
    }

    pub fn passed(&self) -> bool {
        if self.outside {
            let implemented: Vec<_> = self.tally.iter().filter(|(s, _)| !self.left_out(s)).collect();
            return self.broken.is_none()
                && !implemented.is_empty()
                && implemented.iter().all(|(_, (passed, total))| passed == total);
        }
        self.broken.is_none() && self.failed_checks == 0 && self.tally.values().any(|(_, t)| *t > 0)
    }
}

/// Runs every check through `adapter` and judges the answers.
pub fn run_target(target: &str, adapter: &mut dyn Adapter, checks: &[Check]) -> Outcome {
    let mut outcome = Outcome { target: target.into(), ..Outcome::default() };
    let requests: Vec<Value> = checks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut r = c.request.clone();
            r["req"] = Value::from(i);
            r
        })
        .collect();
    let answers = match adapter.answer_all(&requests) {
        Ok(a) => a,
        Err(e) => {
            outcome.broken = Some(format!("{e:#}"));
            return outcome;
        }
    };
    let by_id: HashMap<u64, &Value> = answers.iter().filter_map(|a| Some((a.get("req")?.as_u64()?, a))).collect();
    for (i, check) in checks.iter().enumerate() {
        let entry = outcome.tally.entry(check.section.clone()).or_default();
        entry.1 += 1;
        let answer = by_id.get(&(i as u64)).copied();
        if answer.is_some_and(|a| a.get("unsupported").is_some()) {
            *outcome.unsupported.entry(check.section.clone()).or_default() += 1;
        }
        match mismatch(&check.expect, answer) {
            None => entry.0 += 1,
            Some(why) => {
                outcome.failed_checks += 1;
                if outcome.mismatches.len() < 10 {
                    outcome.mismatches.push(format!("{}: {why}", check.label));
                }
            }
        }
    }
    outcome
}

/// The checks of `file` that `target` answers: every section in its scope.
pub fn checks_for(target: &Target, file: &Value) -> Result<Vec<Check>> {
    let mut checks: Vec<Check> = cases::checks(file)?.into_iter().filter(|c| target.covers(&c.section)).collect();
    if let Some(fields) = target.fields {
        for c in &mut checks {
            if let cases::Expect::Ok(Value::Object(want)) = &mut c.expect {
                want.retain(|k, _| fields.contains(&k.as_str()));
            }
        }
    }
    Ok(checks)
}

/// Runs a target over a whole file.
pub fn run_file(target: &Target, adapter: &mut dyn Adapter, file: &Value) -> Result<Outcome> {
    Ok(run_target(target.name, adapter, &checks_for(target, file)?))
}

/// For each section in the target's scope: a copy of the file with one wrong
/// value in that section's first case must fail, and only on that case.
/// Only that section's checks run again: the others are the file's own,
/// which the target has just passed (a target run by an emulator, or one
/// process per request, would otherwise repeat the whole file per section).
/// Returns one line per section and whether it failed as it must.
pub fn negative_controls(target: &Target, adapter: &mut dyn Adapter, file: &Value) -> Result<Vec<(String, bool)>> {
    let mut lines = vec![];
    for section in mutate::MUTABLE.iter().filter(|s| target.covers(s)) {
        let wrong = mutate::one_wrong_value(file, section);
        let checks: Vec<Check> = checks_for(target, &wrong)?.into_iter().filter(|c| c.section == *section).collect();
        let outcome = run_target(target.name, adapter, &checks);
        let only_that_case = outcome.mismatches.iter().all(|m| m.starts_with(&format!("{section}[0] ")));
        let as_expected = outcome.failed_checks > 0 && outcome.broken.is_none() && only_that_case;
        let verdict = if as_expected {
            "fails, as it must".to_string()
        } else {
            // Say what happened instead, so a control that went wrong can be read from the log.
            let why = match &outcome.broken {
                Some(e) => format!("the adapter broke: {e}"),
                None => format!("{} failed check(s): {}", outcome.failed_checks, outcome.mismatches.join("; ")),
            };
            format!("DID NOT FAIL AS IT MUST ({why})")
        };
        lines.push((format!("{}: one wrong value in {section}[0]: {verdict}", target.name), as_expected));
    }
    Ok(lines)
}

/// The matrix: targets down, sections across, `passed/total` in each cell.
pub fn render(outcomes: &[Outcome]) -> String {
    let sections: Vec<&str> =
        SECTIONS.iter().copied().filter(|s| outcomes.iter().any(|o| o.tally.contains_key(*s))).collect();
    let mut rows = vec![];
    let mut header = vec!["target".to_string()];
    header.extend(sections.iter().map(|s| s.to_string()));
    header.push("result".into());
    rows.push(header);
    for o in outcomes {
        let mut row = vec![o.target.clone()];
        for s in &sections {
            row.push(match o.tally.get(*s) {
                Some(_) if o.left_out(s) => "unsupported".into(),
                Some((p, t)) => format!("{p}/{t}"),
                None => "-".into(),
            });
        }
        row.push(if o.passed() { "PASS".into() } else { "FAIL".into() });
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len()).map(|c| rows.iter().map(|r| r[c].len()).max().unwrap()).collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    for o in outcomes {
        if let Some(e) = &o.broken {
            out.push_str(&format!("\n{}: adapter failed: {e}\n", o.target));
        }
        if !o.mismatches.is_empty() {
            out.push_str(&format!("\n{}: {} failed check(s); first ones:\n", o.target, o.failed_checks));
            for m in &o.mismatches {
                out.push_str(&format!("  {m}\n"));
            }
        }
    }
    out
}
