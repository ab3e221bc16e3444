//! Building the C ABI's library, which the C tests, the Go module and the
//! README's C example link.

use std::process::Command;

use anyhow::Result;

use crate::sh;

/// Builds `target/release/libemqid.{a,so}`.
pub fn library() -> Result<()> {
    sh(Command::new("cargo").args(["build", "--quiet", "--release", "-p", "emq-id-c"]))
}
