//! The Go module's checks: `go vet` and `go test -race`, and that the
//! conformance adapter, the benchmark module and the lease example still
//! compile, and the lease holder module's own tests.

use anyhow::Result;

use super::go;
use crate::runtimes::c;
use crate::{setup, sh};

/// `go vet` and `go test -race` on the Go module.
pub fn run() -> Result<()> {
    setup::require("go", "install Go (https://go.dev/doc/install); Debian's golang-go is too old for go 1.22 modules")?;
    c::build::library()?;
    sh(go("bindings/go").args(["vet", "./..."]))?;
    // -v: the sibling-process tests print their counts.
    sh(go("bindings/go").args(["test", "-race", "-count=1", "-v", "./..."]))?;
    sh(go("conformance/go").args(["vet", "./..."]))?;
    // The benchmark module (with its anchors from the Go module proxy) must keep compiling.
    sh(go("bindings/go/bench").args(["vet", "./..."]))?;
    // The go-redis lease example: vetted here, run live by `valkey::leases`.
    sh(go("bindings/go/examples/lease").args(["vet", "./..."]))?;
    // The one-call holder over go-redis (its own module): what needs no server
    // here, its live behaviour in `cargo xtask chaos`'s fleet.
    sh(go("bindings/go/holder").args(["vet", "./..."]))?;
    sh(go("bindings/go/holder").args(["test", "-race", "-count=1", "./..."]))
}
