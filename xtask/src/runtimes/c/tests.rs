//! The C tests: the ABI test program against the generated header under
//! valgrind memcheck, and a host of the bus's four-symbol header linking
//! unchanged against both headers.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use crate::{root, setup, sh};

fn gcc(source: &str, include: &str, output: &str, defines: &[&str]) -> Result<PathBuf> {
    let out = root().join("target/c-tests").join(output);
    crate::mkdir(out.parent().unwrap())?;
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
pub fn run() -> Result<()> {
    setup::apt(&["gcc", "libc6-dev", "valgrind"], "the C ABI tests")?;
    super::build::library()?;
    let abi = gcc("bindings/c/tests/abi_test.c", "bindings/c/include", "abi_test", &[])?;
    sh(Command::new("valgrind")
        .args(["--error-exitcode=1", "--leak-check=full", "--show-leak-kinds=all", "--errors-for-leak-kinds=all", "-q"])
        .arg(&abi))?;
    // The same host source against the bus's header, then against ours.
    // Every pointer-and-length entry point given no bytes three ways (NULL, valid, one past the end).
    let empty = gcc("bindings/c/tests/empty_test.c", "bindings/c/include", "empty_test", &[])?;
    sh(Command::new("valgrind")
        .args(["--error-exitcode=1", "--leak-check=full", "--show-leak-kinds=all", "--errors-for-leak-kinds=all", "-q"])
        .arg(&empty))?;
    let dropin = gcc("bindings/c/tests/dropin.c", "bindings/c/tests", "dropin", &[])?;
    sh(&mut Command::new(&dropin))?;
    let dropin = gcc("bindings/c/tests/dropin.c", "bindings/c/include", "dropin_emq_id_h", &["DROPIN_WITH_EMQ_ID_H"])?;
    sh(&mut Command::new(&dropin))
}
