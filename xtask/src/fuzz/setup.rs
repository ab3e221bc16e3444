//! What fuzzing needs: the pinned cargo-fuzz, installed when missing, and a
//! C++ compiler for libFuzzer's runtime (libfuzzer-sys builds it from source).
//!
//! Only the stable toolchain is assumed. cargo-fuzz passes nightly flags
//! (`-Zsanitizer=address`, `-Cpasses=sancov-module`, …), so every cargo-fuzz
//! command runs with `RUSTC_BOOTSTRAP=1`; AddressSanitizer's runtime ships
//! with the stable `rust-std` (`librustc-stable_rt.asan.a`), and the smoke
//! run's control target proves it live on every run.

use std::process::Command;

use anyhow::Result;

use crate::{setup, sh, sh_out};

/// The cargo-fuzz release the commands here are written for.
pub const CARGO_FUZZ: &str = "0.13.2";

/// cargo-fuzz at [`CARGO_FUZZ`], and g++.
pub fn tools() -> Result<()> {
    let have = sh_out(Command::new("cargo").args(["fuzz", "--version"])).unwrap_or_default();
    if !have.split_whitespace().any(|w| w == CARGO_FUZZ) {
        eprintln!("xtask: installing cargo-fuzz {CARGO_FUZZ} (found {:?})", have.trim());
        sh(Command::new("cargo").args(["install", "cargo-fuzz", "--version", CARGO_FUZZ, "--locked"]))?;
    }
    setup::apt(&["g++"], "libFuzzer's runtime, which libfuzzer-sys compiles from C++")
}

/// `cargo fuzz <args>` from the workspace root, allowed its nightly flags on stable.
pub fn cargo_fuzz(args: &[&str]) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg("fuzz").args(args).env("RUSTC_BOOTSTRAP", "1");
    cmd
}
