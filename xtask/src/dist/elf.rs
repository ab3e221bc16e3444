//! What a native artifact asks of the machine it runs on, read from its ELF
//! headers as auditwheel reads them (binutils' `readelf`, which reads every
//! architecture): the glibc symbol versions it needs, the libraries it names,
//! and whether it has a dynamic loader at all.

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::platform::{Libc, Platform, GLIBC_FLOOR};
use super::Artifact;
use crate::{sh, sh_out};

/// The objects inside a packed native artifact, unpacked as its installer
/// would, each checked for `platform`: a shared object by [`check_loaded`], a
/// program by [`check_static`], a static library for its machine. One line per object.
pub fn check_packed(artifact: &Artifact, platform: &Platform) -> Result<Vec<String>> {
    let dir = super::scratch(&format!("elf-{}", artifact.file_name()))?;
    let path = &artifact.path;
    let name = artifact.file_name();
    if name.ends_with(".deb") {
        sh(Command::new("dpkg-deb").arg("-x").arg(path).arg(&*dir))?;
    } else if name.ends_with(".whl") {
        sh(Command::new("python3").args(["-m", "zipfile", "-e"]).arg(path).arg(&*dir))?;
    } else {
        sh(Command::new("tar").arg("-xzf").arg(path).arg("-C").arg(&*dir))?;
    }
    let mut lines = vec![];
    for object in files(&dir)? {
        let file = object.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let line = if file.ends_with(".node") || file.ends_with(".so") || file.contains(".so.") {
            if object.is_symlink() {
                continue;
            }
            check_loaded(&object, platform)?
        } else if file.ends_with(".a") {
            check_machine(&object, platform)?;
            format!("{}: a static library for {}", object.display(), platform.machine)
        } else if file == "emq-id" {
            check_static(&object, platform)?
        } else {
            continue;
        };
        lines.push(format!("{name}: {}", line.trim_start_matches(&format!("{}/", dir.display()))));
    }
    ensure!(!lines.is_empty(), "{name}: no native object found in it");
    Ok(lines)
}

/// Every file under `dir` (symlinks included, not followed).
fn files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).with_context(|| dir.display().to_string())? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            out.extend(files(&path)?);
        } else {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// The glibc versions `GLIBC_x.y[.z]` an object's version-needs section asks for,
/// as (major, minor), newest last.
pub fn glibc_versions(object: &Path) -> Result<Vec<(u32, u32)>> {
    let text = sh_out(Command::new("readelf").args(["--version-info", "--wide"]).arg(object))?;
    Ok(parse_glibc_versions(&text))
}

fn parse_glibc_versions(readelf: &str) -> Vec<(u32, u32)> {
    // Every `GLIBC_<x>.<y>[.<z>]`, wherever readelf puts it: `Name: GLIBC_2.17` in the
    // needs, `(GLIBC_2.2.5)` in the symbol versions, `memcpy@GLIBC_2.14` beside a symbol.
    let mut found: Vec<(u32, u32)> = readelf
        .split("GLIBC_")
        .skip(1)
        .filter_map(|rest| {
            let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
            let mut parts = rest[..end].split('.').map(|p| p.parse::<u32>().ok());
            Some((parts.next()??, parts.next()??))
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The libraries an object names (`DT_NEEDED`).
pub fn needed(object: &Path) -> Result<Vec<String>> {
    let text = sh_out(Command::new("readelf").args(["--dynamic", "--wide"]).arg(object))?;
    Ok(text
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split_once('[')?.1.split_once(']')?.0.to_string()))
        .collect())
}

/// The ELF machine `readelf -h` names (`AArch64`, `Advanced Micro Devices X86-64`).
fn machine(object: &Path) -> Result<String> {
    let text = sh_out(Command::new("readelf").args(["--file-header", "--wide"]).arg(object))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Machine:"))
        .map(|m| m.trim().to_string())
        .with_context(|| format!("{}: readelf names no machine", object.display()))
}

/// Whether the object asks for a program interpreter (a dynamic loader).
fn has_interpreter(object: &Path) -> Result<bool> {
    let text = sh_out(Command::new("readelf").args(["--program-headers", "--wide"]).arg(object))?;
    Ok(text.lines().any(|l| l.trim_start().starts_with("INTERP")))
}

/// A shared object for `platform` (an addon, a Python module, `libemqid.so`):
/// its machine, and on glibc no symbol newer than the floor; on musl, musl's
/// `libc.so` and no glibc symbol at all. Answers one line for the log.
pub fn check_loaded(object: &Path, platform: &Platform) -> Result<String> {
    check_machine(object, platform)?;
    let versions = glibc_versions(object)?;
    let newest = versions.last().copied();
    let needs = needed(object)?;
    let name = object.display();
    match platform.libc {
        Libc::Gnu => {
            ensure!(
                newest.is_some_and(|v| v <= GLIBC_FLOOR),
                "{name} needs GLIBC_{}, newer than the floor GLIBC_{}.{} ({platform_name})",
                newest.map_or("none".into(), |(a, b)| format!("{a}.{b}")),
                GLIBC_FLOOR.0,
                GLIBC_FLOOR.1,
                platform_name = platform.name
            );
            let (a, b) = newest.expect("checked above");
            Ok(format!("{name}: newest glibc symbol GLIBC_{a}.{b}, needs {}", needs.join(" ")))
        }
        Libc::Musl => {
            ensure!(newest.is_none(), "{name} is for musl but needs glibc symbols {versions:?}");
            ensure!(
                needs.iter().any(|n| n == "libc.so") && !needs.iter().any(|n| n.starts_with("libc.so.")),
                "{name} is for musl but names {needs:?} (musl's loader answers libc.so; glibc's is libc.so.6)"
            );
            Ok(format!("{name}: musl's libc.so, no glibc symbol"))
        }
    }
}

/// A program that must run anywhere on its architecture: no interpreter, no library.
pub fn check_static(program: &Path, platform: &Platform) -> Result<String> {
    check_machine(program, platform)?;
    let name = program.display();
    ensure!(!has_interpreter(program)?, "{name} asks for a dynamic loader: it is not static");
    ensure!(needed(program)?.is_empty(), "{name} names shared libraries: it is not static");
    Ok(format!("{name}: static, no loader, no library"))
}

fn check_machine(object: &Path, platform: &Platform) -> Result<()> {
    let found = machine(object)?;
    let wanted = match platform.machine {
        "x86_64" => "X86-64",
        "aarch64" => "AArch64",
        other => other,
    };
    ensure!(found.contains(wanted), "{} is built for {found}, not {}", object.display(), platform.machine);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_glibc_versions;

    #[test]
    fn reads_version_needs() {
        let text = "Version needs section '.gnu.version_r' contains 1 entry:\n \
                    000000: Version: 1  File: libc.so.6  Cnt: 3\n  \
                    0x0010:   Name: GLIBC_2.17  Flags: none  Version: 4\n  \
                    0x0020:   Name: GLIBC_2.3.4  Flags: none  Version: 3\n  \
                    0x0030:   Name: GLIBC_2.34  Flags: none  Version: 2\n \
                    Symbol: memcpy@GLIBC_2.14 (2)\n  004:   3 (GLIBC_2.3.4)  1 (*global*)  GLIBC_PRIVATE";
        assert_eq!(parse_glibc_versions(text), vec![(2, 3), (2, 14), (2, 17), (2, 34)]);
        assert!(parse_glibc_versions("No version information found in this file.").is_empty());
    }
}
