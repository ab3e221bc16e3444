//! `cargo xtask colocation`: on a live three-primary cluster, every queue's
//! keys route by our `slot()` alone to the node that owns them; then
//! `emq-id route` and stream entry ids ([`super::streams`]) on the same cluster.

use std::collections::HashMap;
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use emq_resp::{Connection, Reply};
use serde_json::Value;

use super::server::Cluster;
use crate::sh_out;
use crate::vectors::rng::Rng;

/// The colocation test on a live three-primary cluster: one key of every
/// family of every queue, in one script, routes by our `slot()` alone to the
/// node that owns them (zero redirects, zero CROSSSLOT),
/// keys of two queues in different slots are refused with CROSSSLOT by the
/// server itself, and names the keyspace refuses never reach the server.
pub fn run() -> Result<()> {
    let cluster = Cluster::start()?;
    let map = emq_resp::slot_map(&mut cluster.nodes[0].connect()?).context("reading the slot map")?;
    let mut conns: HashMap<String, Connection> = HashMap::new();
    for node in &cluster.nodes {
        conns.insert(node.addr.clone(), node.connect()?);
    }
    let every = "for _, k in ipairs(KEYS) do redis.call('SET', k, ARGV[1]) end return #KEYS";
    let script = "redis.call('RPUSH', KEYS[1], ARGV[1]); redis.call('SADD', KEYS[2], ARGV[1]); \
                  redis.call('HSET', KEYS[3], 'state', 'pending'); return redis.call('LLEN', KEYS[1])";
    let minter = emq_id::Minter::new(1)?;
    let queues = queue_names(1000);
    let (mut scripts, mut redirects, mut cross, mut keys_sent) = (0usize, 0usize, 0usize, 0usize);
    let mut by_queue = vec![];
    for q in &queues {
        let id = emq_id::Id::new(b"JOB", minter.next()?)?;
        let keys = family_keys(q, &id.to_string())?;
        let slot = emq_id::slot(keys[0].as_bytes());
        let node = emq_resp::owner(&map, slot).with_context(|| format!("no owner for slot {slot}"))?.to_string();
        let count = keys.len().to_string();
        let mut call: Vec<&[u8]> = vec![b"EVAL", every.as_bytes(), count.as_bytes()];
        call.extend(keys.iter().map(String::as_bytes));
        call.push(b"x");
        let reply = conns.get_mut(&node).unwrap().call(&call);
        scripts += 1;
        keys_sent += keys.len();
        match reply.with_context(|| format!("EVAL on {node}"))? {
            Reply::Int(n) if n as usize == keys.len() => {}
            Reply::Error(e) if e.starts_with("MOVED") || e.starts_with("ASK") => redirects += 1,
            Reply::Error(e) if e.starts_with("CROSSSLOT") => cross += 1,
            other => bail!("queue {q:?} on {node}: {other:?}"),
        }
        by_queue.push((q.clone(), slot, node));
    }
    // Two queues on one node but in different slots: the server must refuse the script.
    let mut crossslot = 0usize;
    let mut pairs = 0usize;
    for (i, (qa, sa, na)) in by_queue.iter().enumerate() {
        if pairs == 20 {
            break;
        }
        let Some((qb, _, _)) = by_queue[i + 1..].iter().find(|(_, sb, nb)| sb != sa && nb == na) else { continue };
        pairs += 1;
        let a = emq_id::queue_key(qa.as_bytes(), b"pending").unwrap();
        let b = emq_id::queue_key(qb.as_bytes(), b"active").unwrap();
        let reply = conns.get_mut(na).unwrap().call(&[
            b"EVAL",
            script.as_bytes(),
            b"3",
            a.as_bytes(),
            b.as_bytes(),
            a.as_bytes(),
            b"x",
        ]);
        match reply.with_context(|| format!("EVAL on {na}"))? {
            Reply::Error(e) if e.starts_with("CROSSSLOT") => crossslot += 1,
            other => bail!("keys of {qa:?} and {qb:?} were not refused with CROSSSLOT: {other:?}"),
        }
    }
    // Names the keyspace refuses never become keys, so they never reach the server.
    let refused = ["", "{orders}", "a}b", "a{b", "or ders", "ordérs", "q/1", &"q".repeat(129)];
    for name in refused {
        match emq_id::queue_key(name.as_bytes(), b"pending") {
            Err(e) if e.gate() == emq_id::Gate::Queue => {}
            other => bail!("the keyspace built a key from {name:?}: {other:?}"),
        }
    }
    route_check(&cluster, &map, &by_queue)?;
    super::streams::check(&mut conns, &map)?;
    println!(
        "colocation: {} queues tried, {scripts} scripts over one key of each of the {} families ({keys_sent} keys): \
         {redirects} redirects (MOVED/ASK), {cross} CROSSSLOT",
        queues.len(),
        emq_id::Family::ALL.len()
    );
    println!("colocation: {crossslot} of {pairs} cross-slot scripts refused with CROSSSLOT by the server");
    println!("colocation: {} refused queue names never reached the server", refused.len());
    ensure!(redirects == 0 && cross == 0 && crossslot == pairs && pairs != 0, "colocation failed");
    Ok(())
}

