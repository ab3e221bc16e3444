//! The JVM binding's checks: `mvn test` of every module (JUnit: the API, the
//! holders' live tests on a Valkey xtask starts, one node across a JVM and
//! the CLI) once on the JDK 17 and once with Surefire forking Temurin 25 —
//! one Maven run each, Maven itself on 17 — then the Surefire reports read
//! back, so a fork that ran on another JDK, or ran nothing, fails.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};

use super::{dir, mvn, setup, PACKAGE};
use crate::{root, runtimes, sh};

/// `mvn test` on each JDK, with the environment the tests read: a fresh
/// claim directory (`EMQ_NODE_DIR`), no `EMQ_NODE`, the Valkey server of the
/// live tests (`EMQ_VALKEY_SERVER`) and the `emq-id` CLI (`EMQ_CLI`) that
/// OneNodeTest mints beside.
pub fn run() -> Result<()> {
    super::build::host_native()?;
    let cli = runtimes::cli::build()?;
    let valkey = runtimes::valkey::setup::server_binary()?;
    let jdks = [("17", setup::jdk17()?.join("bin/java")), ("25", setup::temurin25()?)];
    for (version, java) in jdks {
        let claims = dir(&format!("test-claims-{version}"));
        let _ = std::fs::remove_dir_all(&claims);
        for reports in report_dirs()? {
            let _ = std::fs::remove_dir_all(reports);
        }
        sh(mvn()?
            .args(["test", "--no-transfer-progress"])
            .arg(format!("-Demqid.jvm={}", java.display()))
            .env("EMQ_NODE_DIR", &claims)
            .env("EMQ_VALKEY_SERVER", &valkey)
            .env("EMQ_CLI", &cli)
            .env_remove("EMQ_NODE"))?;
        let (tests, classes) = ran_on(version)?;
        println!(
            "jvm: Java {version} ({}): {tests} tests in {classes} classes, every one on Java {version}",
            java.display()
        );
    }
    Ok(())
}

/// Each module's `target/surefire-reports` (there or not yet).
fn report_dirs() -> Result<Vec<PathBuf>> {
    let modules = root().join(PACKAGE);
    let mut dirs = vec![];
    for entry in std::fs::read_dir(&modules).with_context(|| modules.display().to_string())? {
        let path = entry?.path();
        if path.join("pom.xml").exists() {
            dirs.push(path.join("target/surefire-reports"));
        }
    }
    Ok(dirs)
}

/// The tests and classes Surefire's XML reports count, after checking that
/// each report's JVM says `java.specification.version` = `version`.
fn ran_on(version: &str) -> Result<(u64, usize)> {
    let (mut tests, mut classes) = (0, 0);
    let wanted = format!("name=\"java.specification.version\" value=\"{version}\"");
    for reports in report_dirs()?.iter().filter(|d| d.exists()) {
        for report in crate::files_under(reports, "xml")? {
            let text = crate::read(&report)?;
            ensure!(text.contains(&wanted), "{}: not run on Java {version}", report.display());
            tests += attribute(&text, &report, "tests")?;
            classes += 1;
        }
    }
    ensure!(tests > 0, "Surefire reported no test on Java {version}");
    Ok((tests, classes))
}

/// The number in the report's `<testsuite … name="N"` attribute.
fn attribute(report: &str, path: &Path, name: &str) -> Result<u64> {
    let suite = report.split("<testsuite ").nth(1).with_context(|| format!("{}: no <testsuite>", path.display()))?;
    let value =
        suite.split(&format!(" {name}=\"")).nth(1).and_then(|rest| rest.split('"').next()).and_then(|n| n.parse().ok());
    value.with_context(|| format!("{}: no {name} count", path.display()))
}
