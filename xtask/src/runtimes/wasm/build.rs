//! `cargo xtask wasm-build`: the package's `web/` and `node/` outputs
//! (cargo → wasm-bindgen → wasm-opt) and the size of its `.wasm`.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

use super::PACKAGE;
use crate::{root, sh};

/// The features current Rust turns on for wasm32, which wasm-opt must accept.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// Builds the package's `web/` and `node/` outputs, its copy of the shared
/// JavaScript layer and its entries (`cargo xtask js`); returns the
/// optimised `.wasm` size (raw, gzipped).
pub fn package() -> Result<(u64, u64)> {
    super::setup::tools()?;
    sh(Command::new("cargo").args([
        "build",
        "--quiet",
        "-p",
        "emq-id-wasm",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        "wasm-release",
    ]))?;
    let input = root().join("target/wasm32-unknown-unknown/wasm-release/emq_id_wasm.wasm");
    let pkg = root().join(PACKAGE);
    for (dir, target) in [("web", "web"), ("node", "nodejs")] {
        sh(Command::new("wasm-bindgen").arg(&input).arg("--out-dir").arg(pkg.join(dir)).args([
            "--target",
            target,
            "--weak-refs",
            "--no-typescript",
        ]))?;
        // Each output says its own module kind, whatever the package's default.
        let kind = if target == "web" { "module" } else { "commonjs" };
        crate::write(pkg.join(dir).join("package.json"), format!("{{ \"type\": \"{kind}\" }}\n"))?;
        let wasm = pkg.join(dir).join("emq_id_wasm_bg.wasm");
        sh(Command::new("wasm-opt").args(["-Oz", "--converge"]).args(WASM_FEATURES).arg(&wasm).arg("-o").arg(&wasm))?;
    }
    crate::tree::js::sync(false)?;
    let web = pkg.join("web/emq_id_wasm_bg.wasm");
    let wasm = std::fs::read(&web).with_context(|| format!("reading {}", web.display()))?;
    let gz = gzip_len(&web)?;
    eprintln!("xtask: emq_id_wasm_bg.wasm is {} bytes raw, {} bytes gzipped (-9)", wasm.len(), gz);
    Ok((wasm.len() as u64, gz))
}

fn gzip_len(path: &Path) -> Result<u64> {
    let out = Command::new("gzip").args(["-9", "-c"]).arg(path).output().context("running gzip")?;
    Ok(out.stdout.len() as u64)
}

/// `cargo xtask wasm-build`: build and print the size.
pub fn run() -> Result<()> {
    let (raw, gz) = package()?;
    println!("| file | raw | gzip -9 |\n|---|---|---|\n| emq_id_wasm_bg.wasm | {raw} B | {gz} B |");
    Ok(())
}
