//! The CLI as users download it: one static binary per musl platform (no
//! loader, no library: it runs on any Linux of its architecture, glibc or
//! musl), `emq-id-<version>-<triple>.tar.gz` with the licences; and the
//! proof that each runs on its architecture (natively, or under qemu).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::dist::cross::{self, Linkage};
use crate::dist::platform::{Libc, Platform};
use crate::dist::{self, emulated, Artifact, Selection};
use crate::{root, sh, sh_out};

/// The stripped static binary for `platform` (a musl one), built when stale.
pub fn binary(platform: &'static Platform) -> Result<PathBuf> {
    ensure!(platform.libc == Libc::Musl, "the CLI ships static, for the musl platforms only");
    let built = cross::build(platform, "emq-id-cli", Linkage::Default)?.join("emq-id");
    let stripped = root().join("target/dist-stage/cli").join(platform.triple).join("emq-id");
    crate::mkdir(stripped.parent().expect("a file's directory"))?;
    std::fs::copy(&built, &stripped).with_context(|| format!("copying {}", built.display()))?;
    sh(cross::strip(platform)?.arg("--strip-all").arg(&stripped))?;
    Ok(stripped)
}

/// A tarball per selected musl platform.
pub fn build(selection: &Selection) -> Result<Vec<Artifact>> {
    let mut artifacts = vec![];
    for platform in selection.platforms.iter().filter(|p| p.libc == Libc::Musl) {
        let top = format!("emq-id-{}-{}", dist::version(), platform.triple);
        let stage = root().join("target/dist-stage").join(&top);
        let _ = std::fs::remove_dir_all(&stage);
        crate::mkdir(&stage)?;
        std::fs::copy(binary(platform)?, stage.join("emq-id")).context("staging the CLI")?;
        dist::licenses_into(&stage)?;
        let tarball = dist::tarball(&stage)?;
        artifacts.push(Artifact {
            runtime: "CLI",
            platform: Some(platform),
            path: tarball,
            version: version_of(&stage.join("emq-id"), platform)?,
        });
    }
    Ok(artifacts)
}

/// `emq-id` of `platform` at `path`, run where this host can run it.
fn command(path: &std::path::Path, platform: &Platform) -> Result<Command> {
    if platform.native_here() {
        Ok(Command::new(path))
    } else {
        emulated::qemu_static(path)
    }
}

/// The version the binary prints (`emq-id 0.1.0`): it declares its own.
fn version_of(path: &std::path::Path, platform: &Platform) -> Result<String> {
    let out = sh_out(command(path, platform)?.arg("--version"))?;
    out.split_whitespace().nth(1).map(str::to_string).with_context(|| format!("emq-id --version printed {out:?}"))
}

/// Each tarball unpacked in an empty directory, its binary minting on node 7
/// and decoding what it minted, on its architecture.
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    for artifact in artifacts.iter().filter(|a| a.runtime == "CLI") {
        let platform = artifact.platform.context("a CLI tarball has a platform")?;
        let dir = dist::scratch(&format!("cli-{}", platform.name))?;
        sh(Command::new("tar").arg("-xzf").arg(&artifact.path).arg("-C").arg(&*dir))?;
        let binary = dir.join(format!("emq-id-{}-{}", dist::version(), platform.triple)).join("emq-id");
        let minted = sh_out(
            command(&binary, platform)?
                .args(["mint", "JOB"])
                .env("EMQ_NODE", "7")
                .env("EMQ_NODE_DIR", dir.join("claims")),
        )?;
        let id = minted.trim();
        let decoded = sh_out(command(&binary, platform)?.args(["decode", id]))?;
        let json: serde_json::Value =
            serde_json::from_str(decoded.trim()).with_context(|| format!("decode printed {decoded:?}"))?;
        ensure!(
            json["ns"] == "JOB" && json["node"] == 7,
            "{}: minted {id}, which decodes as {json}",
            artifact.file_name()
        );
        let how = if platform.native_here() { "natively" } else { "under qemu-aarch64" };
        println!("dist: {}: ran {how}: minted {id} on node 7, decoded it", artifact.file_name());
    }
    Ok(())
}
