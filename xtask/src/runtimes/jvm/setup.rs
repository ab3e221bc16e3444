//! What the JVM binding needs: Maven (Debian's `maven` when `mvn` is
//! missing), the JDK 17 that builds everything and runs Maven (Debian's
//! default JDK, `openjdk-17-jdk-headless` when missing: the artifacts' floor
//! is `--release 17`), and Temurin 25, the newest LTS, which the tests run on
//! too (not in Debian 12: it is expected under /usr/lib/jvm, and its absence
//! is named).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Result};

use crate::setup;

/// Debian's JDK 17 (what `javac --release 17` and Maven run on).
pub const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";

/// `mvn` (installed from Debian when missing), run on the JDK 17: Maven on a
/// newer JDK prints warnings of its bundled libraries; the tests reach JDK
/// 25 through Surefire's forked JVM instead ([`temurin25`]).
pub fn maven() -> Result<Command> {
    jdk17()?;
    if !crate::have("mvn") {
        setup::apt(&["maven"], "the JVM binding's build (Maven)")?;
    }
    setup::require("mvn", "the JVM binding is built by Maven")?;
    let mut cmd = Command::new("mvn");
    cmd.env("JAVA_HOME", JDK17).env_remove("MAVEN_OPTS").env_remove("MAVEN_ARGS");
    Ok(cmd)
}

/// The JDK 17's home, with `javac` (Debian's headless JDK when missing).
pub fn jdk17() -> Result<PathBuf> {
    let home = PathBuf::from(JDK17);
    if !home.join("bin/javac").exists() {
        setup::apt(&["openjdk-17-jdk-headless"], "the JVM binding (JDK 17: javac --release 17, Maven's JVM)")?;
    }
    if !home.join("bin/javac").exists() {
        bail!("no JDK 17 at {JDK17} after installing openjdk-17-jdk-headless");
    }
    Ok(home)
}

/// A program of the JDK 17 (`java`, `javac`, `jar`).
pub fn jdk17_tool(name: &str) -> Result<Command> {
    Ok(Command::new(jdk17()?.join("bin").join(name)))
}

/// Temurin 25's `java` (`/usr/lib/jvm/temurin-25-*`). Debian 12 has no JDK
/// 25 and xtask does not add Adoptium's apt repository on its own, so a
/// machine without it fails here, naming what to install.
pub fn temurin25() -> Result<PathBuf> {
    let jvms = Path::new("/usr/lib/jvm");
    let mut found: Vec<PathBuf> = std::fs::read_dir(jvms)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("temurin-25-")))
                .map(|p| p.join("bin/java"))
                .filter(|java| java.exists())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    match found.pop() {
        Some(java) => Ok(java),
        None => bail!(
            "no Temurin 25 under /usr/lib/jvm (temurin-25-*/bin/java): the JVM tests run on JDK 17 and JDK 25; \
             install Adoptium's `temurin-25-jdk` (https://adoptium.net/installation/linux/)"
        ),
    }
}
