//! The Elixir binding as the package a `mix.exs` depends on by path:
//! `emq_id-elixir-<version>.tar.gz` (unpacking to `emq_id-<version>/`), a source package. It holds the Mix project
//! (mix.exs, lib/, README.md), its NIF crate (native/) and the core crate
//! beside it (core/), each as `cargo package` makes it for a registry (the
//! workspace's values written in); the NIF's manifest then names the core by
//! path and is a workspace of its own, with the tree's release profile and the
//! Cargo.lock the tree builds with. `mix compile` then builds the NIF with
//! cargo wherever the tarball is unpacked. And the proof: a fresh `mix new`
//! project outside the tree depends on it by path and runs `mix test` against it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use toml_edit::{value, DocumentMut, Item, Table};

use super::PROJECT;
use crate::dist::{self, Artifact};
use crate::{root, sh, sh_out};

/// The core crate and the NIF's, by their cargo names.
const CORE: &str = "emq-id";
const NIF: &str = "emq-id-elixir";

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
    let [core, nif] = cargo_package([CORE, NIF])?;
    unpack_crate(&core, &top.join("core"))?;
    unpack_crate(&nif, &top.join("native"))?;
    for (manifest, nif) in [(top.join("core/Cargo.toml"), false), (top.join("native/Cargo.toml"), true)] {
        crate::write(&manifest, standalone(&crate::read(&manifest)?, nif)?)?;
    }
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

/// `cargo package` of the crates, together (the NIF's dependency on the
/// unpublished core resolves among them), unbuilt: their `.crate` files.
fn cargo_package<const N: usize>(crates: [&str; N]) -> Result<[PathBuf; N]> {
    let mut cargo = Command::new("cargo");
    cargo.current_dir(root()).args(["package", "--quiet", "--no-verify", "--allow-dirty"]);
    for name in crates {
        cargo.args(["-p", name]);
    }
    sh(&mut cargo)?;
    Ok(crates.map(|name| root().join("target/package").join(format!("{name}-{}.crate", dist::version()))))
}

/// A `.crate` unpacked into `to`, without what only a registry reads (the
/// original manifest, the VCS note) or the crate's own lock file.
fn unpack_crate(packed: &Path, to: &Path) -> Result<()> {
    crate::mkdir(to)?;
    sh(Command::new("tar")
        .arg("-xzf")
        .arg(packed)
        .arg("-C")
        .arg(to)
        .args(["--strip-components=1", "--exclude=*/Cargo.toml.orig", "--exclude=*/.cargo_vcs_info.json"])
        .arg("--exclude=*/Cargo.lock"))
}

/// A packaged manifest made to build where the package is unpacked, inside a
/// user's project: without the workspace's lints, which cargo would apply to
/// a path dependency (a lint a newer Rust adds to `deny` would break a user's
/// build); and for the NIF, the core by path (`../core`), a workspace of its
/// own and the tree's `[profile.release]` (unwinding, so a panic raises in the caller).
fn standalone(packaged: &str, nif: bool) -> Result<String> {
    let mut manifest: DocumentMut = packaged.parse().context("a packaged Cargo.toml")?;
    manifest.remove("lints");
    if nif {
        let tree: DocumentMut =
            crate::read(root().join("Cargo.toml"))?.parse().context("the workspace's Cargo.toml")?;
        let core =
            manifest["dependencies"][CORE].as_table_mut().context("the NIF's manifest has no [dependencies.emq-id]")?;
        core.insert("path", value("../core"));
        manifest.insert("workspace", Item::Table(Table::new()));
        let release = tree["profile"]["release"].clone();
        ensure!(release.is_table(), "the workspace has no [profile.release]");
        let mut profile = Table::new();
        profile.set_implicit(true);
        profile.insert("release", release);
        manifest.insert("profile", Item::Table(profile));
    }
    Ok(format!(
        "# cargo package's manifest, made by `cargo xtask dist` to build here: no workspace lints{}.\n{manifest}",
        if nif { ", the core by path,\n# a workspace of its own, the tree's release profile" } else { "" }
    ))
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

/// The tree's Cargo.lock, cut down to what the NIF's own workspace uses:
/// every crate at the version the tree builds and tests (checked), nothing
/// resolved anew.
fn lock(native: &Path) -> Result<()> {
    let tree = crate::read(root().join("Cargo.lock"))?;
    crate::write(native.join("Cargo.lock"), &tree)?;
    sh(Command::new("cargo").current_dir(native).args(["update", "--workspace", "--quiet"]))?;
    let (ours, theirs) = (locked(&crate::read(native.join("Cargo.lock"))?)?, locked(&tree)?);
    let new: Vec<String> = ours.difference(&theirs).map(|(n, v)| format!("{n} {v}")).collect();
    ensure!(new.is_empty(), "the package's Cargo.lock has versions the tree's has not: {}", new.join(", "));
    ensure!(ours.iter().any(|(n, _)| n == "rustler"), "the package's Cargo.lock has no rustler");
    Ok(())
}

/// A Cargo.lock's packages, as (name, version).
fn locked(lock: &str) -> Result<BTreeSet<(String, String)>> {
    let lock: DocumentMut = lock.parse().context("reading a Cargo.lock")?;
    let packages = lock["package"].as_array_of_tables().context("a Cargo.lock without [[package]]")?;
    let field = |p: &Table, key: &str| p.get(key).and_then(|v| v.as_str()).map(str::to_string);
    Ok(packages.iter().filter_map(|p| Some((field(p, "name")?, field(p, "version")?))).collect())
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
