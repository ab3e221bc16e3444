//! The `go` target: the Go conformance adapter (conformance/go), a Go program
//! over the `emqid` package, built here and run as a JSON-lines process.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use super::go;
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::runtimes::c;
use crate::{root, setup, sh};

/// Builds the Go conformance adapter; returns its path.
fn build() -> Result<PathBuf> {
    setup::require("go", "install Go to run the go target")?;
    c::build::library()?;
    let out = root().join("target/conformance-go");
    sh(go("conformance/go").arg("build").arg("-o").arg(&out).arg("."))?;
    Ok(out)
}

pub fn prepare() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(ProcessAdapter { command: Command::new(build()?) }))
}
