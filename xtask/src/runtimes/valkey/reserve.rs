//! The lease reserve as the live tests see it (`emq-lease/3`, SPEC.md §5.2):
//! one hash, [`emq_id::LEASE_KEY`], with `<n>:token`, `<n>:until` (the
//! lease's end, unix ms on the server's clock) and `<n>:mark` per node. The
//! tests read it to check what holders left, and write it to play another
//! owner; the scripts stay the only writers a holder uses.

use std::collections::HashMap;

use anyhow::{Context, Result};
use emq_resp::Connection;

/// The server's clock, unix ms (`TIME`): the one a lease's end is read on.
pub fn server_ms(c: &mut Connection) -> Result<u64> {
    let reply = c.cmd(&["TIME"])?;
    let parts: Vec<u64> = reply
        .as_array()
        .context("TIME answers an array")?
        .iter()
        .map(|p| p.as_text().and_then(|t| t.parse().ok()).context("TIME's parts are numbers"))
        .collect::<Result<_>>()?;
    Ok(parts[0] * 1_000 + parts[1] / 1_000)
}

/// Every field of the reserve: node → (token, until, mark).
struct Fields(HashMap<String, String>);

impl Fields {
    fn read(c: &mut Connection) -> Result<Fields> {
        let reply = c.cmd(&["HGETALL", emq_id::LEASE_KEY])?;
        let flat: Vec<String> = reply
            .as_array()
            .with_context(|| format!("HGETALL {}: {reply:?}", emq_id::LEASE_KEY))?
            .iter()
            .map(|i| i.as_text().unwrap_or_default())
            .collect();
        Ok(Fields(flat.chunks(2).map(|kv| (kv[0].clone(), kv.get(1).cloned().unwrap_or_default())).collect()))
    }

    fn get(&self, node: u16, field: &str) -> Option<&String> {
        self.0.get(&format!("{node}:{field}"))
    }

    /// As the acquire script reads it: an end not yet passed, or one that
    /// is not a number (passed over, never taken).
    fn held(&self, node: u16, now: u64) -> bool {
        self.get(node, "until").is_some_and(|until| until.parse::<u64>().map_or(true, |until| until >= now))
    }

    fn until(&self, node: u16) -> Option<u64> {
        self.get(node, "until").and_then(|u| u.parse().ok())
    }
}

/// Whether `node`'s lease is live on this primary (a token, and an end not yet passed).
pub fn is_held(c: &mut Connection, node: u16) -> Result<bool> {
    let now = server_ms(c)?;
    Ok(Fields::read(c)?.held(node, now))
}

/// Whether `node` was released: no owner's token left (an ended lease keeps its token).
pub fn is_released(c: &mut Connection, node: u16) -> Result<bool> {
    Ok(Fields::read(c)?.get(node, "token").is_none())
}

/// The nodes no live lease holds on this primary.
pub fn free_nodes(c: &mut Connection) -> Result<Vec<u16>> {
    let now = server_ms(c)?;
    let fields = Fields::read(c)?;
    Ok((0..emq_id::LEASE_NODES).filter(|&n| !fields.held(n, now)).collect())
}

/// How long `node`'s lease has left by the server's clock (`None`: not held).
pub fn remaining_ms(c: &mut Connection, node: u16) -> Result<Option<u64>> {
    let now = server_ms(c)?;
    let fields = Fields::read(c)?;
    Ok(fields.held(node, now).then(|| fields.until(node).unwrap_or(now) - now))
}

/// `node`'s mark, unix ms (`None`: never set).
pub fn mark(c: &mut Connection, node: u16) -> Result<Option<u64>> {
    Ok(Fields::read(c)?.get(node, "mark").and_then(|m| m.parse().ok()))
}

/// Leases `nodes` to `owner` for `ttl_ms` by the server's clock, as another
/// process's holder would have: a live lease no test holder may take.
pub fn hold(c: &mut Connection, nodes: &[u16], owner: &str, ttl_ms: u64) -> Result<()> {
    let until = (server_ms(c)? + ttl_ms).to_string();
    let fields: Vec<(String, String)> = nodes
        .iter()
        .flat_map(|n| [(format!("{n}:token"), owner.to_string()), (format!("{n}:until"), until.clone())])
        .collect();
    let mut call = vec!["HSET", emq_id::LEASE_KEY];
    call.extend(fields.iter().flat_map(|(f, v)| [f.as_str(), v.as_str()]));
    c.cmd(&call)?.as_int().context("HSET answers a count")?;
    Ok(())
}

/// Ends the leases of `nodes` (their marks stay), as their owners' releases would.
pub fn free(c: &mut Connection, nodes: &[u16]) -> Result<()> {
    let fields: Vec<String> = nodes.iter().flat_map(|n| [format!("{n}:token"), format!("{n}:until")]).collect();
    let mut call = vec!["HDEL", emq_id::LEASE_KEY];
    call.extend(fields.iter().map(String::as_str));
    c.cmd(&call)?.as_int().context("HDEL answers a count")?;
    Ok(())
}
