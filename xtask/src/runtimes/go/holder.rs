//! The Go holder of `cargo xtask chaos`'s fleet: `bindings/go/holder/cmd/chaos-holder`
//! (`holder.Acquire` over go-redis), built into `target/go/chaos-holder` on the
//! emqid package's default backend (the core as WebAssembly, no cgo), so it
//! needs nothing at run time. The cgo backend holds leases live in
//! `valkey::leases` (the Go lease example).

use anyhow::Result;

use super::{go_with, Backend};
use crate::runtimes::valkey::chaos::holder::Program;
use crate::{root, setup, sh};

/// The holder program, built (Go's cache makes a rebuild of an unchanged tree cheap).
pub fn chaos_holder() -> Result<Program> {
    setup::require("go", "install Go (https://go.dev/doc/install); Debian's golang-go is too old for go 1.25 modules")?;
    let binary = root().join("target/go/chaos-holder");
    sh(go_with("bindings/go/holder", Backend::Wasm).arg("build").arg("-o").arg(&binary).arg("./cmd/chaos-holder"))?;
    Ok(Program { runtime: "go", program: binary, args: vec![], env: vec![] })
}
