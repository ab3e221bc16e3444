//! The Go module's checks, on both backends: the committed translation of
//! the core is current, `go vet` and `go test -race` on each, the differential test
//! of one backend against the other, `CGO_ENABLED=0` builds for every
//! platform the pure-Go build promises, one node across a pure-Go and a
//! native process (`nodes.rs`), and that the conformance adapter,
//! the benchmark module and the lease example still compile, and the lease
//! holder module's own tests.

use std::process::Command;

use anyhow::Result;

use super::{go, go_with, Backend};
use crate::runtimes::c;
use crate::{setup, sh};

/// The platforms a `CGO_ENABLED=0` build must reach (GOOS/GOARCH): every
/// architecture Go has on Linux, 32-bit and big-endian included (the
/// translated core's memory is little-endian on every host), and the two
/// other systems' main ones.
pub const PLATFORMS: [(&str, &str); 9] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("linux", "386"),
    ("linux", "arm"),
    ("linux", "riscv64"),
    ("linux", "ppc64le"),
    ("linux", "s390x"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];

/// The oldest Go release the module's `go 1.22` line admits (the last patch
/// of 1.22): the generated core needs 1.21, the package's own code 1.22.
const OLDEST_GO: &str = "go1.22.12";

/// `go test -race` of the default backend: `-race` needs cgo, which the
/// pure-Go build does not use (no tag: the WebAssembly backend).
fn race(dir: &str) -> Command {
    let mut cmd = go_with(dir, Backend::Wasm);
    cmd.env("CGO_ENABLED", "1").args(["test", "-race", "-count=1"]);
    cmd
}

pub fn run() -> Result<()> {
    setup::require(
        "go",
        "install Go (https://go.dev/doc/install); Debian's golang-go is too old for the tools' go 1.26 module",
    )?;
    c::build::library()?;
    super::wasm::run(true)?;
    for backend in [Backend::Wasm, Backend::Cgo] {
        sh(go_with("bindings/go", backend).args(["vet", ".", "./internal/wasmcore"]))?;
    }
    // The translated core without `unreachable`: wasm2go writes a block's dead end as it is.
    sh(go_with("bindings/go", Backend::Wasm).args(["vet", "-unreachable=false", "./internal/emqcore"]))?;
    // -v: the sibling-process tests print their counts. The default backend
    // runs at full counts, then under the race detector at smaller ones (it
    // watches every load and store of the translated core: see sized_test.go).
    sh(go_with("bindings/go", Backend::Wasm).args(["test", "-count=1", "-v", "./..."]))?;
    sh(race("bindings/go").args(["-v", "./..."]))?;
    sh(go("bindings/go").args(["test", "-race", "-count=1", "-v", "./..."]))?;
    // Both backends in one build, against each other over random inputs.
    sh(go("bindings/go")
        .env("GOFLAGS", "-tags=emqid_cgo,emqid_diff")
        .args(["test", "-count=1", "-v", "-run", "Backends", "."]))?;
    // The oldest Go the module's go line admits, fetched from the module proxy
    // as a toolchain: the package and its tests build and pass there too.
    sh(go_with("bindings/go", Backend::Wasm).env("GOTOOLCHAIN", OLDEST_GO).args(["vet", ".", "./internal/wasmcore"]))?;
    sh(go_with("bindings/go", Backend::Wasm).env("GOTOOLCHAIN", OLDEST_GO).args(["test", "-count=1", "./..."]))?;
    println!("go: the module builds, vets and passes its tests with {OLDEST_GO}, the oldest its go line admits");
    for (os, arch) in PLATFORMS {
        sh(go_with("bindings/go", Backend::Wasm).env("GOOS", os).env("GOARCH", arch).args(["build", "./..."]))?;
    }
    println!("go: CGO_ENABLED=0 builds for {PLATFORMS:?}");
    super::nodes::run()?;
    sh(go("conformance/go").args(["vet", "./..."]))?;
    // The benchmark module (with its anchors from the Go module proxy) must keep compiling.
    sh(go("bindings/go/bench").args(["vet", "./..."]))?;
    // The go-redis lease example: vetted here, run live by `valkey::leases`.
    sh(go("bindings/go/examples/lease").args(["vet", "./..."]))?;
    // The one-call holder over go-redis (its own module), on the default
    // backend: scripted servers, and live ones for a cluster not up yet and a
    // migrating slot (the server xtask installs for every live test); the
    // fleet's live behaviour in `cargo xtask chaos`.
    sh(go_with("bindings/go/holder", Backend::Wasm).args(["vet", "./..."]))?;
    let valkey = crate::runtimes::valkey::setup::server_binary()?;
    sh(race("bindings/go/holder").env("EMQ_VALKEY_SERVER", valkey).arg("./..."))
}
