//! The `jvm` target: conformance/jvm/Adapter.java, compiled against the
//! emq-id jar (`javac --release 17`), run by the JDK 17 over the jar Maven
//! installed; and `jvm-arm64`, the same class over a jar carrying the
//! aarch64 glibc library (zig, glibc 2.17), run by Debian's arm64 JRE 17
//! under qemu-aarch64.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use super::{dir, setup};
use crate::conformance::adapter::{Adapter, ProcessAdapter};
use crate::{root, sh};

/// The adapter's source.
const SOURCE: &str = "conformance/jvm/Adapter.java";

/// `java`'s arguments for the adapter: native access allowed (JDK 24+ warn
/// when a class-path library loads native code; 17 accepts the flag), the
/// adapter's classes and `jar` alone on the class path.
fn adapter_args(java: &mut Command, classes: &Path, jar: &Path) {
    let class_path = std::env::join_paths([classes, jar]).expect("paths without ':'");
    java.arg("--enable-native-access=ALL-UNNAMED").arg("-cp").arg(class_path).arg("Adapter");
}

/// The adapter compiled against `jar` into `target/jvm/adapter`, every lint
/// an error, the bytecode Java 17's (so arm64's JRE 17 runs the same classes).
fn compile(jar: &Path) -> Result<PathBuf> {
    let classes = dir("adapter");
    let _ = std::fs::remove_dir_all(&classes);
    sh(setup::jdk17_tool("javac")?
        .args(["--release", "17", "-Xlint:all", "-Werror", "-encoding", "UTF-8", "-cp"])
        .arg(jar)
        .arg("-d")
        .arg(&classes)
        .arg(root().join(SOURCE)))?;
    Ok(classes)
}

/// Installs the artifacts over this host's library, compiles the adapter,
/// and hands back its process on the JDK 17.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    let jar = super::build::install()?;
    let classes = compile(&jar)?;
    let mut command = setup::jdk17_tool("java")?;
    adapter_args(&mut command, &classes, &jar);
    Ok(Box::new(ProcessAdapter { command }))
}

/// The emq-id jar packed over the linux-aarch64-gnu library alone (as a
/// user's jar holds it beside the others), the adapter compiled on this
/// host, both run by Debian's arm64 `java` (openjdk-17-jre-headless) under
/// qemu-aarch64.
pub fn prepare_arm64() -> Result<Box<dyn Adapter>> {
    use crate::dist::{emulated, platform};
    let arm64 = platform::named("linux-arm64-gnu");
    let native = super::build::platform_natives(&[arm64], "arm64")?;
    let jars = super::build::package(&native, "arm64", &[super::ARTIFACT], &[])?;
    let jar = jars.join(format!("{}-{}.jar", super::ARTIFACT, crate::dist::version()));
    let classes = compile(&jar)?;
    let rootfs = emulated::arm64_root()?;
    let mut command = emulated::qemu_root_program(&rootfs, "usr/lib/jvm/java-17-openjdk-arm64/bin/java");
    // The default heap is a quarter of this host's memory; the adapter needs little, and
    // under qemu a smaller heap is less to emulate. No option of the host's JDK leaks in.
    command.arg("-Xmx256m").env_remove("JAVA_HOME").env_remove("JAVA_TOOL_OPTIONS");
    adapter_args(&mut command, &classes, &jar);
    Ok(Box::new(ProcessAdapter { command }))
}
