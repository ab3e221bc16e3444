//! The `valkey` target: every slot case of the vector file through
//! `CLUSTER KEYSLOT` on a live server (the `slot` field only).

use anyhow::{Context, Result};
use emq_resp::Reply;
use serde_json::{json, Value};

use super::server::Node;
use super::setup::server_binary;
use crate::conformance::adapter::{bytes, Adapter};

/// One live node; every slot request is sent as raw bytes to `CLUSTER KEYSLOT`.
pub struct KeyslotAdapter {
    node: Node,
}

/// Starts one node (installing the server binary when missing) for the adapter.
pub fn prepare() -> Result<Box<dyn Adapter>> {
    Ok(Box::new(KeyslotAdapter { node: Node::start(&server_binary()?)? }))
}

impl Adapter for KeyslotAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>> {
        let mut conn = self.node.connect()?;
        requests
            .iter()
            .map(|r| {
                let answer = if r["op"] == "slot" {
                    let key = bytes(r, "key")?;
                    match conn
                        .call(&[b"CLUSTER", b"KEYSLOT", &key])
                        .with_context(|| format!("CLUSTER KEYSLOT on {}", self.node.addr))?
                    {
                        Reply::Int(n) => json!({ "ok": { "slot": n } }),
                        other => json!({ "unsupported": format!("CLUSTER KEYSLOT answered {other:?}") }),
                    }
                } else {
                    json!({ "unsupported": "the server only computes slots" })
                };
                let mut a = answer;
                a["req"] = r["req"].clone();
                Ok(a)
            })
            .collect()
    }
}
