//! A throwaway PostgreSQL 15 cluster: run as the `postgres` user, on a private
//! socket directory (no TCP), the library preloaded, stopped and removed
//! however the task ends.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
        let port = 50_000 + (std::process::id() % 10_000) as u16 + port_offset;
        let dir = std::env::temp_dir().join(format!("emq-id-pg-{port}"));
        let _ = std::fs::remove_dir_all(&dir);
        crate::mkdir(&dir)?;
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
            .with_context(|| format!("appending to {}", data.join("postgresql.conf").display()))?;
        let cluster = Cluster { dir, port };
        sh(Command::new("runuser")
            .args(["-u", "postgres", "--", "env"])
            .args(env.iter().map(|(k, v)| format!("{k}={v}")))
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
    pub fn dir(&self) -> &Path {
        &self.dir
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
