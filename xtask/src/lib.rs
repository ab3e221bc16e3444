//! The workspace's tasks: vector generation, the conformance runner and its
//! targets, benchmarks and the test suite. `main.rs` only parses arguments.
//!
//! Where things are: [`conformance`] judges, [`runtimes`] holds one room per
//! runtime (its build, setup, adapter, live checks and benchmark), [`vectors`]
//! generates the vector file, [`tree`] generates and checks other files of the
//! tree, [`suite`] and [`mod@bench`] run the steps. This file holds the few
//! helpers every task uses.

pub mod bench;
pub mod conformance;
pub mod dist;
pub mod fuzz;
pub mod runtimes;
pub mod setup;
pub mod suite;
pub mod tree;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// The workspace root (the parent of `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Runs a command from the workspace root, echoing it; an error says which command failed.
pub fn sh(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {}", shown(cmd));
    let status = cmd.current_dir_if_unset().status().with_context(|| shown(cmd))?;
    if !status.success() {
        bail!("{} failed ({status})", shown(cmd));
    }
    Ok(())
}

/// Like [`sh`], but returns stdout.
pub fn sh_out(cmd: &mut Command) -> Result<String> {
    let out = cmd.current_dir_if_unset().output().with_context(|| shown(cmd))?;
    if !out.status.success() {
        bail!("{} failed ({}): {}", shown(cmd), out.status, String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// How often [`poll`] asks, unless asking costs more (a `psql` each time).
pub const POLL: Duration = Duration::from_millis(20);

/// Asks `ready` every `every` until it says yes, for `within` at most; whether it did.
/// A wait through this (or [`try_poll`]) cannot outlast its bound.
pub fn poll(within: Duration, every: Duration, mut ready: impl FnMut() -> bool) -> bool {
    try_poll(within, every, || Ok(ready())).unwrap_or(false)
}

/// [`poll`] for a probe that can fail: its first error ends the wait and is returned.
pub fn try_poll(within: Duration, every: Duration, mut ready: impl FnMut() -> Result<bool>) -> Result<bool> {
    let start = Instant::now();
    while !ready()? {
        if start.elapsed() >= within {
            return Ok(false);
        }
        std::thread::sleep(every);
    }
    Ok(true)
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Reads a text file; an error names the file.
pub fn read(path: impl AsRef<Path>) -> Result<String> {
    let path = path.as_ref();
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// Writes a file; an error names the file.
pub fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}

/// Creates a directory and its parents; an error names the directory.
pub fn mkdir(path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    std::fs::create_dir_all(path).with_context(|| format!("creating {}", path.display()))
}

/// Every file under `dir`, in every subdirectory, whose name ends with `.<ext>`; sorted.
pub fn files_under(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut found = vec![];
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("listing {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Reads and parses a vector file.
pub fn load(path: &Path) -> Result<serde_json::Value> {
    serde_json::from_str(&read(path)?).with_context(|| format!("{} is not JSON", path.display()))
}

fn shown(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

trait CurrentDir {
    fn current_dir_if_unset(&mut self) -> &mut Self;
}

impl CurrentDir for Command {
    fn current_dir_if_unset(&mut self) -> &mut Self {
        if self.get_current_dir().is_none() {
            self.current_dir(root());
        }
        self
    }
}
