//! The Maven artifacts users get: `io.echomq:emq-id`'s jar carrying the four
//! platforms' libraries (zig-built: glibc 2.17, musl), its sources and
//! Javadoc jars (Javadoc's doclint on every check, a warning fails), its pom
//! and the parent pom it inherits from, copied into `target/dist/`; and the
//! proof from outside the tree: a fresh Maven project that depends on
//! `io.echomq:emq-id`, built offline from a local repository that held
//! nothing of emq-id, mints an id.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::build::{jar_platform, LIBRARY};
use super::{setup, ARTIFACT, PACKAGE};
use crate::dist::{self, elf, platform, Artifact};
use crate::{root, sh, sh_out};

/// The name the table gives the runtime.
const RUNTIME: &str = "JVM";

/// Builds the jar over every platform's library (with the `dist` profile:
/// sources and Javadoc jars), checks what it carries, ships the files.
pub fn build() -> Result<Vec<Artifact>> {
    let platforms: Vec<_> = platform::ALL.iter().collect();
    let native = super::build::platform_natives(&platforms, "dist")?;
    let jars = super::build::package(&native, "dist", &["dist"])?;
    let version = dist::version();
    let jar = jars.join(format!("{ARTIFACT}-{version}.jar"));
    let declared = check_jar(&jar)?;

    let mut artifacts = vec![Artifact { runtime: RUNTIME, platform: None, path: ship(&jar)?, version: declared }];
    for classifier in ["sources", "javadoc"] {
        let file = jars.join(format!("{ARTIFACT}-{version}-{classifier}.jar"));
        ensure!(file.exists(), "Maven's dist profile made no {}", file.display());
        // Maven names these jars by the project's version, the one the jar's manifest carries.
        artifacts.push(Artifact { runtime: RUNTIME, platform: None, path: ship(&file)?, version: version.into() });
    }
    let poms = [
        (root().join(PACKAGE).join("pom.xml"), "emq-id-parent"),
        (root().join(PACKAGE).join(ARTIFACT).join("pom.xml"), ARTIFACT),
    ];
    for (pom, artifact) in poms {
        let to = dist::dir()?.join(format!("{artifact}-{version}.pom"));
        std::fs::copy(&pom, &to).with_context(|| format!("copying {} to {}", pom.display(), to.display()))?;
        let declared = pom_version(&crate::read(&to)?)?;
        artifacts.push(Artifact { runtime: RUNTIME, platform: None, path: to, version: declared });
    }
    Ok(artifacts)
}

/// The jar unpacked: `platforms.txt` names the four platforms, each library
/// passes the ELF check of its platform (machine; glibc floor or musl's
/// `libc.so`); answers the version its manifest declares.
fn check_jar(jar: &Path) -> Result<String> {
    let unpacked = dist::scratch("jvm-jar")?;
    sh(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(jar).arg(&*unpacked))?;
    let native = unpacked.join("io/echomq/emqid/native");
    let listed = crate::read(native.join("platforms.txt"))?;
    let wanted: Vec<String> = platform::ALL.iter().map(jar_platform).collect();
    ensure!(
        listed.lines().collect::<Vec<_>>() == wanted,
        "{}: platforms.txt lists {listed:?}, not {wanted:?}",
        jar.display()
    );
    for p in &platform::ALL {
        let library = native.join(jar_platform(p)).join(LIBRARY);
        let line = elf::check_loaded(&library, p)?;
        println!(
            "dist: {}: {}",
            jar.file_name().unwrap_or_default().to_string_lossy(),
            line.trim_start_matches(&format!("{}/", unpacked.display()))
        );
    }
    let manifest = crate::read(unpacked.join("META-INF/MANIFEST.MF"))?;
    let version = manifest.lines().find_map(|l| l.strip_prefix("Implementation-Version: "));
    Ok(version
        .with_context(|| format!("{}: no Implementation-Version in its manifest", jar.display()))?
        .trim()
        .to_string())
}

/// A pom's version: its first `<version>` element, which is the project's
/// own in the parent and the inherited `<parent>`'s in emq-id's.
fn pom_version(pom: &str) -> Result<String> {
    let rest = pom.split("<version>").nth(1).context("a pom without <version>")?;
    Ok(rest.split("</version>").next().unwrap_or_default().trim().to_string())
}

/// Copies a built file into `target/dist/`.
fn ship(built: &Path) -> Result<PathBuf> {
    let to = dist::dir()?.join(built.file_name().context("a built file has a name")?);
    std::fs::copy(built, &to).with_context(|| format!("copying {} to {}", built.display(), to.display()))?;
    Ok(to)
}

/// The plugins both projects below build with (versions as the parent pom
/// pins them), and `maven-dependency-plugin` for the class path the program
/// runs on.
const PLUGINS: &[(&str, &str)] = &[
    ("maven-resources-plugin", "3.5.0"),
    ("maven-compiler-plugin", "3.16.0"),
    ("maven-surefire-plugin", "3.6.1"),
    ("maven-jar-plugin", "3.5.1"),
    ("maven-install-plugin", "3.2.0"),
    ("maven-dependency-plugin", "3.9.0"),
];

