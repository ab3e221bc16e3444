//! The Maven artifacts users get: `io.echomq:emq-id`, whose jar carries the
//! four platforms' libraries (zig-built: glibc 2.17, musl), and the lease
//! holders `emq-id-jedis` and `emq-id-lettuce`; each with its sources and
//! Javadoc jars (Javadoc's doclint on every check, a warning fails) and its
//! pom, and the parent pom they inherit from, copied into `target/dist/`; and
//! the proof from outside the tree: a fresh Maven project that depends on
//! all three, built offline from a local repository that held nothing of
//! emq-id, mints an id and loads both holders.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::build::{jar_platform, LIBRARY};
use super::{setup, ARTIFACT, ARTIFACTS, PACKAGE};
use crate::dist::{self, elf, platform, Artifact};
use crate::{root, sh, sh_out};

/// The name the table gives the runtime.
const RUNTIME: &str = "JVM";

/// Builds every artifact (with the `dist` profile: sources and Javadoc jars),
/// checks the libraries emq-id's jar carries, ships the files: for each of
/// emq-id, emq-id-jedis and emq-id-lettuce its jar, sources, Javadoc and pom,
/// and the parent pom they inherit from.
pub fn build() -> Result<Vec<Artifact>> {
    let platforms: Vec<_> = platform::ALL.iter().collect();
    let native = super::build::platform_natives(&platforms, "dist")?;
    let jars = super::build::package(&native, "dist", &ARTIFACTS, &["dist"])?;
    let version = dist::version();
    check_jar(&jars.join(format!("{ARTIFACT}-{version}.jar")))?;

    let parent = root().join(PACKAGE).join("pom.xml");
    let mut artifacts = vec![ship_pom(&parent, "emq-id-parent")?];
    for artifact in ARTIFACTS {
        let jar = jars.join(format!("{artifact}-{version}.jar"));
        let declared = manifest_version(&jar)?;
        artifacts.push(Artifact { runtime: RUNTIME, platform: None, path: ship(&jar)?, version: declared });
        for classifier in ["sources", "javadoc"] {
            let file = jars.join(format!("{artifact}-{version}-{classifier}.jar"));
            ensure!(file.exists(), "Maven's dist profile made no {}", file.display());
            // Maven names these jars by the project's version, the one the jar's manifest carries.
            artifacts.push(Artifact { runtime: RUNTIME, platform: None, path: ship(&file)?, version: version.into() });
        }
        artifacts.push(ship_pom(&root().join(PACKAGE).join(artifact).join("pom.xml"), artifact)?);
    }
    Ok(artifacts)
}

/// A pom shipped as `<artifact>-<version>.pom`, with the version it declares.
fn ship_pom(pom: &Path, artifact: &str) -> Result<Artifact> {
    let to = dist::dir()?.join(format!("{artifact}-{}.pom", dist::version()));
    std::fs::copy(pom, &to).with_context(|| format!("copying {} to {}", pom.display(), to.display()))?;
    let declared = pom_version(&crate::read(&to)?)?;
    Ok(Artifact { runtime: RUNTIME, platform: None, path: to, version: declared })
}

/// The version a jar's manifest declares (`Implementation-Version`).
fn manifest_version(jar: &Path) -> Result<String> {
    let unpacked = dist::scratch("jvm-manifest")?;
    sh(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(jar).arg(&*unpacked))?;
    let manifest = crate::read(unpacked.join("META-INF/MANIFEST.MF"))?;
    let version = manifest.lines().find_map(|l| l.strip_prefix("Implementation-Version: "));
    Ok(version
        .with_context(|| format!("{}: no Implementation-Version in its manifest", jar.display()))?
        .trim()
        .to_string())
}

