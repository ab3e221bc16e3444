//! What building the extension needs: PostgreSQL 15 and its headers, libclang
//! (for pgrx's bindgen), the pinned cargo-pgrx and its `init`; each installed
//! when missing, saying so.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use super::PG_CONFIG;
use crate::{setup, sh, sh_out};

const PGRX: &str = "0.18.0";

/// PostgreSQL 15 and its headers, libclang (for pgrx's bindgen), cargo-pgrx, `cargo pgrx init`.
pub fn prerequisites() -> Result<()> {
    setup::apt(
        &["postgresql-15", "postgresql-server-dev-15", "libclang-dev", "clang", "pkg-config"],
        "building and running the PostgreSQL extension",
    )?;
    let have = sh_out(Command::new("cargo").args(["pgrx", "--version"])).unwrap_or_default();
    if !have.contains(PGRX) {
        eprintln!("xtask: installing cargo-pgrx {PGRX} (found {:?})", have.trim());
        sh(Command::new("cargo").args(["install", "cargo-pgrx", "--version", PGRX, "--locked"]))?;
    }
    let config = std::env::var_os("PGRX_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".pgrx"))
        .join("config.toml");
    if !std::fs::read_to_string(&config).unwrap_or_default().contains("pg15") {
        eprintln!("xtask: cargo pgrx init --pg15 {PG_CONFIG}");
        sh(Command::new("cargo").args(["pgrx", "init", "--pg15", PG_CONFIG]))?;
    }
    Ok(())
}
