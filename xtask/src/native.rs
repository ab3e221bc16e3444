//! The C ABI and the Go module: building the library, the header check, the C
//! tests under valgrind, and the Go checks.

use std::path::PathBuf;
use std::process::Command;

use crate::{root, setup, sh};

/// Builds `target/release/libemqid.{a,so}`.
pub fn build_library() -> Result<(), String> {
    sh(Command::new("cargo").args(["build", "--quiet", "--release", "-p", "emq-id-c"]))
}

fn gcc(source: &str, include: &str, output: &str, defines: &[&str]) -> Result<PathBuf, String> {
    let out = root().join("target/c-tests").join(output);
    std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
    sh(Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-I"])
        .arg(root().join(include))
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(root().join(source))
        .arg(root().join("target/release/libemqid.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out))?;
    Ok(out)
}

/// The C test program against the generated header, under valgrind memcheck,
/// and a host of the bus's four-symbol header linking unchanged.
pub fn c_tests() -> Result<(), String> {
    setup::apt(&["gcc", "libc6-dev", "valgrind"], "the C ABI tests")?;
    build_library()?;
    let abi = gcc("bindings/c/tests/abi_test.c", "bindings/c/include", "abi_test", &[])?;
    sh(Command::new("valgrind")
        .args(["--error-exitcode=1", "--leak-check=full", "--show-leak-kinds=all", "--errors-for-leak-kinds=all", "-q"])
        .arg(&abi))?;
    // The same host source against the bus's header, then against ours.
    let dropin = gcc("bindings/c/tests/dropin.c", "bindings/c/tests", "dropin", &[])?;
    sh(&mut Command::new(&dropin))?;
    let dropin = gcc("bindings/c/tests/dropin.c", "bindings/c/include", "dropin_emq_id_h", &["DROPIN_WITH_EMQ_ID_H"])?;
    sh(&mut Command::new(&dropin))
}

fn go(dir: &str) -> Command {
    let mut cmd = Command::new("go");
    cmd.current_dir(root().join(dir)).env("CGO_ENABLED", "1");
    cmd
}

/// `go vet` and `go test -race` on the Go module.
pub fn go_tests() -> Result<(), String> {
    setup::require("go", "install Go (https://go.dev/doc/install); Debian's golang-go is too old for go 1.22 modules")?;
    build_library()?;
    sh(go("bindings/go").args(["vet", "./..."]))?;
    // -v: the sibling-process tests print their counts.
    sh(go("bindings/go").args(["test", "-race", "-count=1", "-v", "./..."]))?;
    sh(go("conformance/go").args(["vet", "./..."]))?;
    // The benchmark module (with its anchors from the Go module proxy) must keep compiling.
    sh(go("bindings/go/bench").args(["vet", "./..."]))
}

/// Builds the Go conformance adapter; returns its path.
pub fn go_adapter() -> Result<PathBuf, String> {
    setup::require("go", "install Go to run the go target")?;
    build_library()?;
    let out = root().join("target/conformance-go");
    sh(go("conformance/go").arg("build").arg("-o").arg(&out).arg("."))?;
    Ok(out)
}
