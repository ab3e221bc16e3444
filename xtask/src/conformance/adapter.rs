//! How the runner talks to a runtime: a batch of protocol requests in, one
//! answer per request out (matched by `req`). See conformance/PROTOCOL.md.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// A runtime under test. It translates; it never judges.
///
/// A request the runtime has no translation for is answered `unsupported`,
/// which fails like a wrong answer. An error means the runtime could not be
/// asked, or answered outside the protocol (a process that would not start, a
/// server that went away, a line that is not JSON): the runner shows it, with
/// its context, as a broken target.
pub trait Adapter {
    /// Answers every request (each carries a `req`); the answers may come in any order.
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>>;
}

/// An adapter that is a process speaking JSON lines on stdin and stdout.
pub struct ProcessAdapter {
    pub command: Command,
}

impl Adapter for ProcessAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        let shown = format!("{:?}", self.command);
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {shown}"))?;
        let mut stdin = child.stdin.take().expect("piped");
        let lines: Vec<String> = requests.iter().map(Value::to_string).collect();
        // Write from a thread: an adapter may answer before reading everything,
        // or (like a database adapter) only after reading everything.
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            let mut out = std::io::BufWriter::new(&mut stdin);
            for line in lines {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
            out.flush()
        });
        let mut answers = Vec::with_capacity(requests.len());
        for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
            let line = line.with_context(|| format!("{shown}: reading answers"))?;
            if line.trim().is_empty() {
                continue;
            }
            answers.push(serde_json::from_str(&line).with_context(|| format!("{shown}: not JSON: {line}"))?);
        }
        let wrote = writer.join().expect("writer thread");
        let status = child.wait().with_context(|| shown.clone())?;
        if !status.success() {
            bail!("{shown} exited with {status}");
        }
        wrote.with_context(|| format!("{shown}: writing requests"))?;
        Ok(answers)
    }
}

/// Reads a decimal-string field of a request.
pub fn decimal<T: std::str::FromStr>(request: &Value, name: &str) -> Result<T> {
    request
        .get(name)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("request field {name:?} is not a decimal string of the right range"))
}

/// The bytes a request names: `<name>_hex` when present, else `<name>` as UTF-8.
pub fn bytes(request: &Value, name: &str) -> Result<Vec<u8>> {
    if let Some(h) = request.get(format!("{name}_hex")).and_then(Value::as_str) {
        return crate::vectors::hex::decode(h);
    }
    request
        .get(name)
        .and_then(Value::as_str)
        .map(|s| s.as_bytes().to_vec())
        .with_context(|| format!("request has neither {name} nor {name}_hex"))
}
