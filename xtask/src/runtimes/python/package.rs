//! The proof that `emq_id` is a real package: the wheel and the sdist hold
//! what they must, at the workspace's version; and the package installed
//! outside the tree — from the wheel, from the sdist, and with
//! `pip install bindings/python` from the checkout — each into an empty
//! virtual environment in a temporary directory, runs a script that mints,
//! decodes and slots there (and, from the wheel, the example of the package's
//! own README, its description on PyPI).

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::{Venv, PACKAGE};
use crate::{root, sh, sh_out};

/// What the script run in each environment checks: the package imported is
/// the environment's, and it mints, decodes and slots.
const SCRIPT: &str = r#"
import os, sys
import emq_id

assert emq_id.__file__.startswith(sys.prefix), f"emq_id imported from {emq_id.__file__}, not {sys.prefix}"
typed = os.path.join(os.path.dirname(emq_id.__file__), "py.typed")
assert os.path.exists(typed), "no py.typed"
minter = emq_id.Minter(3)
job = emq_id.encode("JOB", minter.next())
d = emq_id.decode(job)
assert (d.ns, d.node) == ("JOB", 3), d
minted = emq_id.mint("EVT")
assert emq_id.decode(minted).node == int(os.environ["EMQ_NODE"]), minted
key = emq_id.job_key("orders", job)
assert emq_id.slot(key) == emq_id.slot("orders") == emq_id.slot_many([key])[0], key
print(f"{os.path.basename(sys.prefix)}: {job} {minted} -> {key} (slot {emq_id.slot(key)})")
"#;

/// The wheel, the sdist (as `cargo xtask dist` ships them, already checked
/// by [`check_wheel`] and [`check_sdist`]) and the source, each installed
/// into an empty environment outside the tree and used there.
pub fn outside(wheel: &Path, sdist: &Path) -> Result<()> {
    let scratch = crate::dist::scratch("python")?;
    crate::write(scratch.join("use_it.py"), SCRIPT)?;
    crate::write(scratch.join("readme_example.py"), readme_example()?)?;
    let source = root().join(PACKAGE);
    for (name, what) in [("from-wheel", wheel), ("from-sdist", sdist), ("from-source", source.as_path())] {
        let env = super::setup::empty(&scratch.join(name))?;
        // The sdist and the source are compiled by maturin from PyPI (pip's build
        // isolation) into the workspace's target directory, so cargo reuses what it built.
        sh(env.pip().args(["install", "--quiet"]).arg(what).env("CARGO_TARGET_DIR", root().join("target")))?;
        use_it(&env, &scratch, "use_it.py")?;
        if name == "from-wheel" {
            use_it(&env, &scratch, "readme_example.py")?;
        }
    }
    Ok(())
}

/// The one ```python block of bindings/python/README.md.
fn readme_example() -> Result<String> {
    let readme = crate::read(root().join(PACKAGE).join("README.md"))?;
    let mut blocks = crate::tree::fences::blocks(&readme)?.into_iter().filter(|b| b.info == "python");
    let block = blocks.next().context("bindings/python/README.md has no ```python example")?;
    ensure!(blocks.next().is_none(), "bindings/python/README.md should have one ```python example");
    Ok(block.body)
}

/// A script of `dir`, run isolated there (outside the checkout), minting on a node of its own.
fn use_it(env: &Venv, dir: &Path, script: &str) -> Result<()> {
    sh(env
        .python()
        .current_dir(dir)
        .args(["-I", "-W", "error"])
        .arg(dir.join(script))
        .env("EMQ_NODE", "17")
        .env("EMQ_NODE_DIR", dir.join("claims")))
}

/// The wheel: abi3 for CPython 3.9 on, at the workspace's version, holding
/// the package, its stub and `py.typed`, the extension, and nothing of the tree's tests.
pub fn check_wheel(wheel: &Path) -> Result<()> {
    let name = wheel.file_name().unwrap_or_default().to_string_lossy().to_string();
    let version = crate::dist::version();
    ensure!(name.starts_with(&format!("emq_id-{version}-cp39-abi3-")), "{name}: not emq_id {version} for cp39-abi3");
    let listing = zip_listing(wheel)?;
    for file in [
        "emq_id/__init__.py",
        "emq_id/__init__.pyi",
        "emq_id/py.typed",
        "emq_id/_self_check.py",
        "emq_id/_errors.py",
        "emq_id/holder.py",
    ] {
        ensure!(listing.iter().any(|f| f == file), "{name} lacks {file}: {listing:?}");
    }
    ensure!(listing.iter().any(|f| f.starts_with("emq_id/_emq_id.") && f.ends_with(".so")), "{name} has no extension");
    ensure!(!listing.iter().any(|f| f.contains("tests/")), "{name} ships tests: {listing:?}");
    for licence in crate::dist::LICENSES {
        ensure!(listing.iter().any(|f| f.ends_with(&format!("/{licence}"))), "{name} lacks {licence}: {listing:?}");
    }
    eprintln!("xtask: {name}: {} files, the package, its stub, py.typed and the extension", listing.len());
    Ok(())
}

/// The sdist: builds on its own (the core crate and a workspace manifest inside), at the workspace's version.
pub fn check_sdist(sdist: &Path) -> Result<()> {
    let version = crate::dist::version();
    let top = format!("emq_id-{version}/");
    let listing: Vec<String> = sh_out(Command::new("tar").arg("-tzf").arg(sdist))?.lines().map(str::to_owned).collect();
    for file in [
        "pyproject.toml",
        "PKG-INFO",
        "Cargo.toml",
        "Cargo.lock",
        "crates/emq-id/src/lib.rs",
        "bindings/python/Cargo.toml",
        "bindings/python/src/lib.rs",
        "python/emq_id/__init__.pyi",
        "python/emq_id/py.typed",
    ] {
        let path = format!("{top}{file}");
        ensure!(listing.contains(&path), "{} lacks {path}", sdist.display());
    }
    Ok(())
}

/// The wheel's `*.dist-info/METADATA`, read with Python's zipfile.
pub fn wheel_metadata(wheel: &Path) -> Result<String> {
    let tools = super::setup::tools()?;
    let read = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n\
                print(z.read(next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))).decode())";
    sh_out(tools.python().args(["-c", read]).arg(wheel))
        .with_context(|| format!("reading {}'s METADATA", wheel.display()))
}

/// The file names inside a wheel (a zip), read with Python's zipfile.
fn zip_listing(wheel: &Path) -> Result<Vec<String>> {
    let tools = super::setup::tools()?;
    let out = sh_out(
        tools
            .python()
            .args(["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))"])
            .arg(wheel),
    )
    .with_context(|| format!("listing {}", wheel.display()))?;
    Ok(out.lines().map(str::to_owned).collect())
}