/// The jar unpacked: `platforms.txt` names the four platforms, each library
/// passes the ELF check of its platform (machine; glibc floor or musl's
/// `libc.so`).
fn check_jar(jar: &Path) -> Result<()> {
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
    Ok(())
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

/// A dependency of a user's project: group, artifact, version.
type Dependency = (&'static str, String, String);

/// The clients the holder artifacts depend on, at the versions their poms pin
/// (`<jedis.version>`, `<lettuce.version>`): what the seed fetches, so the
/// offline build finds them as a user's repository would.
fn clients() -> Result<Vec<Dependency>> {
    let pinned = |module: &str, property: &str| -> Result<String> {
        let pom = crate::read(root().join(PACKAGE).join(module).join("pom.xml"))?;
        let open = format!("<{property}>");
        let rest = pom.split(&open).nth(1).with_context(|| format!("{module}/pom.xml pins no {property}"))?;
        Ok(rest.split('<').next().unwrap_or_default().trim().to_string())
    };
    Ok(vec![
        ("redis.clients", "jedis".into(), pinned("emq-id-jedis", "jedis.version")?),
        ("io.lettuce", "lettuce-core".into(), pinned("emq-id-lettuce", "lettuce.version")?),
    ])
}

/// A user's project in `dir`: `example.Main` (an id minted and read back) and
/// `example.Holders` (each holder's `acquire` looked up with its client's
/// types, which loads the holder artifacts and their clients), over
/// `dependencies`; the seed's classes use none of them.
fn project(dir: &Path, dependencies: &[Dependency], seed: bool) -> Result<()> {
    let plugins: String = PLUGINS
        .iter()
        .map(|(artifact, version)| {
            format!("      <plugin><artifactId>{artifact}</artifactId><version>{version}</version></plugin>\n")
        })
        .collect();
    let dependencies: String = dependencies
        .iter()
        .map(|(group, artifact, version)| {
            format!(
                "    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version></dependency>\n"
            )
        })
        .collect();
    let pom = format!(
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n  \
         <groupId>example</groupId>\n  <artifactId>{}</artifactId>\n  <version>1</version>\n  \
         <properties>\n    <maven.compiler.release>17</maven.compiler.release>\n    \
         <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>\n  </properties>\n  \
         <dependencies>\n{dependencies}  </dependencies>\n  <build>\n    <pluginManagement>\n      <plugins>\n{plugins}      </plugins>\n    </pluginManagement>\n  </build>\n</project>\n",
        if seed { "seed" } else { "consumer" }
    );
    let sources = dir.join("src/main/java/example");
    crate::mkdir(&sources)?;
    crate::write(dir.join("pom.xml"), pom)?;
    if seed {
        return crate::write(
            sources.join("Main.java"),
            "package example;\n\npublic final class Main {\n    public static void main(String[] args) {}\n}\n",
        );
    }
    crate::write(
        sources.join("Main.java"),
        "package example;\n\nimport io.echomq.emqid.Id;\nimport io.echomq.emqid.Mint;\n\n\
         public final class Main {\n    public static void main(String[] args) {\n        \
         String id = Mint.mint(\"JOB\");\n        System.out.println(id + \" \" + Id.parse(id).ns());\n    }\n}\n",
    )?;
    crate::write(
        sources.join("Holders.java"),
        "package example;\n\nimport io.echomq.emqid.jedis.JedisLease;\nimport io.echomq.emqid.lettuce.LettuceLease;\n\n\
         public final class Holders {\n    public static void main(String[] args) throws ReflectiveOperationException {\n        \
         System.out.println(JedisLease.class.getMethod(\"acquire\", redis.clients.jedis.RedisClusterClient.class).getName()\n            \
         + \" \" + LettuceLease.class.getMethod(\"acquire\", io.lettuce.core.cluster.RedisClusterClient.class).getName());\n    }\n}\n",
    )
}

/// `mvn -B` on the JDK 17 in `dir`, over the local repository `repository` and nothing else.
fn maven(dir: &Path, repository: &Path) -> Result<Command> {
    let mut cmd = setup::maven()?;
    cmd.current_dir(dir)
        .args(["-B", "--no-transfer-progress"])
        .arg(format!("-Dmaven.repo.local={}", repository.display()));
    Ok(cmd)
}

/// The shipped jars, sources, Javadoc and poms installed into an empty local
/// repository outside the tree; a fresh project depending on `io.echomq:emq-id`
/// and both holder artifacts built with `mvn -o` (offline) and run: it mints an
/// id, and loads each holder with its client's types.
///
/// An empty repository has none of Maven's own plugins, so an offline build
/// from it cannot start. The honest way chosen here: one online build of a
/// throwaway project with the same plugins, the clients the holders need and
/// nothing of emq-id (so Central gives plugins and Jedis and Lettuce, never
/// emq-id) seeds the repository; from then on everything is offline, so
/// emq-id's artifacts can only come from the shipped files.
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let shipped = |suffix: &str| -> Result<PathBuf> { Ok(dist::find(artifacts, RUNTIME, suffix)?.path.clone()) };
    let version = dist::version();
    let scratch = dist::scratch("jvm")?;
    let repository = scratch.join("m2");
    let (seed, consumer) = (scratch.join("seed"), scratch.join("consumer"));

    let clients = clients()?;
    project(&seed, &clients, true)?;
    sh(maven(&seed, &repository)?.args(["install", "dependency:build-classpath"]))?;
    ensure!(!repository.join("io/echomq").exists(), "the seed put emq-id into the repository");

    let install = "org.apache.maven.plugins:maven-install-plugin:3.2.0:install-file";
    let parent = shipped(&format!("emq-id-parent-{version}.pom"))?;
    sh(maven(&scratch, &repository)?
        .args(["-o", install, "-Dpackaging=pom"])
        .arg(format!("-Dfile={}", parent.display()))
        .arg(format!("-DpomFile={}", parent.display())))?;
    for artifact in ARTIFACTS {
        sh(maven(&scratch, &repository)?
            .args(["-o", install])
            .arg(format!("-Dfile={}", shipped(&format!("/{artifact}-{version}.jar"))?.display()))
            .arg(format!("-DpomFile={}", shipped(&format!("/{artifact}-{version}.pom"))?.display()))
            .arg(format!("-Dsources={}", shipped(&format!("/{artifact}-{version}-sources.jar"))?.display()))
            .arg(format!("-Djavadoc={}", shipped(&format!("/{artifact}-{version}-javadoc.jar"))?.display())))?;
    }

    let ours: Vec<Dependency> =
        ARTIFACTS.iter().map(|artifact| ("io.echomq", artifact.to_string(), version.to_string())).collect();
    project(&consumer, &ours, false)?;
    let class_path = consumer.join("classpath.txt");
    sh(maven(&consumer, &repository)?
        .args(["-o", "package", "dependency:build-classpath"])
        .arg(format!("-Dmdep.outputFile={}", class_path.display())))?;
    let jars = crate::read(&class_path)?;
    for artifact in ARTIFACTS {
        let in_repository = repository.join(format!("io/echomq/{artifact}/{version}"));
        let jar = in_repository.join(format!("{artifact}-{version}.jar"));
        ensure!(
            jars.split(':').any(|entry| Path::new(entry.trim()) == jar),
            "the consumer's class path has no installed {}: {jars}",
            jar.display()
        );
        for classifier in ["sources", "javadoc"] {
            let file = in_repository.join(format!("{artifact}-{version}-{classifier}.jar"));
            ensure!(file.exists(), "{} was not installed", file.display());
        }
    }
    let class_path = format!("{}:{}", consumer.join("target/classes").display(), jars.trim());
    let run = |class: &str| -> Result<String> {
        let out = sh_out(
            setup::jdk17_tool("java")?
                .args(["--enable-native-access=ALL-UNNAMED", "-cp", &class_path, class])
                .env("EMQ_NODE_DIR", scratch.join("claims"))
                .env_remove("EMQ_NODE"),
        )?;
        Ok(out.trim().to_string())
    };
    let printed = run("example.Main")?;
    ensure!(
        printed.len() == 18 && printed.starts_with("JOB") && printed.ends_with(" JOB"),
        "the consumer printed {printed:?}, not a minted JOB id and its namespace"
    );
    let holders = run("example.Holders")?;
    ensure!(holders == "acquire acquire", "the consumer's holders printed {holders:?}");
    println!(
        "dist: a fresh Maven project built offline against io.echomq:{{{}}}:{version} from their shipped files minted {printed} and loaded both holders with their clients",
        ARTIFACTS.join(",")
    );
    Ok(())
}
