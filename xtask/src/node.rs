//! The Node package: building the addon into the package, its tests, and the
//! proof that it is a real package (packed, installed elsewhere, required and imported).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{root, setup, sh, sh_out};

pub const PACKAGE: &str = "bindings/node";

/// Builds the addon and places it in the package as `emq-id.linux-x64-gnu.node`,
/// with the WebAssembly build the package falls back to where no addon fits
/// (`wasm/`) and its copy of the shared JavaScript layer.
pub fn build() -> Result<(), String> {
    setup::require("node", "install Node.js 18 or later")?;
    sh(Command::new("cargo").args(["build", "--quiet", "--release", "-p", "emq-id-node"]))?;
    let from = root().join("target/release/libemq_id_node.so");
    let to = root().join(PACKAGE).join("emq-id.linux-x64-gnu.node");
    std::fs::copy(&from, &to).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))?;
    crate::wasm::build()?;
    let fallback = root().join(PACKAGE).join("wasm");
    std::fs::create_dir_all(&fallback).map_err(|e| e.to_string())?;
    for file in ["emq_id_wasm.js", "emq_id_wasm_bg.wasm", "package.json"] {
        let from = root().join(crate::wasm::PACKAGE).join("node").join(file);
        std::fs::copy(&from, fallback.join(file)).map_err(|e| format!("{}: {e}", from.display()))?;
    }
    Ok(())
}

pub fn npm(dir: &Path) -> Command {
    let mut cmd = Command::new("npm");
    cmd.current_dir(dir).args(["--no-audit", "--no-fund", "--loglevel=error"]);
    cmd
}

/// The package's dev dependencies (the benchmark anchors), installed when missing.
pub fn dev_dependencies() -> Result<(), String> {
    let dir = root().join(PACKAGE);
    if !dir.join("node_modules/cluster-key-slot").exists() || !dir.join("node_modules/ulid").exists() {
        eprintln!("xtask: installing the Node package's dev dependencies (npm ci)");
        sh(npm(&dir).arg("ci"))?;
    }
    Ok(())
}

/// `node --test` on the package.
pub fn tests() -> Result<(), String> {
    build()?;
    sh(Command::new("node").current_dir(root().join(PACKAGE)).args(["--test", "test/"]))
}

/// Packs with `npm pack`, installs the tarball into an empty directory outside
/// the repository, and there requires it (CommonJS) and imports it (ESM).
pub fn pack_and_install(package: &str, name: &str) -> Result<(), String> {
    let out = root().join("target/npm-pack");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let listing = sh_out(npm(&root().join(package)).arg("pack").arg("--pack-destination").arg(&out))?;
    let tarball: PathBuf = out.join(listing.lines().last().ok_or("npm pack printed nothing")?.trim());
    let consumer = std::env::temp_dir().join(format!("emq-id-consumer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&consumer);
    std::fs::create_dir_all(&consumer).map_err(|e| e.to_string())?;
    let write = |file: &str, text: &str| std::fs::write(consumer.join(file), text).map_err(|e| e.to_string());
    write("package.json", r#"{ "name": "consumer", "private": true }"#)?;
    sh(npm(&consumer).arg("install").arg(&tarball))?;
    let body = "const id = mint('JOB'); const d = decode(id); const s = slot('emq:{orders}:pending');
if (d.ns !== 'JOB' || typeof d.snowflake !== 'bigint' || s !== slot('orders')) throw new Error('wrong answers');
console.log(`${process.argv[1].split('/').pop()}: minted ${id}, node ${d.node}, slot ${s}`);\n";
    write("check.cjs", &format!("const {{ mint, decode, slot }} = require('{name}');\n{body}"))?;
    write("check.mjs", &format!("import {{ mint, decode, slot }} from '{name}';\n{body}"))?;
    for script in ["check.cjs", "check.mjs"] {
        let claims = consumer.join("claims"); // apart from the host's own node claims
        sh(Command::new("node").current_dir(&consumer).arg(script).env("EMQ_NODE", "3").env("EMQ_NODE_DIR", &claims))?;
    }
    std::fs::remove_dir_all(&consumer).map_err(|e| e.to_string())
}

/// The Node target's adapter command.
pub fn adapter(package: Option<&str>) -> Command {
    let mut cmd = Command::new("node");
    cmd.arg(root().join("conformance/node/adapter.js"));
    if let Some(p) = package {
        cmd.env("EMQ_ID_PACKAGE", root().join(p));
    }
    cmd
}
