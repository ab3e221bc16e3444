//! The `cli` target: each request becomes one run of the `emq-id` binary;
//! and `cli-arm64`, the same over the static arm64 binary users download,
//! under qemu. Its packages are `dist.rs`'s.
//!
//! Translation only: arguments that argv cannot carry (NUL bytes, or bytes
//! that are not UTF-8) go through the CLI's own `--hex` option, and a refusal
//! is read from the `error: <gate>:` line the CLI prints on stderr.

pub mod dist;

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::conformance::adapter::{bytes, Adapter};
use crate::vectors::hex;
use crate::{root, sh};

/// Builds the `emq-id` binary (debug); returns its path.
pub fn build() -> Result<PathBuf> {
    sh(Command::new("cargo").args(["build", "--quiet", "-p", "emq-id-cli"]))?;
    Ok(root().join("target/debug/emq-id"))
}

pub fn prepare() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(CliAdapter { binary: build()?, emulator: None }))
}

/// The static arm64 (musl) binary of `cargo xtask dist --platform linux-arm64-musl`, under qemu-aarch64.
pub fn prepare_arm64() -> Result<Box<dyn Adapter>> {
    let binary = dist::binary(crate::dist::platform::named("linux-arm64-musl"))?;
    crate::dist::emulated::qemu_static(&binary)?; // installs qemu-user when missing
    Ok(Box::new(CliAdapter { binary, emulator: Some("qemu-aarch64") }))
}

pub struct CliAdapter {
    pub binary: PathBuf,
    /// The program that runs it when this host cannot (qemu-user).
    pub emulator: Option<&'static str>,
}

impl Adapter for CliAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        requests
            .iter()
            .map(|r| {
                let mut a = self.answer(r)?;
                a["req"] = r["req"].clone();
                Ok(a)
            })
            .collect()
    }
}