/// A user's project: `example.Main`, with emq-id as its one dependency, or
/// (the seed) none, in `dir`.
fn project(dir: &Path, with_emq_id: bool) -> Result<()> {
    let plugins: String = PLUGINS
        .iter()
        .map(|(artifact, version)| {
            format!("      <plugin><artifactId>{artifact}</artifactId><version>{version}</version></plugin>\n")
        })
        .collect();
    let dependency = if with_emq_id {
        format!(
            "  <dependencies>\n    <dependency><groupId>io.echomq</groupId><artifactId>{ARTIFACT}</artifactId><version>{}</version></dependency>\n  </dependencies>\n",
            dist::version()
        )
    } else {
        String::new()
    };
    let pom = format!(
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n  \
         <groupId>example</groupId>\n  <artifactId>{}</artifactId>\n  <version>1</version>\n  \
         <properties>\n    <maven.compiler.release>17</maven.compiler.release>\n    \
         <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>\n  </properties>\n\
         {dependency}  <build>\n    <pluginManagement>\n      <plugins>\n{plugins}      </plugins>\n    </pluginManagement>\n  </build>\n</project>\n",
        if with_emq_id { "consumer" } else { "seed" }
    );
    let sources = dir.join("src/main/java/example");
    crate::mkdir(&sources)?;
    crate::write(dir.join("pom.xml"), pom)?;
    let main = if with_emq_id {
        "package example;\n\nimport io.echomq.emqid.Id;\nimport io.echomq.emqid.Mint;\n\n\
         public final class Main {\n    public static void main(String[] args) {\n        \
         String id = Mint.mint(\"JOB\");\n        System.out.println(id + \" \" + Id.parse(id).ns());\n    }\n}\n"
    } else {
        "package example;\n\npublic final class Main {\n    public static void main(String[] args) {}\n}\n"
    };
    crate::write(sources.join("Main.java"), main)
}

/// `mvn -B` on the JDK 17 in `dir`, over the local repository `repository` and nothing else.
fn maven(dir: &Path, repository: &Path) -> Result<Command> {
    let mut cmd = setup::maven()?;
    cmd.current_dir(dir)
        .args(["-B", "--no-transfer-progress"])
        .arg(format!("-Dmaven.repo.local={}", repository.display()));
    Ok(cmd)
}

/// The shipped jar, sources, Javadoc and poms installed into an empty local
/// repository outside the tree; a fresh project depending on
/// `io.echomq:emq-id` built with `mvn -o` (offline) and run, minting an id.
///
/// An empty repository has none of Maven's own plugins, so an offline build
/// from it cannot start. The honest way chosen here: one online build of a
/// throwaway project with the same plugins and no emq-id (so Central gives
/// plugins, never emq-id) seeds the repository; from then on everything is
/// offline, so emq-id can only come from the shipped files.
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let shipped = |suffix: &str| -> Result<PathBuf> { Ok(dist::find(artifacts, RUNTIME, suffix)?.path.clone()) };
    let version = dist::version();
    let scratch = dist::scratch("jvm")?;
    let repository = scratch.join("m2");
    let (seed, consumer) = (scratch.join("seed"), scratch.join("consumer"));

    project(&seed, false)?;
    sh(maven(&seed, &repository)?.args(["install", "dependency:build-classpath"]))?;
    ensure!(!repository.join("io/echomq").exists(), "the seed put emq-id into the repository");

    let install = "org.apache.maven.plugins:maven-install-plugin:3.2.0:install-file";
    let parent = shipped(&format!("emq-id-parent-{version}.pom"))?;
    sh(maven(&scratch, &repository)?
        .args(["-o", install, "-Dpackaging=pom"])
        .arg(format!("-Dfile={}", parent.display()))
        .arg(format!("-DpomFile={}", parent.display())))?;
    sh(maven(&scratch, &repository)?
        .args(["-o", install])
        .arg(format!("-Dfile={}", shipped(&format!("{ARTIFACT}-{version}.jar"))?.display()))
        .arg(format!("-DpomFile={}", shipped(&format!("{ARTIFACT}-{version}.pom"))?.display()))
        .arg(format!("-Dsources={}", shipped("-sources.jar")?.display()))
        .arg(format!("-Djavadoc={}", shipped("-javadoc.jar")?.display())))?;

    project(&consumer, true)?;
    let class_path = consumer.join("classpath.txt");
    sh(maven(&consumer, &repository)?
        .args(["-o", "package", "dependency:build-classpath"])
        .arg(format!("-Dmdep.outputFile={}", class_path.display())))?;
    let jar = crate::read(&class_path)?;
    let in_repository = repository.join(format!("io/echomq/{ARTIFACT}/{version}"));
    ensure!(
        jar.trim().starts_with(&*in_repository.to_string_lossy()),
        "the consumer's class path is not the installed jar: {jar}"
    );
    for classifier in ["sources", "javadoc"] {
        let file = in_repository.join(format!("{ARTIFACT}-{version}-{classifier}.jar"));
        ensure!(file.exists(), "{} was not installed", file.display());
    }
    let class_path = format!("{}:{}", consumer.join("target/classes").display(), jar.trim());
    let out = sh_out(
        setup::jdk17_tool("java")?
            .args(["--enable-native-access=ALL-UNNAMED", "-cp", &class_path, "example.Main"])
            .env("EMQ_NODE_DIR", scratch.join("claims"))
            .env_remove("EMQ_NODE"),
    )?;
    let printed = out.trim();
    ensure!(
        printed.len() == 18 && printed.starts_with("JOB") && printed.ends_with(" JOB"),
        "the consumer printed {printed:?}, not a minted JOB id and its namespace"
    );
    println!("dist: a fresh Maven project built offline against io.echomq:{ARTIFACT}:{version} from its shipped files minted {printed}");
    Ok(())
}
