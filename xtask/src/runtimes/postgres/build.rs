//! Building the extension with pgrx and installing it into PostgreSQL 15's
//! directories.

use std::process::Command;

use anyhow::Result;

use super::{EXTENSION, PG_CONFIG};
use crate::{root, sh};

/// Builds the extension and installs it into PostgreSQL 15's directories.
pub fn install() -> Result<()> {
    super::setup::prerequisites()?;
    // cargo-pgrx reports on stdout; keep a task's own report (the matrix) alone there.
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root().join(EXTENSION)).args(["pgrx", "install", "--release", "--pg-config", PG_CONFIG]);
    sh(cmd.stdout(std::io::stderr()))
}