/// Whether `bytes` can travel as one argv element.
fn argv_safe(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

fn text(r: &Value, name: &str) -> Result<String> {
    r.get(name).and_then(Value::as_str).map(str::to_owned).with_context(|| format!("request lacks {name}"))
}

impl CliAdapter {
    fn run(&self, args: &[String]) -> Result<(bool, String, String)> {
        let mut command = match self.emulator {
            Some(emulator) => {
                let mut c = Command::new(emulator);
                c.arg(&self.binary);
                c
            }
            None => Command::new(&self.binary),
        };
        let out = command.args(args).output().with_context(|| format!("running {}", self.binary.display()))?;
        Ok((
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into(),
            String::from_utf8_lossy(&out.stderr).into(),
        ))
    }

    /// Runs a command whose answer is one stdout line, or a gate on stderr.
    fn single(&self, args: &[String], shape: impl Fn(&str) -> Result<Value>) -> Result<Value> {
        let (ok, stdout, stderr) = self.run(args)?;
        if ok {
            return Ok(json!({ "ok": shape(stdout.trim_end_matches('\n'))? }));
        }
        gate_of(&stderr)
    }

    /// Positional arguments, switching the whole call to `--hex` when one cannot be argv.
    fn positional(command: &str, values: &[Vec<u8>]) -> Vec<String> {
        let mut args = vec![command.to_string()];
        if values.iter().all(|v| argv_safe(v)) {
            args.push("--".into());
            args.extend(values.iter().map(|v| String::from_utf8(v.clone()).expect("checked")));
        } else {
            args.push("--hex".into());
            args.push("--".into());
            args.extend(values.iter().map(|v| hex::encode(v)));
        }
        args
    }

    fn answer(&self, r: &Value) -> Result<Value> {
        let op = r.get("op").and_then(Value::as_str).unwrap_or("");
        match op {
            "decode" => {
                let args = Self::positional("decode", &[bytes(r, "text")?]);
                self.single(&args, |line| {
                    let v: Value = serde_json::from_str(line).with_context(|| format!("decode printed {line:?}"))?;
                    Ok(json!({
                        "ns": v["ns"], "snowflake": v["snowflake"], "unix_ms": v["unix_ms"],
                        "node": v["node"], "seq": v["seq"], "hash32": v["hash32"],
                    }))
                })
            }
            "encode" => {
                let args = ["encode".into(), "--".into(), text(r, "ns")?, text(r, "snowflake")?];
                self.single(&args, |line| Ok(json!({ "text": line })))
            }
            "min_for" => {
                let args = ["min-for".into(), "--".into(), text(r, "unix_ms")?];
                self.single(&args, |line| Ok(json!({ "snowflake": line })))
            }
            "mint" => {
                let node = r.get("node").map(Value::to_string).unwrap_or_default();
                let mut args = vec!["mint".to_string(), "JOB".into(), "--node".into(), node];
                for now in r.get("now_ms").and_then(Value::as_array).context("now_ms is not an array")? {
                    args.push("--at".into());
                    args.push(now.as_str().context("now_ms holds a non-string")?.into());
                }
                let (_, stdout, stderr) = self.run(&args)?;
                let steps: Vec<Value> = stdout
                    .lines()
                    .map(|line| {
                        let v: Value = serde_json::from_str(line).with_context(|| format!("mint printed {line:?}"))?;
                        Ok(match v.get("error") {
                            Some(g) => json!({ "gate": g }),
                            None => json!({ "snowflake": v["snowflake"] }),
                        })
                    })
                    .collect::<Result<_>>()?;
                if steps.is_empty() {
                    return gate_of(&stderr);
                }
                Ok(json!({ "ok": { "steps": steps } }))
            }
            "slot" => {
                let key = bytes(r, "key")?;
                let args = vec!["slot".to_string(), "--hex".into(), "--".into(), hex::encode(&key)];
                self.single(&args, |line| {
                    let v: Value = serde_json::from_str(line).with_context(|| format!("slot printed {line:?}"))?;
                    Ok(json!({ "slot": v["slot"], "hashtag_hex": v["hashtag_hex"] }))
                })
            }
            "key" => {
                let mut values = vec![bytes(r, "queue")?, bytes(r, "kind")?];
                if r.get("id").is_some() {
                    values.push(bytes(r, "id")?);
                }
                self.single(&Self::positional("key", &values), |line| Ok(json!({ "key": line })))
            }
            "parse_key" => {
                let mut args = Self::positional("key", &[bytes(r, "key")?]);
                args.insert(1, "--parse".into());
                self.single(&args, |line| {
                    let mut v: Value =
                        serde_json::from_str(line).with_context(|| format!("key --parse printed {line:?}"))?;
                    v.as_object_mut().context("key --parse printed no object")?.remove("key");
                    Ok(v)
                })
            }
            "reserve" => {
                let args = ["reserve".into(), "--".into(), text(r, "name")?];
                self.single(&args, |line| Ok(json!({ "key": line })))
            }
            "prefix_bytes" => {
                let mut args = Self::positional("key", &[bytes(r, "queue")?, bytes(r, "type")?]);
                args.insert(1, "--prefix-bytes".into());
                self.single(&args, |line| {
                    Ok(json!({ "bytes": line.parse::<u64>().with_context(|| format!("--prefix-bytes printed {line:?}"))? }))
                })
            }
            "queue_prefix" => {
                let mut args = Self::positional("key", &[bytes(r, "queue")?]);
                args.insert(1, "--queue-prefix".into());
                self.single(&args, |line| Ok(json!({ "key": line })))
            }
            "job_prefix" => {
                let mut args = Self::positional("key", &[bytes(r, "queue")?]);
                args.insert(1, "--job-prefix".into());
                self.single(&args, |line| Ok(json!({ "key": line })))
            }
            "xadd_id" => {
                let args = ["xadd-id".into(), "--".into(), text(r, "id")?];
                self.single(&args, |line| Ok(json!({ "entry": line })))
            }
            "from_xadd_id" => {
                let args = [
                    "xadd-id".into(),
                    "--reverse".into(),
                    "--ns".into(),
                    text(r, "ns")?,
                    "--".into(),
                    text(r, "entry")?,
                ];
                self.single(&args, |line| Ok(json!({ "id": line })))
            }
            other => Ok(json!({ "unsupported": format!("unknown op {other:?}") })),
        }
    }
}

/// `{"error": {"gate": …}}` from the CLI's `error: <gate>: …` line.
fn gate_of(stderr: &str) -> Result<Value> {
    let gate = stderr
        .lines()
        .find_map(|l| l.strip_prefix("error: "))
        .and_then(|rest| rest.split(':').next())
        .with_context(|| format!("emq-id failed without an error line: {stderr:?}"))?;
    Ok(json!({ "error": { "gate": gate, "message": stderr.trim() } }))
}
