//! The Node package's tests (`node --test`), and the proof that an npm
//! package is a real package: packed, installed elsewhere, required and
//! imported (for the WASM package too).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};

use super::{npm, PACKAGE};
use crate::{root, sh, sh_out};

/// `node --test` on the package (its clock-jump test preloads libfaketime).
pub fn run() -> Result<()> {
    super::build::package()?;
    let faketime = crate::setup::faketime()?;
    sh(Command::new("node")
        .current_dir(root().join(PACKAGE))
        .args(["--test", "test/"])
        .env("EMQ_FAKETIME_LIB", faketime))
}

/// Packs with `npm pack`, installs the tarball into an empty directory outside
/// the repository, and there requires it (CommonJS) and imports it (ESM).
pub fn pack_and_install(package: &str, name: &str) -> Result<()> {
    let out = root().join("target/npm-pack");
    crate::mkdir(&out)?;
    let listing = sh_out(npm(&root().join(package)).arg("pack").arg("--pack-destination").arg(&out))?;
    let tarball: PathBuf = out.join(listing.lines().last().context("npm pack printed nothing")?.trim());
    let consumer = std::env::temp_dir().join(format!("emq-id-consumer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&consumer);
    crate::mkdir(&consumer)?;
    let write = |file: &str, text: &str| crate::write(consumer.join(file), text);
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
    std::fs::remove_dir_all(&consumer).with_context(|| format!("removing {}", consumer.display()))
}
