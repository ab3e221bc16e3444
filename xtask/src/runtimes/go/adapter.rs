//! The `go`, `go-wasm` and `go-wasm-arm64` targets: the Go conformance
//! adapter (conformance/go), a Go program over the `emqid` package, built on
//! each backend (cgo over the C library; the default, the core as WebAssembly
//! under wazero, with `CGO_ENABLED=0`) and run as a JSON-lines process; the
//! last cross-built for linux/arm64 and run under Debian's qemu-user (run
//! directly: the host's binfmt settings are left alone).

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use super::{go_with, Backend};
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::runtimes::c;
use crate::{root, setup, sh};

/// Builds the Go conformance adapter on `backend`; returns its path.
fn build(backend: Backend) -> Result<PathBuf> {
    setup::require("go", "install Go to run the go targets")?;
    let out = match backend {
        Backend::Cgo => {
            c::build::library()?;
            root().join("target/conformance-go")
        }
        Backend::Wasm => root().join("target/conformance-go-wasm"),
    };
    sh(go_with("conformance/go", backend).arg("build").arg("-o").arg(&out).arg("."))?;
    Ok(out)
}

pub fn prepare() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(ProcessAdapter { command: Command::new(build(Backend::Cgo)?) }))
}

pub fn prepare_wasm() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(ProcessAdapter { command: Command::new(build(Backend::Wasm)?) }))
}

pub fn prepare_wasm_arm64() -> Result<Box<dyn Adapter>> {
    setup::require("go", "install Go to run the go targets")?;
    setup::apt(&["qemu-user"], "running the linux/arm64 Go build (qemu-aarch64)")?;
    let out = root().join("target/conformance-go-wasm-arm64");
    sh(go_with("conformance/go", Backend::Wasm)
        .env("GOOS", "linux")
        .env("GOARCH", "arm64")
        .arg("build")
        .arg("-o")
        .arg(&out)
        .arg("."))?;
    // A static Go binary: qemu needs no arm64 root for it.
    let mut command = Command::new("qemu-aarch64");
    command.arg(out);
    Ok(Box::new(ProcessAdapter { command }))
}
