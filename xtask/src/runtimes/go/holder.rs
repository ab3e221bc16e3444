//! The Go holder of `cargo xtask chaos`'s fleet: `bindings/go/holder/cmd/chaos-holder`
//! (`holder.Acquire` over go-redis), built into `target/go/chaos-holder` against
//! the checkout's static libemqid, so it needs nothing at run time.

use anyhow::Result;

use super::go;
use crate::runtimes::c;
use crate::runtimes::valkey::chaos::holder::Program;
use crate::{root, setup, sh};

/// The holder program, built (Go's cache makes a rebuild of an unchanged tree cheap).
pub fn chaos_holder() -> Result<Program> {
    setup::require("go", "install Go (https://go.dev/doc/install); Debian's golang-go is too old for go 1.22 modules")?;
    c::build::library()?;
    let binary = root().join("target/go/chaos-holder");
    sh(go("bindings/go/holder").arg("build").arg("-o").arg(&binary).arg("./cmd/chaos-holder"))?;
    Ok(Program { runtime: "go", program: binary, args: vec![], env: vec![] })
}
