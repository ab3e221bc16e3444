//! The documentation's lease examples (fenced as "```<language> lease"), each run as
//! written against a live 3×2 cluster: the examples name `127.0.0.1:7000`,
//! which becomes the address of the primary of the reserve's slot here, and ask for one replica's
//! acknowledgement, which this cluster gives. An example that fails, or a
//! language without one, fails the run.

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::cluster::Replicated;
use crate::runtimes::{elixir, go, jvm, node, python};
use crate::{root, sh, sh_out};

/// The port every example names.
const PORT: &str = "7000";

/// The documentation's lease examples in `language` (at least one), each
/// with its port made `port`.
fn examples(language: &str, port: u16) -> Result<Vec<String>> {
    let mut found = vec![];
    for block in crate::tree::readme::every(&format!("{language} lease"))? {
        ensure!(block.text.contains(PORT), "the {language} lease example at {} names no port {PORT}", block.place());
        found.push(block.text.replace(PORT, &port.to_string()));
    }
    Ok(found)
}

pub fn run() -> Result<()> {
    let cluster = Replicated::start()?;
    // The primary of the reserve's slot: what the book tells a client that does not follow
    // MOVED (Redix) to connect to; the cluster clients reach it from any node.
    let port = cluster.nodes[cluster.reserve_primary()?].port;
    let dir = root().join("target/readme-examples/lease");
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(&dir)?;
    let mut ran: Vec<String> = vec![];
    let mut check = |language: &'static str, out: String| -> Result<()> {
        ensure!(out.contains("JOB"), "the {language} lease example printed no id: {out}");
        match ran.iter_mut().find(|r| r.starts_with(language)) {
            Some(seen) => *seen = format!("{language} ×{}", seen.matches('×').count() + 2),
            None => ran.push(language.to_string()),
        }
        Ok(())
    };

    // Inside the package, so `@echomq/emq-id/holder` resolves to the package itself, and its
    // dev dependencies (ioredis, node-redis) to its node_modules.
    node::build::package()?;
    node::bench::dev_dependencies()?;
    let script = root().join(node::PACKAGE).join(".readme-lease.mjs");
    for example in examples("javascript", port)? {
        crate::write(&script, example)?;
        let out = sh_out(Command::new("node").arg(&script));
        let _ = std::fs::remove_file(&script);
        check("javascript", out?)?;
    }

    let env = python::holder::environment()?;
    for example in examples("python", port)? {
        crate::write(dir.join("lease.py"), example)?;
        check("python", sh_out(env.python().arg("-I").arg(dir.join("lease.py")))?)?;
    }

    for example in examples("go", port)? {
        go_module(&dir.join("go"), &example)?;
        let run = go::go_with("target/readme-examples/lease/go", go::Backend::Wasm).args(["run", "."]).output()?;
        ensure!(run.status.success(), "the Go lease example: {}", String::from_utf8_lossy(&run.stderr));
        check("go", String::from_utf8_lossy(&run.stdout).into_owned())?;
    }

    // Compiled against the artifacts this run installed, with Jedis and Lettuce as Maven resolved them.
    let class_path = jvm::holder::class_path()?;
    for mut block in crate::tree::readme::every("java lease")? {
        ensure!(block.text.contains(PORT), "the java lease example at {} names no port {PORT}", block.place());
        block.text = block.text.replace(PORT, &port.to_string());
        let (classes, class) = crate::tree::readme::java::compile(&dir.join("java"), &block, &class_path)?;
        let path = format!("{}:{class_path}", classes.display());
        let java = jvm::setup::jdk17()?.join("bin/java");
        check("java", sh_out(Command::new(java).args(["--enable-native-access=ALL-UNNAMED", "-cp", &path, &class]))?)?;
    }

    check("rust", rust(&dir.join("rust"), &rust_example(port)?)?)?;

    // Written for Redix (hex.pm is out of reach here): run with a stand-in of the calls it makes.
    elixir::build::compile()?;
    for example in examples("elixir", port)? {
        check("elixir", sh_out(&mut elixir::holder::with_redix_stand_in(&example))?)?;
    }

    println!("readme: the lease examples in {} ran as written against a live 3×2 cluster", ran.join(", "));
    Ok(())
}

/// A module requiring the binding and the holder by path (the checkout's), with the holder's go.sum.
fn go_module(dir: &Path, main: &str) -> Result<()> {
    crate::mkdir(dir)?;
    crate::write(dir.join("main.go"), main)?;
    let go_dir = root().join("bindings/go");
    crate::write(
        dir.join("go.mod"),
        format!(
            "module example\n\ngo 1.25.0\n\nrequire (\n\tgithub.com/echomq/emq-id/bindings/go v0.0.0\n\t\
             github.com/echomq/emq-id/bindings/go/holder v0.0.0\n\tgithub.com/redis/go-redis/v9 v9.17.3\n)\n\n\
             replace (\n\tgithub.com/echomq/emq-id/bindings/go => {}\n\tgithub.com/echomq/emq-id/bindings/go/holder => {}\n)\n",
            go_dir.display(),
            go_dir.join("holder").display()
        ),
    )?;
    std::fs::copy(go_dir.join("holder/go.sum"), dir.join("go.sum")).context("the holder's go.sum")?;
    sh(go::go_with("target/readme-examples/lease/go", go::Backend::Wasm).args(["mod", "tidy"]))
}

/// The book's Rust lease example (fenced `rust,ignore`, as the core's
/// doctests cannot reach a cluster), the one after "emq_lease".
fn rust_example(port: u16) -> Result<String> {
    let readme = crate::tree::readme::text()?;
    let block = crate::tree::fences::blocks(&readme)?
        .into_iter()
        .filter(|b| b.info == "rust,ignore")
        .map(|b| b.body)
        .find(|b| b.contains("emq_lease::Lease::acquire"))
        .context("the book has no ```rust,ignore example of emq_lease")?;
    ensure!(block.contains(PORT), "the book's Rust lease example names no port {PORT}");
    Ok(block.replace(PORT, &port.to_string()))
}

/// A binary crate around `body` (as `main`'s), over the checkout's crates; built in the
/// workspace's target directory so the crates compiled for the suite are reused.
fn rust(dir: &Path, body: &str) -> Result<String> {
    crate::mkdir(dir.join("src"))?;
    let crates = root().join("crates");
    crate::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"readme-lease\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nemq-lease = {{ path = \"{}\" }}\n\n[workspace]\n",
            crates.join("emq-lease").display()
        ),
    )?;
    crate::write(
        dir.join("src/main.rs"),
        format!("fn main() -> Result<(), Box<dyn std::error::Error>> {{\n{body}\nOk(())\n}}\n"),
    )?;
    sh_out(
        Command::new("cargo")
            .args(["run", "--quiet", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", root().join("target/readme-examples/rust-target")),
    )
}
