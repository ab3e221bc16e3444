//! The workspace's tasks: vector generation, the conformance runner and its
//! targets, benchmarks and the test suite. `main.rs` only parses arguments.

pub mod bench;
pub mod conformance;
pub mod elixir;
pub mod header;
pub mod hex;
pub mod js;
pub mod keyspace_vectors;
pub mod mutate;
pub mod native;
pub mod node;
pub mod parity;
pub mod pg_checks;
pub mod postgres;
pub mod readme;
pub mod rng;
pub mod setup;
pub mod streams;
pub mod suite;
pub mod targets;
pub mod valkey;
pub mod vectors;
pub mod wasm;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Runs a command from the workspace root, echoing it; an error says which command failed.
pub fn sh(cmd: &mut Command) -> Result<(), String> {
    eprintln!("$ {}", shown(cmd));
    let status = cmd.current_dir_if_unset().status().map_err(|e| format!("{}: {e}", shown(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", shown(cmd)))
    }
}

/// Like [`sh`], but returns stdout.
pub fn sh_out(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.current_dir_if_unset().output().map_err(|e| format!("{}: {e}", shown(cmd)))?;
    if !out.status.success() {
        return Err(format!("{} failed ({}): {}", shown(cmd), out.status, String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn shown(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

trait CurrentDir {
    fn current_dir_if_unset(&mut self) -> &mut Self;
}

impl CurrentDir for Command {
    fn current_dir_if_unset(&mut self) -> &mut Self {
        if self.get_current_dir().is_none() {
            self.current_dir(root());
        }
        self
    }
}

/// Reads and parses a vector file.
pub fn load(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