/// One key of every family of queue `q` (names `vip`, the job id `id`), each
/// built from its type as the bus writes it.
fn family_keys(q: &str, id: &str) -> Result<Vec<String>> {
    emq_id::Family::ALL
        .iter()
        .map(|f| {
            let param = match f.param() {
                emq_id::Param::None => "",
                emq_id::Param::Name => "vip",
                emq_id::Param::JobId => id,
            };
            let ty = format!("{}{param}{}", f.head(), f.tail());
            let key = emq_id::key(q.as_bytes(), ty.as_bytes(), None).with_context(|| format!("{q:?} {ty:?}"))?;
            Ok(key.as_str().to_owned())
        })
        .collect()
}

/// `emq-id route` against the live cluster: it must name the node that owns each key.
fn route_check(cluster: &Cluster, map: &[(u16, u16, String)], queues: &[(String, u16, String)]) -> Result<()> {
    let cli = crate::runtimes::cli::build()?;
    let keys: Vec<String> = queues.iter().take(50).map(|(q, _, _)| format!("emq:{{{q}}}:pending")).collect();
    let out = sh_out(Command::new(cli).arg("route").args(&keys).args(["--cluster", &cluster.nodes[1].addr]))?;
    let lines: Vec<&str> = out.lines().collect();
    if lines.len() != keys.len() {
        bail!("emq-id route printed {} lines for {} keys", lines.len(), keys.len());
    }
    for (line, key) in lines.iter().zip(&keys) {
        let v: Value = serde_json::from_str(line).with_context(|| format!("route printed {line:?}"))?;
        let want = emq_resp::owner(map, emq_id::slot(key.as_bytes())).unwrap();
        if v["key"] != key.as_str() || v["node"] != want {
            bail!("emq-id route said {line} for {key}, the cluster says {want}");
        }
    }
    println!("colocation: emq-id route named the owning node for {} keys", keys.len());
    Ok(())
}

/// Queue names from the grammar: edge cases, then seeded random ones of every length.
fn queue_names(n: usize) -> Vec<String> {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-";
    let mut names: Vec<String> = ["a", "Z", "0", "_", ".", ":", "-", "orders", "emq:x", "a.b-c_d:e", "---", "..."]
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.push("q".repeat(128));
    names.push(String::from_utf8(alphabet.to_vec()).unwrap());
    let mut rng = Rng::new(7);
    while names.len() < n {
        let len = 1 + rng.below(128) as usize;
        names.push(String::from_utf8(rng.bytes(len, alphabet)).unwrap());
    }
    names
}
