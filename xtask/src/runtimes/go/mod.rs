//! The Go module (bindings/go, cgo over the C library): its checks, the Go
//! conformance adapter (conformance/go), the Go benchmarks, and the Go
//! lease holder's chaos program (bindings/go/holder).

pub mod adapter;
pub mod bench;
pub mod dist;
pub mod holder;
pub mod tests;

use std::process::Command;

use crate::root;

/// `go` in `dir` (from the workspace root), with cgo on, linking the
/// checkout's library through its `emqid.pc` (written by
/// [`crate::runtimes::c::build::library`]) rather than an installed one.
pub fn go(dir: &str) -> Command {
    let mut cmd = Command::new("go");
    cmd.current_dir(root().join(dir)).env("CGO_ENABLED", "1").env("PKG_CONFIG_PATH", root().join("target/pkgconfig"));
    cmd
}
