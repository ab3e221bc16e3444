//! One room per runtime: each folder holds everything xtask does for that
//! runtime — installing what it needs (`setup.rs`), building it (`build.rs`),
//! its live servers (`server.rs`), its conformance adapter (`adapter.rs`, whose
//! `prepare` the table below points at), its own tests (`tests.rs`) and its
//! benchmark (`bench.rs`). A room uses another only for what that runtime
//! is built on: Go links the C library, the Node package carries the WASM
//! build as its fallback, the WASM package is run by the Node adapter.
//!
//! This file is the list of conformance targets. Adding a runtime is adding a
//! room, a row to [`TARGETS`] and an adapter that translates.

pub mod c;
pub mod cli;
pub mod elixir;
pub mod go;
pub mod jvm;
pub mod node;
pub mod postgres;
pub mod python;
pub mod rust;
pub mod valkey;
pub mod wasm;

use anyhow::{bail, Result};

use crate::conformance::cases::NON_LEASE_SECTIONS;
use crate::conformance::Target;

pub const TARGETS: &[Target] = &[
    Target::new("rust", "the core crate's public API, in process", rust::adapter::prepare),
    Target::new(
        "cli",
        "the emq-id binary, one run per request (leases: `emq-id lease`, no parsing API; out of scope)",
        cli::prepare,
    )
    .only(&NON_LEASE_SECTIONS),
    Target::new(
        "cli-arm64",
        "the static arm64 (musl) emq-id binary users download, under qemu-aarch64 (leases out of scope, as cli)",
        cli::prepare_arm64,
    )
    .only(&NON_LEASE_SECTIONS),
    Target::new(
        "go",
        "the Go module on its cgo backend (-tags emqid_cgo, the C ABI), conformance/go",
        go::adapter::prepare,
    ),
    Target::new(
        "go-wasm",
        "the Go module on its default backend (the core translated to Go by wasm2go, CGO_ENABLED=0), conformance/go",
        go::adapter::prepare_wasm,
    ),
    Target::new(
        "go-wasm-arm64",
        "the Go module's default backend cross-built for linux/arm64 (CGO_ENABLED=0), run under qemu-aarch64",
        go::adapter::prepare_wasm_arm64,
    ),
    Target::new(
        "go-wasm-riscv64",
        "the Go module's default backend cross-built for linux/riscv64 (CGO_ENABLED=0), run under qemu-riscv64",
        go::adapter::prepare_wasm_riscv64,
    ),
    Target::new(
        "go-wasm-s390x",
        "the Go module's default backend cross-built for linux/s390x, big-endian (CGO_ENABLED=0), run under qemu-s390x",
        go::adapter::prepare_wasm_s390x,
    ),
    Target::new(
        "go-arm64",
        "the Go module's cgo backend over the arm64 libemqid-dev (the C ABI on aarch64), built with zig, run under qemu-aarch64",
        go::adapter::prepare_cgo_arm64,
    ),
    Target::new("node", "the Node package (napi-rs), conformance/node", node::adapter::prepare),
    Target::new(
        "node-arm64",
        "the npm packages installed for linux-arm64-gnu (the zig-built addon), Debian's arm64 Node under qemu-aarch64",
        node::adapter::prepare_arm64,
    ),
    Target::new(
        "node-wasm",
        "the Node package on its WebAssembly fallback (EMQ_ID_BACKEND=wasm), conformance/node",
        node::adapter::prepare_wasm_backend,
    ),
    Target::new(
        "wasm-node",
        "the WASM package in Node (its require entry), conformance/node",
        wasm::adapter::prepare_node,
    ),
    Target::new(
        "wasm-browser",
        "the WASM package in headless Chromium (its browser entry), conformance/wasm",
        wasm::adapter::prepare_browser,
    ),
    Target::new(
        "postgres",
        "the PostgreSQL 15 extension on a live server, conformance/postgres (no leases: a server's node is its setting)",
        postgres::adapter::prepare,
    )
    .only(&NON_LEASE_SECTIONS),
    Target::new(
        "elixir",
        "the Elixir binding (a rustler NIF, Mix project), conformance/elixir",
        elixir::adapter::prepare,
    ),
    Target::new(
        "python",
        "the Python package (a PyO3 abi3 wheel) in a fresh virtual environment, conformance/python",
        python::adapter::prepare,
    ),
    Target::new(
        "python-arm64",
        "the manylinux2014 aarch64 wheel, Debian's arm64 CPython 3.11 under qemu-aarch64, conformance/python",
        python::adapter::prepare_arm64,
    ),
    Target::new(
        "jvm",
        "the Maven artifact io.echomq:emq-id (JNI) on the JDK 17, conformance/jvm",
        jvm::adapter::prepare,
    ),
    Target::new(
        "jvm-arm64",
        "the emq-id jar carrying the aarch64 glibc library (zig), Debian's arm64 JRE 17 under qemu-aarch64, conformance/jvm",
        jvm::adapter::prepare_arm64,
    ),
    Target::new(
        "valkey",
        "a live Valkey 9: every slot case through CLUSTER KEYSLOT (slot only)",
        valkey::adapter::prepare,
    )
    .only(&["slots"]).fields(&["slot"]),
];

pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Targets named by a group: `--target wasm` runs the WASM package in Node and in a browser,
/// `--target node` the Node package on each of its backends.
pub fn expand(name: &str) -> Vec<&'static str> {
    match name {
        "wasm" => vec!["wasm-node", "wasm-browser"],
        "node" => vec!["node", "node-wasm"],
        _ => TARGETS.iter().filter(|t| t.name == name).map(|t| t.name).collect(),
    }
}

/// The targets `names` select, groups expanded; no names is every target.
pub fn select(names: &[String]) -> Result<Vec<&'static Target>> {
    if names.is_empty() {
        return Ok(TARGETS.iter().collect());
    }
    let mut picked = vec![];
    for n in names {
        let expanded = expand(n);
        if expanded.is_empty() {
            bail!("unknown target {n:?} (see cargo xtask targets)");
        }
        picked.extend(expanded.into_iter().filter_map(find));
    }
    Ok(picked)
}
