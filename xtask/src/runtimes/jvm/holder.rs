//! The JVM holders of `cargo xtask chaos`'s fleet: `bindings/jvm/examples/ChaosHolder.java`
//! (`io.echomq.emqid.holder.LeaseHolder` through `JedisLease` over Jedis, or `LettuceLease` over
//! Lettuce), compiled by the examples' own pom against the artifacts this run installed into
//! `target/jvm/m2`, and run by the JDK 17.

use anyhow::{Context, Result};

use super::{dir, mvn, setup};
use crate::runtimes::valkey::chaos::holder::Program;

/// The examples' project, beside the artifacts (not a module of the parent: nothing in it is published).
const EXAMPLES: &str = "examples/pom.xml";

/// The holders' class path: the artifacts installed (the emq-id jar over this host's library,
/// emq-id-jedis, emq-id-lettuce), `ChaosHolder` compiled into `target/jvm/examples/classes`,
/// then its classes and the dependencies' jars as Maven resolved them.
pub fn class_path() -> Result<String> {
    super::build::install()?;
    let listed = dir("examples/class-path.txt");
    crate::sh(
        mvn()?
            .args(["-f", EXAMPLES, "compile", "dependency:build-classpath", "--no-transfer-progress"])
            .arg(format!("-Dmdep.outputFile={}", listed.display())),
    )
    .context("compiling the JVM chaos holder (bindings/jvm/examples)")?;
    let dependencies = crate::read(&listed)?;
    let classes = dir("examples/classes");
    let paths = std::iter::once(classes).chain(std::env::split_paths(dependencies.trim()));
    let joined = std::env::join_paths(paths).context("a class path entry with ':'")?;
    Ok(joined.to_string_lossy().into_owned())
}

/// The holder programs: `ChaosHolder --client jedis` and `--client lettuce`, native access
/// allowed (the emq-id jar loads its library; JDK 24+ warn otherwise, 17 accepts the flag).
pub fn chaos_holders() -> Result<Vec<Program>> {
    let class_path = class_path()?;
    let java = setup::jdk17()?.join("bin/java");
    let program = |runtime: &'static str| Program {
        runtime,
        program: java.clone(),
        args: ["--enable-native-access=ALL-UNNAMED", "-cp", &class_path, "ChaosHolder", "--client", runtime]
            .map(String::from)
            .to_vec(),
        env: vec![],
    };
    Ok(vec![program("jedis"), program("lettuce")])
}
