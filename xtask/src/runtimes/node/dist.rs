//! The npm tarballs (`npm pack` into `target/dist/`): the main package, the
//! platform packages it names as optional dependencies (`platforms.rs`), and
//! what both npm packages share: the version written from the workspace's, the metadata a
//! registry takes (read back from the tarball), every entry of its `files`
//! list shipped (npm's own `npm pack --json` account), and the proof from outside the tree (installed
//! into an empty directory, then required and imported). This room is the
//! Node package's; the WASM package's room calls [`pack`] and [`install_and_use`].

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};
use serde_json::Value;

use super::{npm, platforms, PACKAGE};
use crate::dist::{self, Artifact, Selection};
use crate::{root, sh, sh_out};

/// The package's name on npm.
pub const NAME: &str = "@echomq/emq-id";

/// The selected platforms' packages, and with everything `@echomq/emq-id`
/// itself: the JS layer, the WebAssembly fallback, and the platform packages
/// as optional dependencies.
pub fn build(selection: &Selection) -> Result<Vec<Artifact>> {
    let mut artifacts = vec![];
    for platform in &selection.platforms {
        artifacts.push(platforms::pack(platform)?);
    }
    if selection.everything {
        super::build::package()?;
        let mut main = pack(PACKAGE, "Node")?;
        main.path = with_optional_dependencies(&main.path)?;
        artifacts.push(main);
    }
    Ok(artifacts)
}

/// The packed main package again, its package.json naming every platform
/// package as an optional dependency. They are written at packing, as
/// napi-rs's `prepublish` does, not in the source tree's package.json: there
/// npm ci would look for them in the lock file, and the registry has none of
/// this version before they are published.
fn with_optional_dependencies(tarball: &Path) -> Result<PathBuf> {
    let stage = root().join("target/dist-stage/npm/main");
    let _ = std::fs::remove_dir_all(&stage);
    crate::mkdir(&stage)?;
    sh(Command::new("tar").arg("-xzf").arg(tarball).arg("-C").arg(&stage))?;
    let package = stage.join("package");
    let mut manifest = crate::load(&package.join("package.json"))?;
    manifest["optionalDependencies"] = platforms::optional_dependencies();
    crate::write(package.join("package.json"), format!("{}\n", serde_json::to_string_pretty(&manifest)?))?;
    std::fs::remove_file(tarball).with_context(|| format!("removing {}", tarball.display()))?;
    Ok(npm_pack(&package)?.0)
}

/// The main tarball installed as a user installs it, each platform package
/// served from its tarball (npm `overrides`, standing in for the registry):
/// npm installs the one whose os, cpu and libc fit this host, and the addon
/// answers from it (the WebAssembly build when `EMQ_ID_BACKEND=wasm` asks).
/// Then installed with no platform package to be had: WebAssembly answers,
/// and the package says so (a warning, and `backendInfo()`).
pub fn from_outside(artifacts: &[Artifact]) -> Result<()> {
    let tarball = &dist::find(artifacts, "Node", &format!("emq-id-{}.tgz", dist::version()))?.path;
    let served: Vec<(String, std::path::PathBuf)> = artifacts
        .iter()
        .filter(|a| a.runtime == "Node")
        .filter_map(|a| a.platform.map(|p| (platforms::package_name(p), a.path.clone())))
        .collect();
    let host = dist::find_native(artifacts, "Node", ".tgz")?.platform.expect("a native artifact has a platform");
    let picked = platforms::package_name(host);
    let consumer = install(tarball, "node", &served, &[])?;
    let installed: Vec<String> =
        served.iter().map(|(n, _)| n.clone()).filter(|n| consumer.join("node_modules").join(n).exists()).collect();
    ensure!(installed == [picked.clone()], "npm installed the platform packages {installed:?}, not just {picked}");
    use_installed(&consumer, NAME, &[(None, "native", &picked), (Some("wasm"), "wasm", "EMQ_ID_BACKEND=wasm")])?;
    println!(
        "dist: npm installed {NAME} with {picked} alone of {} platform packages; the addon answered",
        served.len()
    );
    // npm told to leave optional dependencies out: what a user of --omit=optional gets.
    let bare = install(tarball, "node-bare", &[], &["--omit=optional"])?;
    let warned = use_installed(&bare, NAME, &[(None, "wasm", "is not installed")])?;
    ensure!(warned.contains("EMQ_ID_NO_ADDON"), "no EMQ_ID_NO_ADDON warning without the platform package:\n{warned}");
    println!("dist: without {picked}, WebAssembly answered and the package warned (EMQ_ID_NO_ADDON)");
    Ok(())
}

