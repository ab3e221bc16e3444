//! One libFuzzer run through cargo-fuzz, and what it reports: executions,
//! executions per second, and the crash inputs it wrote.
//!
//! Each target grows its own corpus under `fuzz/target/corpus/<target>/`
//! (ignored by git, kept between runs) from the committed seeds in
//! `fuzz/corpus/<target>/`, which a run only reads. Its output goes to
//! `fuzz/target/logs/<target>.log`; a crash's report is printed from it.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};

use super::setup::cargo_fuzz;
use super::Target;
use crate::{mkdir, read, root, sh, write};

/// Build flags of every cargo-fuzz command (they must match, or `run` rebuilds):
/// optimised, with debug assertions and overflow checks; AddressSanitizer is cargo-fuzz's default.
const BUILD: [&str; 2] = ["--release", "--debug-assertions"];

/// libFuzzer's limits for every run: an input taking longer than `-timeout`
/// seconds is a hang, an allocation above `-malloc_limit_mb` or a process
/// above `-rss_limit_mb` is unbounded memory; each is a crash with its input.
const LIMITS: [&str; 3] = ["-timeout=10", "-malloc_limit_mb=64", "-rss_limit_mb=2048"];

/// Artifacts libFuzzer writes for a failure (not `slow-unit-`, which is a report).
const FAILURES: [&str; 4] = ["crash-", "leak-", "timeout-", "oom-"];

/// What one run reported.
pub struct Outcome {
    pub executions: u64,
    pub exec_per_sec: u64,
    /// The inputs this run wrote for its failures (libFuzzer stops at the first).
    pub crashes: Vec<PathBuf>,
}

fn fuzz_dir() -> PathBuf {
    root().join("fuzz")
}

/// Builds every target once (cargo-fuzz's `run` then finds them fresh).
pub fn build() -> Result<()> {
    sh(cargo_fuzz(&["build"]).args(BUILD))
}

/// Runs `target` for `seconds`, from its grown corpus and its seeds.
pub fn run(target: &Target, seconds: u64) -> Result<Outcome> {
    let name = target.name;
    let grown = fuzz_dir().join("target/corpus").join(name);
    let seeds = fuzz_dir().join("corpus").join(name);
    let artifacts = fuzz_dir().join("artifacts").join(name);
    ensure!(seeds.is_dir(), "{name} has no seed corpus at {}", seeds.display());
    mkdir(&grown)?;
    mkdir(&artifacts)?;
    let before = failures(&artifacts)?;
    let log = log_path(name)?;
    let output = File::create(&log).with_context(|| format!("creating {}", log.display()))?;
    let status = cargo_fuzz(&["run"])
        .args(BUILD)
        .args([OsStr::new(name), grown.as_os_str(), seeds.as_os_str()])
        .arg("--")
        .args(LIMITS)
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={}", target.max_len))
        .arg("-print_final_stats=1")
        .current_dir(root())
        .stdout(output.try_clone()?)
        .stderr(output)
        .status()
        .with_context(|| format!("running cargo fuzz run {name}"))?;
    let text = read(&log)?;
    let crashes: Vec<PathBuf> = failures(&artifacts)?.difference(&before).cloned().collect();
    if !crashes.is_empty() {
        eprintln!("xtask: {name} crashed; its report (the whole log: {}):\n{}", log.display(), report(&text));
    } else if !status.success() {
        bail!(
            "cargo fuzz run {name} failed ({status}) without a crash input; the end of {}:\n{}",
            log.display(),
            tail(&text, 40)
        );
    }
    let stat = |key: &str| -> Result<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .with_context(|| format!("{} has no `{key}` line (libFuzzer's final stats)", log.display()))
    };
    Ok(Outcome {
        executions: stat("stat::number_of_executed_units:")?,
        exec_per_sec: stat("stat::average_exec_per_sec:")?,
        crashes,
    })
}

/// The negative control: the `control` target's planted out-of-bounds read
/// must be reported by AddressSanitizer and its planted panic must crash the
/// run. Either going unnoticed would make every clean run meaningless.
pub fn control() -> Result<()> {
    let dir = fuzz_dir().join("target/control");
    mkdir(&dir)?;
    let expected =
        [("oob", "ERROR: AddressSanitizer: heap-buffer-overflow"), ("panic", "the control target's planted panic")];
    for (input, report) in expected {
        let path = dir.join(input);
        write(&path, input)?;
        let log = log_path(&format!("control-{input}"))?;
        let out = cargo_fuzz(&["run"])
            .args(BUILD)
            .args([OsStr::new("control"), path.as_os_str()])
            .arg("--")
            .arg(format!("-artifact_prefix={}/", dir.display()))
            .current_dir(root())
            .output()
            .context("running the control target")?;
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        write(&log, &text)?;
        ensure!(
            !out.status.success() && text.contains(report),
            "the control input {input:?} did not crash with {report:?}: the sanitizer or the crash detection is off \
             (log: {})",
            log.display()
        );
    }
    eprintln!("xtask: control: AddressSanitizer caught the planted overflow and the planted panic crashed the run");
    Ok(())
}

fn log_path(name: &str) -> Result<PathBuf> {
    let dir = fuzz_dir().join("target/logs");
    mkdir(&dir)?;
    Ok(dir.join(format!("{name}.log")))
}

fn failures(dir: &Path) -> Result<BTreeSet<PathBuf>> {
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if FAILURES.iter().any(|p| name.starts_with(p)) {
            found.insert(path);
        }
    }
    Ok(found)
}

/// A crash's report: from the first line that says what failed to the line
/// naming the input, or the log's end.
fn report(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines
        .iter()
        .position(|l| {
            l.contains("panicked at") || l.contains("ERROR: AddressSanitizer") || l.contains("ERROR: libFuzzer")
        })
        .unwrap_or(lines.len().saturating_sub(60));
    let end = lines.iter().rposition(|l| l.contains("Test unit written")).map_or(lines.len(), |e| e + 1);
    lines[start..end.max(start)].iter().take(120).copied().collect::<Vec<_>>().join("\n")
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
