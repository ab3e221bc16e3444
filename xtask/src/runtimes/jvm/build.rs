//! The native libraries and the jars. The JNI library is built by cargo
//! (for this host) or by zig (every platform of a jar users get), laid out
//! as the jar carries it — `<platform>/libemqid_jni.so` and `platforms.txt`
//! under a native directory that `emq-id/pom.xml` takes as `${emqid.native}`
//! — and Maven packs it into `io/echomq/emqid/native/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use anyhow::{Context, Result};

use super::{dir, mvn, repository, ARTIFACT};
use crate::dist::cross::{self, Linkage};
use crate::dist::platform::{Libc, Platform};
use crate::{dist, root, sh};

/// The library's file name, on every platform the jar serves (all Linux).
pub const LIBRARY: &str = "libemqid_jni.so";

/// The name the jar's loader gives `platform` (`linux-x86_64-gnu`): the ELF
/// machine as `uname -m` spells it, then the C library.
pub fn jar_platform(platform: &Platform) -> String {
    let libc = match platform.libc {
        Libc::Gnu => "gnu",
        Libc::Musl => "musl",
    };
    format!("linux-{}-{libc}", platform.machine)
}

/// This host's library (`cargo build --release`), as the default native
/// directory `target/jvm/native` (linux-x86_64-gnu alone), which `mvn`
/// without `-Demqid.native` packs; once per xtask run.
pub fn host_native() -> Result<PathBuf> {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    if let Some(native) = BUILT.get() {
        return Ok(native.clone());
    }
    sh(Command::new("cargo").args(["build", "--quiet", "--release", "-p", "emq-id-jvm"]))?;
    let host = crate::dist::platform::named("linux-x64-gnu");
    let native = dir("native");
    lay_out(&native, &[(host, root().join("target/release").join(LIBRARY))])?;
    Ok(BUILT.get_or_init(|| native).clone())
}

/// `platforms`' libraries built by zig (glibc 2.17; musl's `libc.so`, as a
/// loaded object must), stripped, laid out in `target/jvm/native-<name>`.
pub fn platform_natives(platforms: &[&'static Platform], name: &str) -> Result<PathBuf> {
    let mut built = vec![];
    for &platform in platforms {
        let library = cross::build(platform, "emq-id-jvm", Linkage::Loaded)?.join(LIBRARY);
        built.push((platform, library));
    }
    let native = dir(&format!("native-{name}"));
    lay_out(&native, &built)?;
    for &platform in platforms {
        let copy = native.join(jar_platform(platform)).join(LIBRARY);
        sh(cross::strip(platform)?.arg("--strip-unneeded").arg(&copy))?;
    }
    Ok(native)
}

/// A native directory at `native` (emptied first) holding each library under
/// its platform's folder, and `platforms.txt` naming them, one a line.
fn lay_out(native: &Path, libraries: &[(&Platform, PathBuf)]) -> Result<()> {
    let _ = std::fs::remove_dir_all(native);
    let mut listed = String::new();
    for (platform, library) in libraries {
        let to = native.join(jar_platform(platform));
        crate::mkdir(&to)?;
        std::fs::copy(library, to.join(LIBRARY))
            .with_context(|| format!("copying {} into {}", library.display(), to.display()))?;
        listed.push_str(&jar_platform(platform));
        listed.push('\n');
    }
    crate::write(native.join("platforms.txt"), listed)
}

/// Every artifact of `bindings/jvm` installed into `target/jvm/m2` (`mvn
/// install -DskipTests`) over this host's library; answers the emq-id jar
/// there. Once per xtask run.
pub fn install() -> Result<PathBuf> {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    if let Some(jar) = BUILT.get() {
        return Ok(jar.clone());
    }
    host_native()?;
    sh(mvn()?.args(["install", "-DskipTests", "--no-transfer-progress"]))?;
    let jar = installed(ARTIFACT, "jar")?;
    Ok(BUILT.get_or_init(|| jar).clone())
}

/// The file `<artifact>-<version>.<ext>` of `io.echomq:<artifact>` in the local repository.
pub fn installed(artifact: &str, ext: &str) -> Result<PathBuf> {
    let path = repository()
        .join("io/echomq")
        .join(artifact)
        .join(dist::version())
        .join(format!("{artifact}-{}.{ext}", dist::version()));
    anyhow::ensure!(path.exists(), "Maven installed no {}", path.display());
    Ok(path)
}

/// The jars of `artifacts` (modules of the parent pom: `emq-id`, the holders) packed (`mvn
/// package`, no tests) over the libraries of `native` with Maven `profiles` (`-P`), their
/// outputs copied into `target/jvm/jars/<name>/` (Maven's own output folders are the next
/// build's); answers that folder.
pub fn package(native: &Path, name: &str, artifacts: &[&str], profiles: &[&str]) -> Result<PathBuf> {
    let mut maven = mvn()?;
    maven
        .args(["package", "-DskipTests", "--no-transfer-progress", "-pl", &artifacts.join(","), "-am"])
        .arg(format!("-Demqid.native={}", native.display()));
    if !profiles.is_empty() {
        maven.arg(format!("-P{}", profiles.join(",")));
    }
    sh(&mut maven)?;
    let out = dir("jars").join(name);
    let _ = std::fs::remove_dir_all(&out);
    crate::mkdir(&out)?;
    for artifact in artifacts {
        let built = root().join(super::PACKAGE).join(artifact).join("target");
        // `emq-id-0.1.0…`, never `emq-id-jedis-0.1.0…`: the version follows the name at once.
        let prefix = format!("{artifact}-{}", dist::version());
        for entry in std::fs::read_dir(&built).with_context(|| built.display().to_string())? {
            let path = entry?.path();
            let file = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if file.starts_with(&prefix) && file.ends_with(".jar") {
                std::fs::copy(&path, out.join(&file)).with_context(|| format!("copying {}", path.display()))?;
            }
        }
    }
    Ok(out)
}
