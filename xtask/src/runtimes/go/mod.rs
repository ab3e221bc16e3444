//! The Go module (bindings/go: by default the core built for WebAssembly and
//! translated to Go source by wasm2go, the C library through cgo with `-tags
//! emqid_cgo`): its checks, the translation it carries (`wasm.rs`), the
//! conformance adapter (conformance/go) on each backend, the Go benchmarks,
//! and the Go lease holder's chaos program (bindings/go/holder).

pub mod adapter;
pub mod bench;
pub mod dist;
pub mod holder;
pub mod nodes;
pub mod tests;
pub mod wasm;

use std::process::Command;

use crate::root;

/// Which build of the emqid package a `go` command makes (its `Backend()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The default a `go get` user has: the core translated to Go by wasm2go,
    /// built here with `CGO_ENABLED=0` (no C toolchain, no library).
    Wasm,
    /// `-tags emqid_cgo` with cgo on, linking the checkout's libemqid through
    /// its `emqid.pc` (written by [`crate::runtimes::c::build::library`]).
    Cgo,
}

/// `go` in `dir` (from the workspace root) building the cgo backend.
pub fn go(dir: &str) -> Command {
    go_with(dir, Backend::Cgo)
}

/// `go` in `dir` (from the workspace root) building `backend`.
pub fn go_with(dir: &str, backend: Backend) -> Command {
    let mut cmd = Command::new("go");
    cmd.current_dir(root().join(dir));
    match backend {
        Backend::Wasm => cmd.env("CGO_ENABLED", "0").env_remove("GOFLAGS").env_remove("PKG_CONFIG_PATH"),
        Backend::Cgo => cmd
            .env("CGO_ENABLED", "1")
            .env("GOFLAGS", "-tags=emqid_cgo")
            .env("PKG_CONFIG_PATH", root().join("target/pkgconfig")),
    };
    cmd
}