/// A scratch project outside the tree that installs `tarball`, with
/// `served` packages resolved to their tarballs and `npm_flags` (as
/// `--cpu=arm64`) given to npm install.
pub fn install(
    tarball: &Path,
    scratch: &str,
    served: &[(String, std::path::PathBuf)],
    npm_flags: &[&str],
) -> Result<dist::Scratch> {
    let consumer = dist::scratch(scratch)?;
    install_into(&consumer, tarball, served, npm_flags)?;
    Ok(consumer)
}

/// [`install`] into `consumer`, an empty directory the caller keeps.
pub fn install_into(
    consumer: &Path,
    tarball: &Path,
    served: &[(String, std::path::PathBuf)],
    npm_flags: &[&str],
) -> Result<()> {
    let overrides: serde_json::Map<String, Value> =
        served.iter().map(|(name, path)| (name.clone(), Value::from(format!("file:{}", path.display())))).collect();
    let manifest = serde_json::json!({ "name": "consumer", "private": true, "overrides": overrides });
    crate::write(consumer.join("package.json"), serde_json::to_string_pretty(&manifest)?)?;
    sh(npm(consumer).arg("install").args(npm_flags).arg(tarball).env_remove("NODE_PATH"))?;
    Ok(())
}

/// Writes the workspace's version into `package`'s package.json (npm's own
/// `npm version`, which keeps package-lock.json in step) when it differs,
/// packs the package into `target/dist/` and reads the tarball back: its
/// metadata and its contents are checked, its version is the one it declares.
pub fn pack(package: &str, runtime: &'static str) -> Result<Artifact> {
    let dir = root().join(package);
    let declared = manifest_version(&crate::load(&dir.join("package.json"))?)?;
    if declared != dist::version() {
        eprintln!("xtask: {package}/package.json says {declared}: writing the workspace's {}", dist::version());
        sh(npm(&dir).args(["version", dist::version(), "--no-git-tag-version", "--allow-same-version"]))?;
    }
    dist::licenses_into(&dir)?;
    let (tarball, manifest) = npm_pack(&dir)?;
    check_metadata_of(&manifest, package)?;
    Ok(Artifact { runtime, platform: None, path: tarball, version: manifest_version(&manifest)? })
}

/// `npm pack --json` of a package directory into `target/dist/`; answers the
/// tarball and the package.json inside it, once npm's own account of what it packed shows every entry of
/// the `files` list shipped: an entry that matches nothing (a file the build
/// did not make) is otherwise left out without a word. What else ships is
/// npm's to say (a folder entry ships everything in it).
pub fn npm_pack(dir: &Path) -> Result<(PathBuf, Value)> {
    let out = dist::dir()?;
    let json = sh_out(npm(dir).arg("pack").arg("--json").arg("--pack-destination").arg(&out))?;
    let packed: Value = serde_json::from_str(&json).with_context(|| format!("npm pack --json printed {json:?}"))?;
    let tarball = out.join(packed[0]["filename"].as_str().context("npm pack named no tarball")?);
    let shipped: Vec<&str> = packed[0]["files"]
        .as_array()
        .context("npm pack --json listed no files")?
        .iter()
        .map(|f| f["path"].as_str().context("npm pack --json: a file without a path"))
        .collect::<Result<_>>()?;
    let manifest = tarball_manifest(&tarball)?;
    let entries = manifest["files"].as_array().context("package.json has no files list")?;
    for entry in entries {
        let entry = entry.as_str().context("a files entry is not a string")?;
        ensure!(
            !entry.contains(['*', '?', '[', '{', '!']),
            "files entry {entry:?}: name a file or a folder, so that what it ships can be checked"
        );
        let folder = format!("{}/", entry.trim_end_matches('/'));
        ensure!(
            shipped.iter().any(|f| *f == entry || f.starts_with(&folder)),
            "{}: nothing shipped for the files entry {entry:?} (not built?)",
            tarball.display()
        );
    }
    eprintln!("xtask: {}: {} files, every files entry shipped", tarball.display(), shipped.len());
    Ok((tarball, manifest))
}

/// The package.json inside an npm tarball.
fn tarball_manifest(tarball: &Path) -> Result<Value> {
    let text = sh_out(Command::new("tar").arg("-xOzf").arg(tarball).arg("package/package.json"))?;
    serde_json::from_str(&text).with_context(|| format!("package/package.json in {} is not JSON", tarball.display()))
}

