//! Installing what a task needs on a fresh Debian machine, and saying so.
//! Each helper checks first, so a warm machine installs nothing. These are the
//! helpers every runtime shares; what a runtime installs, and why, is in its
//! room (`runtimes/<runtime>/setup.rs`).

use std::process::Command;
use std::sync::Once;

use anyhow::{ensure, Result};

use crate::{have, sh};

fn installed(package: &str) -> bool {
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
