//! `cargo xtask dist`: every runtime as the artifact its users install, in
//! `target/dist/`, with a table of sizes and SHA-256 sums; and the suite's
//! proof that each one works from outside the tree. What a runtime ships is
//! in its room (`runtimes/<runtime>/dist.rs`: `build` and `from_outside`);
//! this module lists the rooms, holds what they share (the version, the
//! output directory, the platforms and their cross builds, a Debian
//! package's layout, ELF checks, the arm64 emulation) and checks that every
//! artifact carries the workspace's version.

pub mod cross;
pub mod deb;
pub mod elf;
pub mod emulated;
pub mod platform;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::runtimes::{c, cli, elixir, jvm, node, postgres, python, wasm};
use platform::Platform;

/// One file a user installs.
pub struct Artifact {
    /// The runtime it serves, as the table names it.
    pub runtime: &'static str,
    /// The platform of a native artifact; `None` for one that runs anywhere
    /// its runtime does (WebAssembly, an sdist, the Mix package) or that is
    /// this host's own (the PostgreSQL package, built against Debian 12's server).
    pub platform: Option<&'static Platform>,
    pub path: PathBuf,
    /// The version the artifact itself declares (read back from it, not assumed).
    pub version: String,
}

impl Artifact {
    /// The table's platform column: a native artifact's platform; a `.deb` of
    /// no platform is this Debian 12 host's own (built against its packages);
    /// anything else runs wherever its runtime does.
    pub fn platform_label(&self) -> &'static str {
        match self.platform {
            Some(p) => p.name,
            None if self.file_name().ends_with(".deb") => "Debian 12 amd64",
            None => "any",
        }
    }

    pub fn file_name(&self) -> String {
        self.path.file_name().unwrap_or_default().to_string_lossy().into_owned()
    }
}

/// What one `dist` run builds: the native artifacts of `platforms`, and with
/// `everything` the artifacts no platform owns (the main npm packages, the
/// sdist, the PostgreSQL and Mix packages).
pub struct Selection {
    pub platforms: Vec<&'static Platform>,
    pub everything: bool,
    /// `--runtime NAME`s, as [`ROOMS`] names them; empty is every runtime.
    pub runtimes: Vec<String>,
}

impl Selection {
    /// `[--platform NAME]... [--runtime NAME]...`: no platform is every
    /// platform and everything else; no runtime is every runtime.
    pub fn parse(args: &[String]) -> Result<Selection> {
        let (mut names, mut runtimes) = (vec![], vec![]);
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            match (arg.as_str(), it.next()) {
                ("--platform", Some(name)) => names.push(name.clone()),
                ("--runtime", Some(name)) if ROOMS.iter().any(|(key, ..)| key == name) => runtimes.push(name.clone()),
                ("--runtime", Some(name)) => anyhow::bail!(
                    "no runtime is called {name:?}; they are {}",
                    ROOMS.iter().map(|(key, ..)| *key).collect::<Vec<_>>().join(", ")
                ),
                _ => anyhow::bail!("dist takes --platform NAME and --runtime NAME, not {arg:?}"),
            }
        }
        Ok(Selection { everything: names.is_empty(), platforms: platform::select(&names)?, runtimes })
    }

    /// Whether the runtime [`ROOMS`] calls `key` is selected.
    fn builds(&self, key: &str) -> bool {
        self.runtimes.is_empty() || self.runtimes.iter().any(|r| r == key)
    }
}

/// The workspace's version (`[workspace.package] version`): the one place
/// every package's version comes from.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// `target/dist/`, created.
pub fn dir() -> Result<PathBuf> {
    let dir = crate::root().join("target/dist");
    crate::mkdir(&dir)?;
    Ok(dir)
}