fn manifest_version(manifest: &Value) -> Result<String> {
    Ok(manifest["version"].as_str().context("package.json has no version")?.to_string())
}

/// What a registry needs and a user reads: the workspace's repository (the
/// package's folder in it), a licence, the Node versions, a `files` list.
pub fn check_metadata_of(manifest: &Value, package: &str) -> Result<()> {
    let url = format!("git+{}.git", env!("CARGO_PKG_REPOSITORY"));
    let repository = &manifest["repository"];
    ensure!(
        repository["type"] == "git" && repository["url"] == url.as_str() && repository["directory"] == package,
        "{package}/package.json: repository should be {{ type: git, url: {url}, directory: {package} }}, is {repository}"
    );
    for field in ["name", "description", "license", "files"] {
        ensure!(!manifest[field].is_null(), "{package}/package.json has no {field}");
    }
    ensure!(manifest["engines"]["node"].is_string(), "{package}/package.json says no engines.node");
    Ok(())
}

/// Installs `tarball` alone into an empty directory outside the checkout and
/// there requires it (CommonJS) and imports it (ESM), once per backend asked
/// for (`EMQ_ID_BACKEND`, and the backend that must answer).
pub fn install_and_use(tarball: &Path, name: &str, scratch: &str, backends: &[(Option<&str>, &str)]) -> Result<()> {
    let consumer = install(tarball, scratch, &[], &[])?;
    let backends: Vec<(Option<&str>, &str, &str)> =
        backends.iter().map(|&(asked, answers)| (asked, answers, "")).collect();
    use_installed(&consumer, name, &backends).map(drop)
}

/// In a project where `name` is installed: requires and imports it once per
/// (`EMQ_ID_BACKEND` asked, backend that must answer, text `backendInfo().from`
/// must hold); answers what the runs printed on stderr.
pub fn use_installed(consumer: &Path, name: &str, backends: &[(Option<&str>, &str, &str)]) -> Result<String> {
    let installed = crate::load(&consumer.join("node_modules").join(name).join("package.json"))?;
    ensure!(installed["version"] == dist::version(), "{name} installed as version {}", installed["version"]);
    let write = |file: &str, text: &str| crate::write(consumer.join(file), text);
    let body = "const id = mint('JOB'); const d = decode(id); const s = slot('emq:{orders}:pending');
if (d.ns !== 'JOB' || d.node !== 3 || typeof d.snowflake !== 'bigint' || s !== 105 || s !== slot('orders')) {
  throw new Error(`wrong answers: ${id} ${JSON.stringify(d, (k, v) => (typeof v === 'bigint' ? `${v}` : v))} ${s}`);
}
const info = backendInfo();
if (backend() !== process.env.EXPECT_BACKEND || info.backend !== backend() || !info.from.includes(process.env.EXPECT_FROM)) {
  throw new Error(`the ${backend()} backend answered, from ${info.from}`);
}
console.log(`${process.argv[1].split('/').pop()}: ${backend()} (${info.from}): minted ${id}, node ${d.node}, slot ${s}`);\n";
    let names = "{ mint, decode, slot, backend, backendInfo }";
    write("check.cjs", &format!("const {names} = require('{name}');\n{body}"))?;
    write("check.mjs", &format!("import {names} from '{name}';\n{body}"))?;
    let mut stderr = String::new();
    for (asked, answers, from) in backends {
        for script in ["check.cjs", "check.mjs"] {
            let mut node = Command::new("node");
            node.current_dir(consumer)
                .arg(script)
                .env_remove("NODE_PATH")
                .env("EMQ_NODE", "3")
                .env("EMQ_NODE_DIR", consumer.join("claims")) // apart from the host's own node claims
                .env("EXPECT_BACKEND", answers)
                .env("EXPECT_FROM", from);
            match asked {
                Some(b) => node.env("EMQ_ID_BACKEND", b),
                None => node.env_remove("EMQ_ID_BACKEND"),
            };
            let out = node.output().with_context(|| format!("running node {script}"))?;
            let err = String::from_utf8_lossy(&out.stderr);
            ensure!(out.status.success(), "node {script} failed:\n{}{err}", String::from_utf8_lossy(&out.stdout));
            print!("{}", String::from_utf8_lossy(&out.stdout));
            stderr.push_str(&err);
        }
    }
    Ok(stderr)
}
