//! The Elixir binding as the package a `mix.exs` depends on by path:
//! `emq_id-elixir-<version>.tar.gz` (unpacking to `emq_id-<version>/`), a source package. It holds the Mix project
//! (mix.exs, lib/, README.md), its NIF crate (native/, a cargo workspace of its own, with
//! the Cargo.lock the tree builds with) and a copy of the core crate beside it
//! (core/), each manifest made standalone: the workspace's values written in,
//! the core by path. `mix compile` then builds the NIF with cargo wherever the
//! tarball is unpacked. And the proof: a fresh `mix new` project outside the
//! tree depends on it by path and runs `mix test` against it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use super::PROJECT;
use crate::dist::{self, Artifact};
use crate::{root, sh, sh_out};

/// The core crate, copied into the package as `core/`.
const CORE: &str = "crates/emq-id";

/// Stages the package under `target/dist-stage/elixir/` and packs it
/// (reproducibly: sorted, one owner, one time); its version is read back from
/// the tarball's mix.exs.
pub fn build() -> Result<Vec<Artifact>> {
    let project = root().join(PROJECT);
    write_version(&project.join("mix.exs"))?;
    let name = format!("emq_id-{}", dist::version());
    let stage = root().join("target/dist-stage/elixir");
    let _ = std::fs::remove_dir_all(&stage);
    let top = stage.join(&name);
    copy_tree(&project.join("mix.exs"), &top.join("mix.exs"))?;
    copy_tree(&project.join("lib"), &top.join("lib"))?;
    copy_tree(&project.join("README.md"), &top.join("README.md"))?;
    dist::licenses_into(&top)?;
    copy_tree(&project.join("native/src"), &top.join("native/src"))?;
    copy_tree(&root().join(CORE).join("src"), &top.join("core/src"))?;
    let workspace = Workspace::read()?;
    let nif = workspace.standalone(&crate::read(project.join("native/Cargo.toml"))?, Some("../core"))?;
    let core = workspace.standalone(&crate::read(root().join(CORE).join("Cargo.toml"))?, None)?;
    crate::write(top.join("native/Cargo.toml"), nif)?;
    crate::write(top.join("core/Cargo.toml"), core)?;
    lock(&top.join("native"))?;

    // Not `{name}.tar.gz`: that is the Python sdist's name (PEP 625) in the same directory.
    let tarball = dist::dir()?.join(format!("emq_id-elixir-{}.tar.gz", dist::version()));
    sh(Command::new("tar")
        .args(["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "-czf"])
        .arg(&tarball)
        .arg("-C")
        .arg(&stage)
        .arg(&name))?;
    let version = read_back(&tarball, &name)?;
    Ok(vec![Artifact { runtime: "Elixir", platform: None, path: tarball, version }])
}

/// Unpacked into an empty directory, then the path dependency of a project
/// `mix new` makes in another: its `mix test` mints, decodes and places keys
/// through the package, whose NIF cargo builds from the package's own sources.
/// Mix's and Hex's homes are empty directories of their own: nothing from
/// hex.pm, nothing from the checkout.
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    super::setup::prerequisites()?;
    let artifact = dist::find(artifacts, "Elixir", ".tar.gz")?;
    let unpacked = dist::scratch("elixir-package")?;
    sh(Command::new("tar").arg("-xzf").arg(&artifact.path).arg("-C").arg(&*unpacked))?;
    let package = unpacked.join(format!("emq_id-{}", artifact.version));
    ensure!(package.join("mix.exs").is_file(), "{} unpacks no {}/mix.exs", artifact.path.display(), package.display());

    let outside = dist::scratch("elixir-consumer")?;
    let mix = |dir: &Path, args: &[&str]| {
        let mut cmd = Command::new("mix");
        cmd.current_dir(dir)
            .args(args)
            .env("MIX_HOME", outside.join("mix-home"))
            .env("HEX_HOME", outside.join("hex-home"))
            .env("HEX_OFFLINE", "1")
            .env("EMQ_NODE", "5")
            .env("EMQ_NODE_DIR", outside.join("claims")); // apart from the host's own node claims
        for inherited in ["MIX_ENV", "MIX_TARGET", "MIX_EXS", "MIX_BUILD_ROOT", "MIX_BUILD_PATH", "MIX_DEPS_PATH"] {
            cmd.env_remove(inherited);
        }
        cmd.env_remove("ERL_LIBS").env_remove("CARGO_TARGET_DIR");
        cmd
    };
    sh(&mut mix(&outside, &["new", "consumer"]))?;
    let consumer = outside.join("consumer");
    let mix_exs = crate::read(consumer.join("mix.exs"))?;
    let list = "defp deps do\n    [\n";
    ensure!(mix_exs.matches(list).count() == 1, "mix new wrote a mix.exs without one deps list:\n{mix_exs}");
    let dep = format!("{list}      {{:emq_id, path: {:?}}}\n", package.display().to_string());
    crate::write(consumer.join("mix.exs"), mix_exs.replace(list, &dep))?;
    crate::write(consumer.join("test/consumer_test.exs"), CONSUMER_TEST)?;

    eprintln!("$ mix test   (in {})", consumer.display());
    let ran = mix(&consumer, &["test"]).output().context("running mix test")?;
    let out = String::from_utf8_lossy(&ran.stdout);
    eprint!("{out}{}", String::from_utf8_lossy(&ran.stderr));
    ensure!(ran.status.success(), "mix test of the consumer failed ({})", ran.status);
    ensure!(out.contains("consumer: minted") && out.contains("1 test, 0 failures"), "the consumer's test did not run");
    let built = package.join("native/target/release/libemq_id_nif.so");
    ensure!(built.is_file(), "no {}: the NIF was not built from the package's sources", built.display());
    Ok(())
}

const CONSUMER_TEST: &str = r#"defmodule ConsumerTest do
  use ExUnit.Case

  test "emq_id from its package: mints, decodes, places keys" do
    assert {:ok, id} = EmqId.mint("JOB")
    assert %{ns: "JOB", node: 5} = EmqId.decode!(id)
    assert {:ok, key} = EmqId.Keyspace.key("orders", "job:#{id}:lock")
    assert EmqId.Keyspace.slot(key) == EmqId.Keyspace.slot("orders")
    assert EmqId.Keyspace.slot("emq:{orders}:pending") == 105
    assert {:error, :charset} = EmqId.parse("JOB0KHTOWnGL!C")
    IO.puts("consumer: minted #{id} on node 5, #{key} in slot #{EmqId.Keyspace.slot(key)}")
  end
end
"#;

/// Writes the workspace's version into mix.exs's `@version` when it differs.
fn write_version(mix_exs: &Path) -> Result<()> {
    let text = crate::read(mix_exs)?;
    let declared = mix_version(&text).with_context(|| mix_exs.display().to_string())?;
    if declared != dist::version() {
        eprintln!("xtask: {} says {declared}: writing the workspace's {}", mix_exs.display(), dist::version());
        let from = format!("@version \"{declared}\"");
        crate::write(mix_exs, text.replacen(&from, &format!("@version \"{}\"", dist::version()), 1))?;
    }
    Ok(())
}

/// The one `@version "…"` of a mix.exs.
fn mix_version(text: &str) -> Result<String> {
    let found: Vec<&str> =
        text.lines().filter_map(|l| l.trim().strip_prefix("@version \"").and_then(|v| v.strip_suffix('"'))).collect();
    match found[..] {
        [v] => Ok(v.to_string()),
        _ => bail!("mix.exs should have one @version \"…\" line, has {}", found.len()),
    }
}

/// The tarball's version, from its mix.exs; its two crates must say the same.
fn read_back(tarball: &Path, name: &str) -> Result<String> {
    let member = |path: &str| sh_out(Command::new("tar").arg("-xOzf").arg(tarball).arg(format!("{name}/{path}")));
    let version = mix_version(&member("mix.exs")?)?;
    for manifest in ["native/Cargo.toml", "core/Cargo.toml"] {
        let text = member(manifest)?;
        let line = format!("version = \"{version}\"");
        ensure!(text.lines().any(|l| l == line), "{}: {name}/{manifest} is not version {version}", tarball.display());
    }
    Ok(version)
}

/// The workspace manifest's values a member inherits.
struct Workspace {
    /// `[workspace.package]`: `version`, `edition`, `license`, … as written (quoted).
    package: Vec<(String, String)>,
    /// `[workspace.dependencies]`: each dependency's value as written.
    dependencies: Vec<(String, String)>,
    /// `[profile.release]`'s lines: the NIF is built as the tree builds it (unwinding, so a panic raises in the caller).
    release: Vec<String>,
}

impl Workspace {
    fn read() -> Result<Self> {
        let text = crate::read(root().join("Cargo.toml"))?;
        let pairs = |section: &str| -> Vec<(String, String)> {
            sections(&text)
                .into_iter()
                .filter(|(h, _)| h == section)
                .flat_map(|(_, lines)| lines)
                .filter_map(|l| l.split_once(" = ").map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
                .filter(|(k, _)| !k.starts_with('#'))
                .collect()
        };
        let release = sections(&text)
            .into_iter()
            .filter(|(h, _)| h == "[profile.release]")
            .flat_map(|(_, lines)| lines)
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        Ok(Workspace {
            package: pairs("[workspace.package]"),
            dependencies: pairs("[workspace.dependencies]"),
            release,
        })
    }

    /// A member's manifest with nothing from the workspace: inherited values
    /// written in, the core by path (`core`), what only the tree uses (lints,
    /// dev-dependencies, benchmarks, the readme) dropped; with `core`, the
    /// manifest is a workspace of its own, with the tree's release profile.
    fn standalone(&self, manifest: &str, core: Option<&str>) -> Result<String> {
        let mut out = String::from(
            "# Written by `cargo xtask dist` from the repository's manifest, with the\n\
             # workspace's values written in: this crate builds outside the repository.\n",
        );
        for (header, lines) in sections(manifest) {
            if ["[lints]", "[dev-dependencies]", "[[bench]]", "[[test]]", "[[example]]"].contains(&header.as_str()) {
                continue;
            }
            if !header.is_empty() {
                out.push_str(&header);
                out.push('\n');
            }
            for line in lines {
                let t = line.trim();
                if header == "[package]" && t.starts_with("readme") {
                    continue;
                }
                if let Some(key) = t.strip_suffix(".workspace = true") {
                    let (_, value) = self
                        .package
                        .iter()
                        .find(|(k, _)| k == key)
                        .with_context(|| format!("no {key} in [workspace.package]"))?;
                    out.push_str(&format!("{key} = {value}\n"));
                } else if t.contains("workspace = true") {
                    out.push_str(&self.dependency(t, core)?);
                } else {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        if core.is_some() {
            out.push_str("\n[workspace]\n\n[profile.release]\n");
            for line in &self.release {
                out.push_str(line);
                out.push('\n');
            }
        }
        ensure!(!out.contains("workspace = true"), "a manifest still inherits from the workspace:\n{out}");
        Ok(out)
    }

    /// `emq-id = { workspace = true, … }` as the workspace declares it, by path to `core`.
    fn dependency(&self, line: &str, core: Option<&str>) -> Result<String> {
        let (name, _) = line.split_once(" = ").with_context(|| format!("cannot read {line:?}"))?;
        let (_, value) = self
            .dependencies
            .iter()
            .find(|(k, _)| k == name)
            .with_context(|| format!("no {name} in [workspace.dependencies]"))?;
        let (Some(core), Some(inner)) = (core, value.strip_prefix("{ ").and_then(|v| v.strip_suffix(" }"))) else {
            bail!("{line:?}: only the core is inherited from the workspace, and only by a crate that has a copy of it");
        };
        ensure!(name == "emq-id", "{line:?}: only the core is inherited from the workspace");
        let inner = inner.replacen(&format!("path = \"{CORE}\""), &format!("path = \"{core}\""), 1);
        ensure!(inner.contains(core), "{name} in [workspace.dependencies] is not at {CORE}: {value}");
        Ok(format!("{}\n", line.replacen("workspace = true", &inner, 1)))
    }
}

/// A TOML file's lines by section: the header (`""` before the first) and its lines.
fn sections(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut out = vec![(String::new(), vec![])];
    for line in text.lines() {
        if line.starts_with('[') {
            out.push((line.trim().to_string(), vec![]));
        } else if let Some((_, lines)) = out.last_mut() {
            lines.push(line);
        }
    }
    out
}

/// The tree's Cargo.lock, cut down to what the NIF's own workspace uses:
/// every crate at the version the tree builds and tests (checked), nothing
/// resolved anew.
fn lock(native: &Path) -> Result<()> {
    let tree = crate::read(root().join("Cargo.lock"))?;
    crate::write(native.join("Cargo.lock"), &tree)?;
    sh(Command::new("cargo").current_dir(native).args(["update", "--workspace", "--quiet"]))?;
    let (ours, theirs) = (locked(&crate::read(native.join("Cargo.lock"))?), locked(&tree));
    let new: Vec<String> = ours.difference(&theirs).map(|(n, v)| format!("{n} {v}")).collect();
    ensure!(new.is_empty(), "the package's Cargo.lock has versions the tree's has not: {}", new.join(", "));
    ensure!(ours.iter().any(|(n, _)| n == "rustler"), "the package's Cargo.lock has no rustler");
    Ok(())
}

/// A Cargo.lock's packages, as (name, version).
fn locked(lock: &str) -> BTreeSet<(String, String)> {
    let field = |line: &str, key: &str| line.strip_prefix(key).and_then(|v| v.strip_suffix('"')).map(str::to_string);
    let mut out = BTreeSet::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = field(line, "name = \"") {
            name = Some(n);
        } else if let (Some(v), Some(n)) = (field(line, "version = \""), name.take()) {
            out.insert((n, v));
        }
    }
    out
}

/// Copies a file, or a folder and everything in it.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if from.is_dir() {
        crate::mkdir(to)?;
        for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        crate::mkdir(parent)?;
    }
    std::fs::copy(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}
