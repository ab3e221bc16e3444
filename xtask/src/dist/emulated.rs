//! Running arm64 artifacts on this x86-64 host: Debian's qemu-user, started
//! directly (`qemu-aarch64 -L <root> <program>`; the host's binfmt settings
//! are never touched), over a root of Debian's own arm64 packages — `nodejs`,
//! `python3.11` and `openjdk-17-jre-headless` with everything they depend on — downloaded through a
//! private apt state and unpacked, never installed: the host's dpkg does not
//! learn of a foreign architecture.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::{root, setup, sh};

/// What the root holds: the runtimes the aarch64 conformance runs use.
const PACKAGES: [&str; 3] = ["nodejs", "python3.11", "openjdk-17-jre-headless"];

/// `target/arm64/root`, made once (a stamp names what it holds).
pub fn arm64_root() -> Result<PathBuf> {
    setup::apt(&["qemu-user"], "running arm64 programs (qemu-aarch64)")?;
    let dir = root().join("target/arm64");
    let rootfs = dir.join("root");
    let stamp = dir.join(".emq-id-packages");
    let wanted = PACKAGES.join(" ");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        return Ok(rootfs);
    }
    eprintln!("xtask: downloading Debian's arm64 {wanted} (and their dependencies) into {}", rootfs.display());
    let apt = dir.join("apt");
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["state/lists/partial", "cache/archives/partial", "sources"] {
        crate::mkdir(apt.join(sub))?;
    }
    crate::write(apt.join("state/status"), "")?;
    crate::write(apt.join("sources/debian.sources"), arm64_sources()?)?;
    sh(private_apt(&apt).args(["update", "-qq"]))?;
    sh(private_apt(&apt).args(["install", "--download-only", "-y", "-qq"]).args(PACKAGES))?;
    crate::mkdir(&rootfs)?;
    let archives = apt.join("cache/archives");
    let mut unpacked = 0;
    for entry in std::fs::read_dir(&archives).with_context(|| archives.display().to_string())? {
        let deb = entry?.path();
        if deb.extension().is_some_and(|e| e == "deb") {
            crate::sh_out(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&rootfs))?;
            unpacked += 1;
        }
    }
    ensure!(unpacked > 0, "apt downloaded no arm64 package");
    crate::write(&stamp, wanted)?;
    Ok(rootfs)
}

/// apt over a state of its own (lists, cache, an empty dpkg status) that sees
/// only the arm64 half of the host's Debian sources.
fn private_apt(apt: &Path) -> Command {
    let mut cmd = Command::new("apt-get");
    let opt = |cmd: &mut Command, value: String| {
        cmd.arg("-o").arg(value);
    };
    opt(&mut cmd, "APT::Architecture=arm64".into());
    opt(&mut cmd, "APT::Architectures::=arm64".into());
    opt(&mut cmd, format!("Dir::State={}", apt.join("state").display()));
    opt(&mut cmd, format!("Dir::State::status={}", apt.join("state/status").display()));
    opt(&mut cmd, format!("Dir::Cache={}", apt.join("cache").display()));
    opt(&mut cmd, "Dir::Etc::SourceList=/dev/null".into());
    opt(&mut cmd, format!("Dir::Etc::SourceParts={}", apt.join("sources").display()));
    opt(&mut cmd, "Debug::NoLocking=1".into());
    cmd.env("DEBIAN_FRONTEND", "noninteractive");
    cmd
}

/// The host's Debian sources (deb822 or one-line), each limited to arm64.
fn arm64_sources() -> Result<String> {
    let deb822 = Path::new("/etc/apt/sources.list.d/debian.sources");
    if let Ok(text) = std::fs::read_to_string(deb822) {
        return Ok(text
            .lines()
            .filter(|l| !l.starts_with("Architectures:"))
            .map(|l| if l.starts_with("Types:") { format!("{l}\nArchitectures: arm64\n") } else { format!("{l}\n") })
            .collect());
    }
    let list = crate::read("/etc/apt/sources.list")?;
    let lines: Vec<String> = list
        .lines()
        .filter_map(|l| l.strip_prefix("deb "))
        .map(|rest| format!("Types: deb\nArchitectures: arm64\n{}\n", one_line_to_deb822(rest)))
        .collect();
    ensure!(!lines.is_empty(), "no Debian source in /etc/apt/sources.list to take arm64 packages from");
    Ok(lines.join("\n"))
}

/// `http://deb.debian.org/debian bookworm main` as deb822 fields.
fn one_line_to_deb822(rest: &str) -> String {
    // Options come first, in brackets, and may hold several words: `[arch=amd64 signed-by=…]`.
    let rest = match rest.trim_start().strip_prefix('[') {
        Some(options) => options.split_once(']').map_or("", |(_, after)| after),
        None => rest,
    };
    let mut words = rest.split_whitespace();
    let uri = words.next().unwrap_or_default();
    let suite = words.next().unwrap_or_default();
    let components: Vec<&str> = words.collect();
    format!("URIs: {uri}\nSuites: {suite}\nComponents: {}", components.join(" "))
}

/// `program` (a file of this host) under qemu-aarch64, its loader and
/// libraries taken from `rootfs` (qemu looks a path up there first).
pub fn qemu(rootfs: &Path, program: &Path) -> Command {
    let mut cmd = Command::new("qemu-aarch64");
    cmd.arg("-L").arg(rootfs).arg(program);
    cmd
}

/// A program of the arm64 root (`usr/bin/node`) under qemu-aarch64.
pub fn qemu_root_program(rootfs: &Path, program: &str) -> Command {
    qemu(rootfs, &rootfs.join(program))
}

/// A static arm64 program under qemu-aarch64 (it loads nothing, so needs no root).
pub fn qemu_static(program: &Path) -> Result<Command> {
    setup::apt(&["qemu-user"], "running arm64 programs (qemu-aarch64)")?;
    let mut cmd = Command::new("qemu-aarch64");
    cmd.arg(program);
    Ok(cmd)
}
