//! The JVM binding (bindings/jvm): the JNI crate `emq-id-jvm` (the cdylib
//! `libemqid_jni.so`) and the Maven artifacts around it, `io.echomq:emq-id`
//! and the lease holders over Jedis and Lettuce. Its prerequisites (`setup.rs`:
//! Maven, the JDK 17 it builds with and the Temurin 25 its tests also run
//! on), the native libraries and the jars (`build.rs`), the conformance
//! adapter conformance/jvm (`adapter.rs`), JUnit on both JDKs (`tests.rs`),
//! the packages and their proof from outside the tree (`dist.rs`), and the
//! chaos fleet's holder programs (`holder.rs`).
//!
//! Maven's local repository is `target/jvm/m2`: nothing is kept outside the clone.

pub mod adapter;
pub mod bench;
pub mod build;
pub mod dist;
pub mod holder;
pub mod setup;
pub mod tests;

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use crate::root;

/// The binding: its Cargo crate, the parent pom and one folder per artifact.
pub const PACKAGE: &str = "bindings/jvm";

/// The main artifact's id (`io.echomq:emq-id`), as Maven names its files.
pub const ARTIFACT: &str = "emq-id";

/// Every artifact users get, each a module of the parent pom: the contract, and the lease
/// holders over Jedis and over Lettuce.
pub const ARTIFACTS: [&str; 3] = [ARTIFACT, "emq-id-jedis", "emq-id-lettuce"];

/// `target/jvm/<name>`: this room's outputs.
pub fn dir(name: &str) -> PathBuf {
    root().join("target/jvm").join(name)
}

/// `mvn -B` in `bindings/jvm`, run by the JDK 17 with its local repository
/// under `target/jvm/m2`. Batch mode (`-B`) for plain logs; never `-q` for a
/// test run, which would hide the Surefire `Tests run:` lines CI reads.
pub fn mvn() -> Result<Command> {
    let mut cmd = setup::maven()?;
    cmd.current_dir(root().join(PACKAGE)).arg("-B").arg(format!("-Dmaven.repo.local={}", repository().display()));
    Ok(cmd)
}

/// Maven's local repository for every build of the tree: `target/jvm/m2`.
pub fn repository() -> PathBuf {
    dir("m2")
}
