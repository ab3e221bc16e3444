//! The `postgres` target: every request loaded with one COPY and answered by
//! one query through the extension (conformance/postgres/answer.sql).

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::server::Cluster;
use crate::conformance::adapter::Adapter;
use crate::root;
use crate::vectors::hex;

/// A live server with the extension; each batch is one psql script.
pub struct PgAdapter {
    cluster: Cluster,
}

/// Builds and installs the extension, then starts a server for the adapter.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    super::build::install()?;
    Ok(Box::new(PgAdapter { cluster: Cluster::start()? }))
}

/// SQL `text` cannot hold NUL: such strings travel as hex bytes through the
/// extension's `bytea` entry points instead.
fn sql_safe(mut r: Value) -> Value {
    for (name, hex_name) in [("text", "text_hex"), ("key", "key_hex"), ("queue", "queue_hex")] {
        if let Some(s) = r.get(name).and_then(Value::as_str) {
            if s.contains('\0') {
                let spelled = hex::encode(s.as_bytes());
                r.as_object_mut().unwrap().remove(name);
                r[hex_name] = json!(spelled);
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
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        let mut script = crate::read(root().join("conformance/postgres/answer.sql"))?;
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
            .map(|l| serde_json::from_str(l).with_context(|| format!("psql printed {l:?}")))
            .collect()
    }
}
