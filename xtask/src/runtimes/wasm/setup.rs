//! What building and running the WASM package needs: the wasm32 target, the
//! pinned wasm-bindgen CLI, binaryen's wasm-opt, and Chromium for the browser
//! run; each installed when missing, saying so.

use std::process::Command;

use anyhow::Result;

use crate::{setup, sh, sh_out};

/// The wasm-bindgen CLI must be exactly the crate's version (see bindings/wasm/Cargo.toml).
pub const WASM_BINDGEN: &str = "0.2.106";

/// The toolchain: the wasm32 target, the pinned wasm-bindgen CLI, binaryen's wasm-opt.
pub fn tools() -> Result<()> {
    target("wasm32-unknown-unknown")?;
    let have = sh_out(Command::new("wasm-bindgen").arg("--version")).unwrap_or_default();
    if !have.contains(WASM_BINDGEN) {
        eprintln!(
            "xtask: installing wasm-bindgen-cli {WASM_BINDGEN} (it must match the crate's version; found {:?})",
            have.trim()
        );
        sh(Command::new("cargo").args(["install", "wasm-bindgen-cli", "--version", WASM_BINDGEN, "--locked"]))?;
    }
    setup::apt(&["binaryen"], "wasm-opt, which shrinks the .wasm")
}

/// A Rust target of the pinned toolchain (`rustup target add` when missing).
pub fn target(name: &str) -> Result<()> {
    let targets = sh_out(Command::new("rustup").args(["target", "list", "--installed"]))?;
    if !targets.lines().any(|t| t.trim() == name) {
        eprintln!("xtask: installing the Rust target {name}");
        sh(Command::new("rustup").args(["target", "add", name]))?;
    }
    Ok(())
}

/// Debian's Chromium, for the browser run.
pub fn chromium() -> Result<()> {
    setup::apt(&["chromium"], "the browser run of the WASM package")
}