/// The workspace's licence texts (it is MIT OR Apache-2.0), which every
/// package carries.
pub const LICENSES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// Copies [`LICENSES`] from the workspace root into `dir` (a package's
/// folder, where its packer picks them up; the copies are ignored by git).
pub fn licenses_into(dir: &Path) -> Result<()> {
    for name in LICENSES {
        let (from, to) = (crate::root().join(name), dir.join(name));
        std::fs::copy(&from, &to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// An empty directory for a from-outside check, under the system's temporary
/// directory (never inside the checkout), removed first if a run left it and
/// removed again when dropped, however the check ends.
pub fn scratch(name: &str) -> Result<Scratch> {
    let dir = std::env::temp_dir().join(format!("emq-id-outside-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::mkdir(&dir)?;
    Ok(Scratch(dir))
}

/// A directory of [`scratch`], removed on drop.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

type Build = fn(&Selection) -> Result<Vec<Artifact>>;

/// Every runtime's packages, in the table's order: the name `--runtime`
/// takes, the name the table prints, and its room's build.
const ROOMS: &[(&str, &str, Build)] = &[
    ("c", "C", c::dist::build),
    ("cli", "CLI", cli::dist::build),
    ("postgres", "PostgreSQL", |s| if s.everything { postgres::dist::build() } else { Ok(vec![]) }),
    ("node", "Node", node::dist::build),
    ("wasm", "WASM", |s| if s.everything { wasm::dist::build() } else { Ok(vec![]) }),
    ("python", "Python", python::dist::build),
    ("elixir", "Elixir", |s| if s.everything { elixir::dist::build() } else { Ok(vec![]) }),
    // One jar carries every platform's library, so it belongs to no platform's selection.
    ("jvm", "JVM", |s| if s.everything { jvm::dist::build() } else { Ok(vec![]) }),
];

/// Builds the selected artifacts, checks each one's version, prints the table.
pub fn run(selection: &Selection) -> Result<Vec<Artifact>> {
    // A full run starts from an empty directory: nothing an earlier build left (a wheel of
    // another tag, a renamed package) can be shipped beside this run's artifacts.
    if selection.everything && selection.runtimes.is_empty() {
        let _ = std::fs::remove_dir_all(dir()?);
    }
    let mut all = vec![];
    for (key, name, build) in ROOMS {
        if !selection.builds(key) {
            continue;
        }
        eprintln!("xtask: dist: {name}");
        let built = build(selection).with_context(|| format!("building the {name} packages"))?;
        // A runtime named on its own must give something: `--runtime postgres --platform …`
        // would otherwise build nothing and succeed.
        ensure!(
            !built.is_empty() || selection.runtimes.is_empty(),
            "{name} has no package for the platforms selected (its packages are platform-free or this host's: drop --platform)"
        );
        all.extend(built);
    }
    check_versions(&all)?;
    print_table(&all)?;
    Ok(all)
}

/// `cargo xtask dist [--platform NAME]... [--runtime NAME]...`.
pub fn task(args: &[String]) -> Result<()> {
    run(&Selection::parse(args)?).map(drop)
}

/// `<dir>.tar.gz` beside `dir` in `target/dist/`, holding `dir` as its one top directory.
pub fn tarball(dir: &Path) -> Result<PathBuf> {
    let name = dir.file_name().context("a directory to pack has a name")?.to_string_lossy().into_owned();
    let parent = dir.parent().context("a directory to pack has a parent")?;
    let out = self::dir()?.join(format!("{name}.tar.gz"));
    crate::sh(
        Command::new("tar")
            .args(["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "-czf"])
            .arg(&out)
            .arg("-C")
            .arg(parent)
            .arg(&name),
    )?;
    Ok(out)
}

/// A release cannot ship an artifact whose version is not the workspace's.
pub fn check_versions(artifacts: &[Artifact]) -> Result<()> {
    let wrong: Vec<String> = artifacts
        .iter()
        .filter(|a| a.version != version())
        .map(|a| format!("{} says {}", a.path.display(), a.version))
        .collect();
    ensure!(wrong.is_empty(), "dist: not the workspace version {}: {}", version(), wrong.join("; "));
    Ok(())
}

fn print_table(artifacts: &[Artifact]) -> Result<()> {
    println!("\n| runtime | platform | artifact | version | size | sha256 |\n|---|---|---|---|---:|---|");
    for a in artifacts {
        let size = std::fs::metadata(&a.path).with_context(|| a.path.display().to_string())?.len();
        println!(
            "| {} | {} | `{}` | {} | {} | `{}` |",
            a.runtime,
            a.platform_label(),
            a.file_name(),
            a.version,
            human(size),
            sha256(&a.path)?
        );
    }
    println!("\n{} artifacts in {}", artifacts.len(), dir()?.display());
    Ok(())
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// coreutils' `sha256sum` (on every Debian machine): no hashing code here.
fn sha256(path: &Path) -> Result<String> {
    let out = crate::sh_out(Command::new("sha256sum").arg(path))?;
    Ok(out.split_whitespace().next().context("sha256sum printed nothing")?.to_string())
}

type Check = fn(&[Artifact]) -> Result<()>;

/// Every room's from-outside proof, in order: the room whose packages it
/// proves, as [`ROOMS`] keys it (none: every room's; Go's module is proven
/// through the C room's `libemqid-dev`), and whether it also runs for a
/// `--platform` selection (it proves what the platforms' artifacts are alone).
const OUTSIDE: &[(Option<&str>, &str, Check, bool)] = &[
    (
        None,
        "every native artifact's ELF: its machine; glibc ones need nothing newer than GLIBC_2.17, musl ones musl's libc.so, the CLI nothing",
        check_elves,
        true,
    ),
    (Some("c"), "C (libemqid-dev installed, a program built with pkg-config, removed)", c::dist::from_outside, false),
    (
        Some("c"),
        "C on the other platforms (the arm64 .deb under qemu, each static musl library on its architecture)",
        c::dist::other_platforms,
        true,
    ),
    (Some("cli"), "CLI (each static musl binary run on its architecture)", cli::dist::from_outside, true),
    (Some("postgres"), "PostgreSQL (the .deb installed, CREATE EXTENSION on a fresh cluster, removed)", postgres::dist::from_outside, false),
    (
        Some("c"),
        "Go (its module alone, linked through pkg-config against libemqid-dev)",
        crate::runtimes::go::dist::from_outside,
        false,
    ),
    (
        Some("node"),
        "Node (npm install of the main tarball: the platform package npm picks, and the WebAssembly fallback without one)",
        node::dist::from_outside,
        false,
    ),
    (Some("wasm"), "WASM (npm install of the tarball, require and import)", wasm::dist::from_outside, false),
    (Some("python"), "Python (the wheel, the sdist and the source, each in an empty virtual environment)", python::dist::from_outside, false),
    (Some("elixir"), "Elixir (a fresh mix project depending on the unpacked package by path)", elixir::dist::from_outside, false),
    (
        Some("jvm"),
        "JVM (the jar, sources, Javadoc and poms installed into an empty local repository; a fresh Maven project built offline against them mints)",
        jvm::dist::from_outside,
        false,
    ),
];

/// `cargo xtask dist-check [--platform NAME]... [--runtime NAME]...`, the
/// suite's step: build the artifacts, then prove each from outside the tree.
/// With `--runtime`, only those rooms' packages and proofs (a proof that
/// needs another room's package, as Go's needs C's, needs that room named).
pub fn outside(args: &[String]) -> Result<()> {
    let selection = Selection::parse(args)?;
    let artifacts = run(&selection)?;
    for (room, name, check, for_platforms) in OUTSIDE {
        if (!selection.everything && !for_platforms) || room.is_some_and(|r| !selection.builds(r)) {
            continue;
        }
        eprintln!("xtask: from outside the tree: {name}");
        check(&artifacts).with_context(|| format!("{name}, from outside the tree"))?;
    }
    Ok(())
}

/// Every native artifact's ELF headers ([`elf`]): what each room built is
/// checked again here, from the packed file, as a user's machine would load it.
fn check_elves(artifacts: &[Artifact]) -> Result<()> {
    // The control: this host's own build of the C library (linked against its
    // glibc 2.36, as every artifact was before zig) must fail the floor check.
    c::build::library()?;
    let host_build = crate::root().join("target/release/libemqid.so");
    match elf::check_loaded(&host_build, platform::named("linux-x64-gnu")) {
        Ok(line) => {
            anyhow::bail!("control: the glibc floor check passed this host's own build, so it checks nothing: {line}")
        }
        Err(refused) => println!("dist: control: the floor check refuses this host's own build: {refused:#}"),
    }
    for artifact in artifacts {
        let Some(platform) = artifact.platform else { continue };
        for line in elf::check_packed(artifact, platform)? {
            println!("dist: {line}");
        }
    }
    Ok(())
}

/// The artifact of `runtime` for this host's platform (x86-64 glibc) whose file name ends with `suffix`.
pub fn find_native<'a>(artifacts: &'a [Artifact], runtime: &str, suffix: &str) -> Result<&'a Artifact> {
    artifacts
        .iter()
        .find(|a| {
            a.runtime == runtime
                && a.platform.is_some_and(|p| p.native_here() && p.libc == platform::Libc::Gnu)
                && a.path.to_string_lossy().ends_with(suffix)
        })
        .with_context(|| format!("no {runtime} artifact for this host ending in {suffix}"))
}

/// The artifact of `runtime` whose file name ends with `suffix`.
pub fn find<'a>(artifacts: &'a [Artifact], runtime: &str, suffix: &str) -> Result<&'a Artifact> {
    artifacts
        .iter()
        .find(|a| a.runtime == runtime && a.path.to_string_lossy().ends_with(suffix))
        .with_context(|| format!("no {runtime} artifact ending in {suffix}"))
}
