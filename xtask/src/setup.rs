//! Installing what a task needs on a fresh Debian machine, and saying so.
//! Each helper checks first, so a warm machine installs nothing. These are the
//! helpers every runtime shares; what a runtime installs, and why, is in its
//! room (`runtimes/<runtime>/setup.rs`).

use std::process::Command;
use std::sync::Once;

use anyhow::{ensure, Result};

use crate::{have, sh};

/// Whether a Debian package is installed.
pub fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

/// Installs the Debian packages that are missing, naming what needs them.
pub fn apt(packages: &[&str], why: &str) -> Result<()> {
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing {} (needed for {why})", missing.join(" "));
    static UPDATE: Once = Once::new();
    let mut updated = Ok(());
    UPDATE.call_once(|| updated = sh(Command::new("apt-get").args(["update", "-qq"])));
    updated?;
    sh(Command::new("apt-get")
        .args(["install", "-y", "-qq", "--no-install-recommends"])
        .args(&missing)
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

/// Fails with a clear message when a program the task cannot install is missing.
pub fn require(program: &str, hint: &str) -> Result<()> {
    ensure!(have(program), "`{program}` is not on PATH: {hint}");
    Ok(())
}

/// Debian's libfaketime (its multithreaded build), installed if missing: the
/// clock-jump tests preload it into a real process (a PostgreSQL server, a
/// Node child) and step that process's wall clock through an offset file.
pub fn faketime() -> Result<std::path::PathBuf> {
    apt(&["libfaketime"], "the clock-jump tests (a wall clock that steps back and forward)")?;
    let files = crate::sh_out(Command::new("dpkg").args(["-L", "libfaketime"]))?;
    let lib = files.lines().find(|l| l.ends_with("/libfaketimeMT.so.1")).map(std::path::PathBuf::from);
    lib.ok_or_else(|| anyhow::anyhow!("the libfaketime package has no libfaketimeMT.so.1"))
}

/// The environment that makes a process read its wall clock as the real one
/// plus the offset written in `offset_file` (`+0`, `-3`, …, seconds), re-read
/// at every reading; its monotonic clock stays real, so timers keep time.
pub fn faked_clock_env(lib: &std::path::Path, offset_file: &std::path::Path) -> Vec<(&'static str, String)> {
    vec![
        ("LD_PRELOAD", lib.display().to_string()),
        ("FAKETIME_TIMESTAMP_FILE", offset_file.display().to_string()),
        ("FAKETIME_NO_CACHE", "1".to_string()),
        ("DONT_FAKE_MONOTONIC", "1".to_string()),
    ]
}
