//! The documentation's Java examples. Each ```java block is one source file,
//! named after its first top-level class, compiled by the JDK 17's `javac`
//! (`--release 17`, every lint an error) against the emq-id jar Maven
//! installed, and run by the JDK 17 with assertions on (`-ea`: an example's
//! `assert` is checked) and native access allowed, as the page tells users;
//! anything it prints on stderr (a warning) fails it. The ```java lease
//! blocks need a live Valkey, so they are compiled here, against the holders
//! and their clients (Jedis, Lettuce), and run by `cargo xtask chaos`.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};

use super::{each, Block};
use crate::runtimes::jvm::{self, setup};
use crate::sh;

/// Runs every ```java example and compiles every ```java lease one, in
/// `dir`; answers how many of each.
pub fn examples(dir: &Path) -> Result<(usize, usize)> {
    let jar = jvm::build::install()?;
    let ran = each("java", |i, block| {
        let (classes, class) = compile(&dir.join(format!("example{i}")), block, &jar.to_string_lossy())?;
        let class_path = std::env::join_paths([classes.as_path(), jar.as_path()])?;
        let out = setup::jdk17_tool("java")?
            .args(["-ea", "--enable-native-access=ALL-UNNAMED", "-cp"])
            .arg(class_path)
            .arg(&class)
            .env("EMQ_NODE_DIR", dir.join("claims"))
            .env_remove("EMQ_NODE")
            .env_remove("JAVA_TOOL_OPTIONS")
            .output()
            .with_context(|| format!("running {class}"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        ensure!(out.status.success(), "{class} failed ({}):\n{stderr}", out.status);
        ensure!(stderr.trim().is_empty(), "{class} printed on stderr:\n{stderr}");
        Ok(())
    })?;
    let holders = jvm::holder::class_path()?;
    let compiled = each("java lease", |i, block| compile(&dir.join(format!("lease{i}")), block, &holders).map(|_| ()))?;
    Ok((ran, compiled))
}

/// The block written to `<dir>/<Class>.java` and compiled into
/// `<dir>/classes` against `class_path`; answers the classes' directory and
/// the class's name (what `cargo xtask chaos` runs a lease example with).
pub fn compile(dir: &Path, block: &Block, class_path: &str) -> Result<(PathBuf, String)> {
    let class = class_name(&block.text).context("no top-level class: a ```java example is a whole source file")?;
    let source = dir.join(format!("{class}.java"));
    let classes = dir.join("classes");
    crate::mkdir(&classes)?;
    crate::write(&source, &block.text)?;
    sh(setup::jdk17_tool("javac")?
        .args(["--release", "17", "-Xlint:all", "-Werror", "-encoding", "UTF-8", "-cp", class_path, "-d"])
        .arg(&classes)
        .arg(&source))?;
    Ok((classes, class.to_string()))
}

/// The name of the first class declared at the start of a line (`public class Main {`).
fn class_name(source: &str) -> Option<&str> {
    source.lines().filter(|line| !line.starts_with(char::is_whitespace)).find_map(|line| {
        let mut words = line.split_whitespace().skip_while(|w| ["public", "final", "abstract"].contains(w));
        (words.next() == Some("class")).then(|| words.next()).flatten().map(|name| name.trim_end_matches('{'))
    })
}

#[cfg(test)]
mod tests {
    use super::class_name;

    #[test]
    fn names_the_first_top_level_class() {
        let source = "import a.B;\n\n/** class Doc */\npublic final class Main {\n    static class Inner {}\n}\n";
        assert_eq!(class_name(source), Some("Main"));
        assert_eq!(class_name("class Tight{\n}\n"), Some("Tight"));
        assert_eq!(class_name("record R() {}\n"), None);
    }
}
