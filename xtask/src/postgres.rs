//! PostgreSQL 15: installing the prerequisites, building and installing the
//! extension with pgrx, and a throwaway cluster (run as the `postgres` user,
//! on a private socket directory, no TCP, the library preloaded) that is
//! stopped and removed however the task ends.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::conformance::adapter::Adapter;
use crate::{root, setup, sh, sh_out};

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";
const PG_CONFIG: &str = "/usr/lib/postgresql/15/bin/pg_config";
const PGRX: &str = "0.18.0";
pub const EXTENSION: &str = "bindings/postgres";

/// PostgreSQL 15 and its headers, libclang (for pgrx's bindgen), cargo-pgrx, `cargo pgrx init`.
pub fn prerequisites() -> Result<(), String> {
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

/// Builds the extension and installs it into PostgreSQL 15's directories.
pub fn install() -> Result<(), String> {
    prerequisites()?;
    // cargo-pgrx reports on stdout; keep a task's own report (the matrix) alone there.
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root().join(EXTENSION)).args(["pgrx", "install", "--release", "--pg-config", PG_CONFIG]);
    sh(cmd.stdout(std::io::stderr()))
}

/// A throwaway PostgreSQL 15 cluster, preloading emq_id with `emq_id.node = 1`.
pub struct Cluster {
    dir: PathBuf,
    port: u16,
}

impl Cluster {
    /// A cluster that preloads emq_id (minting works).
    pub fn start() -> Result<Cluster, String> {
        Cluster::start_with(true)
    }

    /// `preload = false`: the library is only loaded by CREATE EXTENSION, so
    /// minting has no shared state and must be refused.
    pub fn start_with(preload: bool) -> Result<Cluster, String> {
        let port = 50_000 + (std::process::id() % 10_000) as u16 + if preload { 0 } else { 1 };
        let dir = std::env::temp_dir().join(format!("emq-id-pg-{port}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        sh(Command::new("chown").arg("postgres:postgres").arg(&dir))?;
        let data = dir.join("data");
        sh(Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{PG_BIN}/initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-E", "UTF8", "--locale=C", "-A", "trust", "-U", "postgres"])
            .stdout(Stdio::null()))?;
        let conf = format!(
            "\nlisten_addresses = ''\nunix_socket_directories = '{}'\nport = {port}\n\
             {}emq_id.node = 1\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 40\n",
            dir.display(),
            if preload { "shared_preload_libraries = 'emq_id'\n" } else { "" }
        );
        std::fs::OpenOptions::new()
            .append(true)
            .open(data.join("postgresql.conf"))
            .and_then(|mut f| f.write_all(conf.as_bytes()))
            .map_err(|e| e.to_string())?;
        let cluster = Cluster { dir, port };
        sh(Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{PG_BIN}/pg_ctl"))
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(cluster.dir.join("server.log"))
            .args(["-w", "start"])
            .stdout(Stdio::null()))?;
        cluster.psql("CREATE EXTENSION emq_id;")?;
        Ok(cluster)
    }

    /// `psql` on this cluster; stops at the first error.
    pub fn psql_command(&self) -> Command {
        let mut cmd = Command::new(format!("{PG_BIN}/psql"));
        cmd.arg("-h").arg(&self.dir).args(["-p", &self.port.to_string(), "-U", "postgres", "-d", "postgres"]).args([
            "-X",
            "-q",
            "-At",
            "-v",
            "ON_ERROR_STOP=1",
        ]);
        cmd
    }

    /// Where the server may read and write files (COPY to and from a file).
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Runs `sql` (a script) and returns what it printed.
    pub fn psql(&self, sql: &str) -> Result<String, String> {
        let mut child = self
            .psql_command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("psql: {e}"))?;
        let mut stdin = child.stdin.take().unwrap();
        let script = sql.to_string();
        let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(format!("psql failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{PG_BIN}/pg_ctl"))
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The `postgres` target: every request loaded into a table with one COPY and
/// answered by one query through the extension (conformance/postgres/answer.sql).
pub struct PgAdapter {
    cluster: Cluster,
}

impl PgAdapter {
    pub fn start() -> Result<PgAdapter, String> {
        install()?;
        Ok(PgAdapter { cluster: Cluster::start()? })
    }
}

/// SQL `text` cannot hold NUL: such strings travel as hex bytes through the
/// extension's `bytea` entry points instead.
fn sql_safe(mut r: Value) -> Value {
    for (name, hex_name) in [("text", "text_hex"), ("key", "key_hex"), ("queue", "queue_hex")] {
        if let Some(s) = r.get(name).and_then(Value::as_str) {
            if s.contains('\0') {
                let hex = crate::hex::encode(s.as_bytes());
                r.as_object_mut().unwrap().remove(name);
                r[hex_name] = json!(hex);
            }
        }
    }
    r
}

/// A field for COPY's text format.
fn copy_field(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

impl Adapter for PgAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>, String> {
        let mut script =
            std::fs::read_to_string(root().join("conformance/postgres/answer.sql")).map_err(|e| e.to_string())?;
        script.push_str("\nCREATE TEMP TABLE req (req int, op text, body jsonb);\nCOPY req FROM STDIN;\n");
        for r in requests {
            let r = sql_safe(r.clone());
            let op = r["op"].as_str().unwrap_or("");
            script.push_str(&format!("{}\t{}\t{}\n", r["req"], copy_field(op), copy_field(&r.to_string())));
        }
        script.push_str("\\.\nSELECT jsonb_set(pg_temp.emq_conformance_answer(op, body), '{req}', to_jsonb(req)) FROM req ORDER BY req;\n");
        let out = self.cluster.psql(&script)?;
        out.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).map_err(|e| format!("psql printed {l:?}: {e}")))
            .collect()
    }
}
