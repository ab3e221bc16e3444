//! A throwaway PostgreSQL 15 cluster: run as the `postgres` user, on a private
//! socket directory (no TCP), the library preloaded, stopped and removed
//! however the task ends.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{bail, Context, Result};

use super::PG_BIN;
use crate::sh;

/// A throwaway PostgreSQL 15 cluster, preloading emq_id with `emq_id.node = 1`.
pub struct Cluster {
    dir: PathBuf,
    port: u16,
}

impl Cluster {
    /// A cluster that preloads emq_id (minting works).
    pub fn start() -> Result<Cluster> {
        Cluster::start_with(true)
    }

    /// `preload = false`: the library is only loaded by CREATE EXTENSION, so
    /// minting has no shared state and must be refused.
    pub fn start_with(preload: bool) -> Result<Cluster> {
        Cluster::launch(preload, u16::from(!preload), &[])
    }

    /// A preloading cluster whose server processes run with `env` added (a
    /// test's LD_PRELOAD of a fake clock), on a port of its own.
    pub fn start_with_env(env: &[(&str, &str)]) -> Result<Cluster> {
        Cluster::launch(true, 2, env)
    }

    /// `port_offset` keeps clusters that one run holds at once apart.
    fn launch(preload: bool, port_offset: u16, env: &[(&str, &str)]) -> Result<Cluster> {
        Cluster::primary(preload, port_offset, env, "")
    }

    /// A preloading primary on its own port, its server processes run with
    /// `env`, `conf` appended to its postgresql.conf (later lines win).
    pub fn start_primary(port_offset: u16, env: &[(&str, &str)], conf: &str) -> Result<Cluster> {
        Cluster::primary(true, port_offset, env, conf)
    }

    fn primary(preload: bool, port_offset: u16, env: &[(&str, &str)], conf: &str) -> Result<Cluster> {
        let cluster = Cluster::empty(port_offset)?;
        let data = cluster.data();
        sh(Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{PG_BIN}/initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-E", "UTF8", "--locale=C", "-A", "trust", "-U", "postgres"])
            .stdout(Stdio::null()))?;
        let base = format!(
            "{}emq_id.node = 1\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 40\n",
            if preload { "shared_preload_libraries = 'emq_id'\n" } else { "" }
        );
        cluster.append_conf(&format!("{base}{conf}"))?;
        cluster.boot(env)?;
        cluster.psql("CREATE EXTENSION emq_id;")?;
        Ok(cluster)
    }

    /// A hot standby of `primary`, as an operator makes one: `pg_basebackup
    /// -R` (which copies postgresql.conf, emq_id.node included), then its own
    /// socket and port, then `conf`; its processes run with `env`.
    pub fn start_standby(primary: &Cluster, port_offset: u16, env: &[(&str, &str)], conf: &str) -> Result<Cluster> {
        let cluster = Cluster::empty(port_offset)?;
        sh(Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(format!("{PG_BIN}/pg_basebackup"))
            .arg("-h")
            .arg(&primary.dir)
            .args(["-p", &primary.port.to_string(), "-U", "postgres", "-R", "-X", "stream", "-c", "fast", "-D"])
            .arg(cluster.data())
            .stdout(Stdio::null()))?;
        cluster.append_conf(conf)?;
        cluster.boot(env)?;
        Ok(cluster)
    }

    /// A fresh directory for a cluster on `50,000 + pid % 10,000 + port_offset`.
    fn empty(port_offset: u16) -> Result<Cluster> {
        let port = 50_000 + (std::process::id() % 10_000) as u16 + port_offset;
        let dir = std::env::temp_dir().join(format!("emq-id-pg-{port}"));
        let _ = std::fs::remove_dir_all(&dir);
        crate::mkdir(&dir)?;
        sh(Command::new("chown").arg("postgres:postgres").arg(&dir))?;
        Ok(Cluster { dir, port })
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Appends to postgresql.conf: this cluster's own socket and port first.
    fn append_conf(&self, conf: &str) -> Result<()> {
        let own = format!(
            "\nlisten_addresses = ''\nunix_socket_directories = '{}'\nport = {}\n{conf}",
            self.dir.display(),
            self.port
        );
        let path = self.data().join("postgresql.conf");
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(own.as_bytes()))
            .with_context(|| format!("appending to {}", path.display()))
    }

    /// `pg_ctl` as `postgres` on this cluster, its server run with `env`.
    fn pg_ctl(&self, env: &[(&str, &str)], args: &[&str]) -> Result<()> {
        sh(Command::new("runuser")
            .args(["-u", "postgres", "--", "env"])
            .args(env.iter().map(|(k, v)| format!("{k}={v}")))
            .arg(format!("{PG_BIN}/pg_ctl"))
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(["-t", "60"])
            .args(args)
            .stdout(Stdio::null()))
        .with_context(|| {
            let log = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(15).collect();
            format!("the server's log ends:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"))
        })
    }

    /// Starts the server (again), waiting until it accepts connections.
    pub fn boot(&self, env: &[(&str, &str)]) -> Result<()> {
        self.pg_ctl(env, &["-w", "start"])
    }

    /// Stops the server as a crash does (`-m immediate`: no checkpoint, no flush).
    pub fn crash(&self) -> Result<()> {
        self.pg_ctl(&[], &["-m", "immediate", "-w", "stop"])
    }

    /// Promotes a standby, waiting until it accepts writes.
    pub fn promote(&self) -> Result<()> {
        self.pg_ctl(&[], &["-w", "promote"])
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
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The port, on the socket directory [`Cluster::dir`].
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What `sql` printed, trimmed (one value, or one row per line).
    pub fn one(&self, sql: &str) -> Result<String> {
        Ok(self.psql(sql)?.trim().to_string())
    }

    /// A connection running `sql` in the background, its stderr kept for `wait_with_output`.
    pub fn spawn(&self, sql: &str) -> Result<Child> {
        let mut cmd = self.psql_command();
        cmd.args(["-c", sql]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().context("starting psql")
    }

    /// Runs `sql` (a script) and returns what it printed.
    pub fn psql(&self, sql: &str) -> Result<String> {
        let mut child = self
            .psql_command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting psql")?;
        let mut stdin = child.stdin.take().unwrap();
        let script = sql.to_string();
        let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
        let out = child.wait_with_output().context("waiting for psql")?;
        let _ = writer.join();
        if !out.status.success() {
            bail!("psql failed: {}", String::from_utf8_lossy(&out.stderr));
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
