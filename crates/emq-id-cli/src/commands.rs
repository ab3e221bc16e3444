//! The subcommands. Each answers every input it was given and returns the failures.

use std::ffi::OsString;
use std::io::Write;

use serde_json::{json, Value};

use crate::args::{stdin_lines, Args};
use crate::{civil, help, Failure};

type Out<'a> = &'a mut dyn Write;

pub fn run(argv: &[OsString]) -> Vec<Failure> {
    let Some(command) = argv.first().map(|c| c.to_string_lossy().into_owned()) else {
        print!("{}", help::MAIN);
        return vec![Failure::Usage("no command given".into())];
    };
    if matches!(command.as_str(), "--help" | "-h" | "help") {
        print!("{}", help::MAIN);
        return vec![];
    }
    if matches!(command.as_str(), "--version" | "-V") {
        println!("emq-id {}", env!("CARGO_PKG_VERSION"));
        return vec![];
    }
    let Some(text) = help::of(&command) else {
        return vec![Failure::Usage(format!("unknown command {command:?}"))];
    };
    let rest = &argv[1..];
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        println!("{text}");
        return vec![];
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let failures = match dispatch(&command, rest, &mut out) {
        Ok(failures) => failures,
        Err(f) => vec![f],
    };
    if let Err(e) = out.flush() {
        return vec![Failure::Io(e.to_string())];
    }
    failures
}

fn dispatch(command: &str, argv: &[OsString], out: Out) -> Result<Vec<Failure>, Failure> {
    match command {
        "decode" => {
            let args = Args::parse(argv, &["--hex"], &[])?;
            each(&args, out, |text, out| decode(text, out))
        }
        "encode" => {
            let args = Args::parse(argv, &[], &[])?;
            let [ns, snowflake] = args.positional.as_slice() else {
                return Err(Failure::Usage("encode takes NS SNOWFLAKE".into()));
            };
            let s = parse_u64(snowflake)?;
            let text = emq_id::encode(ns, s).map_err(|e| Failure::gate(e, ns))?;
            line(out, &String::from_utf8_lossy(&text))?;
            Ok(vec![])
        }
        "mint" => mint(
            &Args::parse(argv, &["--json"], &["--node", "-n", "--at", "--lease", "--ttl", "--margin", "--replicas"])?,
            out,
        ),
        "lease" => crate::lease::hold(&Args::parse(argv, &[], &["--cluster", "--ttl", "--margin", "--replicas"])?),
        "hash32" => {
            let args = Args::parse(argv, &[], &[])?;
            each(&args, out, |value, out| {
                let s = if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                    parse_u64(value)?
                } else {
                    emq_id::decode(value).map_err(|e| Failure::gate(e, value))?.1
                };
                line(out, &emq_id::hash32(s).to_string())
            })
        }
        "min-for" => {
            let args = Args::parse(argv, &[], &[])?;
            each(&args, out, |time, out| {
                let ms = parse_time(time)?;
                let s = emq_id::min_for(ms).map_err(|e| Failure::gate(e, time))?;
                line(out, &s.to_string())
            })
        }
        "slot" => {
            let args = Args::parse(argv, &["--hex"], &[])?;
            let hex = args.has("--hex");
            each(&args, out, |key, out| {
                let tag = emq_id::hashtag(key);
                let mut answer = serde_json::Map::new();
                let spell = |answer: &mut serde_json::Map<String, Value>, name: &str, bytes: &[u8]| {
                    match std::str::from_utf8(bytes) {
                        Ok(text) if !hex => answer.insert(name.into(), json!(text)),
                        _ => answer.insert(format!("{name}_hex"), json!(to_hex(bytes))),
                    };
                };
                spell(&mut answer, "key", key);
                answer.insert("slot".into(), json!(emq_id::slot(key)));
                spell(&mut answer, "hashtag", tag);
                line(out, &Value::Object(answer).to_string())
            })
        }
        "key" => key(
            &Args::parse(argv, &["--hex", "--parse", "--queue-prefix", "--job-prefix", "--prefix-bytes"], &[])?,
            out,
        ),
        "reserve" => {
            let args = Args::parse(argv, &[], &[])?;
            each(&args, out, |name, out| {
                let key = emq_id::reserve(name).map_err(|e| Failure::gate(e, name))?;
                line(out, key.as_str())
            })
        }
        "xadd-id" => {
            let args = Args::parse(argv, &["--reverse"], &["--ns"])?;
            let ns = args.one("--ns").unwrap_or("EVT").as_bytes().to_vec();
            let reverse = args.has("--reverse");
            each(&args, out, |value, out| {
                let text = if reverse {
                    emq_id::from_xadd_id(value, &ns).map(|id| id.to_string())
                } else {
                    emq_id::xadd_id(value).map(|entry| entry.to_string())
                };
                line(out, &text.map_err(|e| Failure::gate(e, value))?)
            })
        }
        "route" => {
            let args = Args::parse(argv, &["--hex"], &["--cluster", "--timeout"])?;
            let cluster =
                args.one("--cluster").ok_or_else(|| Failure::Usage("route needs --cluster HOST:PORT".into()))?;
            let timeout = match args.one("--timeout") {
                Some(ms) => ms
                    .parse::<u64>()
                    .ok()
                    .filter(|ms| *ms > 0)
                    .ok_or_else(|| Failure::Usage(format!("--timeout takes milliseconds above 0, not {ms:?}")))?,
                None => ROUTE_TIMEOUT_MS,
            };
            let timeouts = emq_resp::Timeouts::all(std::time::Duration::from_millis(timeout));
            let io = |e: std::io::Error| Failure::Io(format!("{cluster}: {e}"));
            let mut conn = emq_resp::Connection::open_with(cluster, timeouts).map_err(io)?;
            let map = emq_resp::slot_map(&mut conn).map_err(io)?;
            let hex = args.has("--hex");
            each(&args, out, |key, out| {
                let slot = emq_id::slot(key);
                let node = emq_resp::owner(&map, slot);
                let shown = match std::str::from_utf8(key) {
                    Ok(text) if !hex => json!({ "key": text, "slot": slot, "node": node }),
                    _ => json!({ "key_hex": to_hex(key), "slot": slot, "node": node }),
                };
                line(out, &shown.to_string())
            })
        }
        "check" => match emq_id::self_check() {
            Ok(()) => {
                line(out, &format!("ok: this build agrees with {} and {}", emq_id::CONTRACT, emq_id::KEYSPACE))?;
                Ok(vec![])
            }
            Err(m) => Err(Failure::Io(m.to_string())),
        },
        _ => unreachable!("help::of lists every command"),
    }
}

/// `key`: build a key, or (by flag) parse keys, a queue's or a job prefix, a family's prefix length.
fn key(args: &Args, out: Out) -> Result<Vec<Failure>, Failure> {
    if args.has("--parse") {
        return each(args, out, |key, out| {
            let parsed = emq_id::parse_key(key).map_err(|e| Failure::gate(e, key))?;
            let mut answer = json!({
                "key": String::from_utf8_lossy(key),
                "queue": String::from_utf8_lossy(parsed.queue),
                "family": parsed.family.pattern().to_string(),
            });
            if let Some(param) = parsed.param {
                answer["param"] = json!(String::from_utf8_lossy(param));
            }
            line(out, &answer.to_string())
        });
    }
    let values = inputs(args)?;
    if args.has("--queue-prefix") {
        let [queue] = values.as_slice() else { return Err(Failure::Usage("key --queue-prefix takes QUEUE".into())) };
        line(out, emq_id::queue_prefix(queue).map_err(|e| Failure::gate(e, queue))?.as_str())?;
        return Ok(vec![]);
    }
    if args.has("--job-prefix") {
        let [queue] = values.as_slice() else { return Err(Failure::Usage("key --job-prefix takes QUEUE".into())) };
        line(out, emq_id::job_prefix(queue).map_err(|e| Failure::gate(e, queue))?.as_str())?;
        return Ok(vec![]);
    }
    if args.has("--prefix-bytes") {
        let [queue, ty] = values.as_slice() else {
            return Err(Failure::Usage("key --prefix-bytes takes QUEUE TYPE".into()));
        };
        let n = emq_id::prefix_bytes(queue, ty).map_err(|e| {
            Failure::gate(e, if e.gate() == emq_id::Gate::Queue { queue.as_slice() } else { ty.as_slice() })
        })?;
        line(out, &n.to_string())?;
        return Ok(vec![]);
    }
    let (queue, ty, id) = match values.as_slice() {
        [q, t] => (q, t, None),
        [q, t, id] => (q, t, Some(id.as_slice())),
        _ => return Err(Failure::Usage("key takes QUEUE TYPE (or QUEUE job ID)".into())),
    };
    let key = emq_id::key(queue, ty, id).map_err(|e| {
        let culprit = match (e.gate(), id) {
            (emq_id::Gate::Queue, _) => queue.as_slice(),
            (_, Some(id)) if e.gate() != emq_id::Gate::Kind || ty.as_slice() == b"job" => id,
            _ => ty.as_slice(),
        };
        Failure::gate(e, culprit)
    })?;
    line(out, key.as_str())?;
    Ok(vec![])
}

/// The command's inputs: its arguments (hex-decoded under `--hex`), else stdin lines.
fn inputs(args: &Args) -> Result<Vec<Vec<u8>>, Failure> {
    let raw = if args.positional.is_empty() { stdin_lines()? } else { args.positional.clone() };
    if !args.has("--hex") {
        return Ok(raw);
    }
    raw.iter()
        .map(|h| from_hex(h).ok_or_else(|| Failure::Usage(format!("not hex: {:?}", String::from_utf8_lossy(h)))))
        .collect()
}

/// `route`'s default bound (ms) on connecting, on each write and on the whole
/// `CLUSTER SLOTS` reply: a live cluster answers in microseconds, and someone
/// at the terminal should hear about a dead or silent one within seconds.
const ROUTE_TIMEOUT_MS: u64 = 5000;

/// Runs `f` over every input, collecting failures instead of stopping at the first.
fn each(args: &Args, out: Out, mut f: impl FnMut(&[u8], Out) -> Result<(), Failure>) -> Result<Vec<Failure>, Failure> {
    let mut failures = vec![];
    for value in inputs(args)? {
        if let Err(fail) = f(&value, out) {
            failures.push(fail);
        }
    }
    Ok(failures)
}

fn decode(text: &[u8], out: Out) -> Result<(), Failure> {
    let id = emq_id::Id::parse(text).map_err(|e| Failure::gate(e, text))?;
    line(out, &describe(&id).to_string())
}

fn describe(id: &emq_id::Id) -> Value {
    json!({
        "id": id.to_string(),
        "ns": id.ns_str(),
        "snowflake": id.snowflake().to_string(),
        "unix_ms": id.unix_ms().to_string(),
        "time": civil::format_ms(id.unix_ms() as i64),
        "node": id.node(),
        "seq": id.seq(),
        "hash32": id.hash32(),
    })
}

fn mint(args: &Args, out: Out) -> Result<Vec<Failure>, Failure> {
    let [ns] = args.positional.as_slice() else {
        return Err(Failure::Usage("mint takes one NS".into()));
    };
    emq_id::check_namespace(ns).map_err(|e| Failure::gate(e, ns))?;
    let node = match args.one("--node") {
        Some(n) => Some(emq_id::parse_node(n).map_err(|e| Failure::gate(e, n.as_bytes()))?),
        None => None,
    };
    let clock: Vec<&str> = args.all("--at").collect();
    if !clock.is_empty() {
        let node = node.ok_or_else(|| Failure::Usage("--at replays a fresh minter: give its --node".into()))?;
        return replay(ns, node, &clock, out);
    }
    let count: u64 = match args.one("-n") {
        Some(n) => n.parse().map_err(|_| Failure::Usage(format!("-n takes a count, not {n:?}")))?,
        None => 1,
    };
    if args.one("--replicas").is_some() && args.one("--lease").is_none() {
        return Err(Failure::Usage("--replicas is for a node leased with --lease".into()));
    }
    if let Some(addr) = args.one("--lease") {
        if node.is_some() {
            return Err(Failure::Usage("--lease takes a node from Valkey: give it or --node, not both".into()));
        }
        return mint_leased(ns, count, addr, args, out);
    }
    // The CLI process is one mint state: --node, like EMQ_NODE, takes the
    // node's host-local claim, so two live invocations never share a node.
    let minter = match node {
        Some(node) => emq_id::set_process_node(node),
        None => emq_id::process_minter(),
    };
    // Where the node came from, to name it in a refusal.
    let given = match (node, std::env::var_os(emq_id::NODE_ENV)) {
        (Some(node), _) => format!("--node {node}"),
        (None, Some(env)) => format!("{}={}", emq_id::NODE_ENV, env.to_string_lossy()),
        (None, None) => "a drawn node".to_string(),
    };
    let minter = minter.map_err(|e| Failure::gate(e, given.as_bytes()))?;
    if minter.source() == emq_id::NodeSource::Fallback {
        eprintln!(
            "warning: neither --node nor {} is set; drew node {}, which no other live process of this host holds: \
             ids may still collide with another host's",
            emq_id::NODE_ENV,
            minter.node()
        );
    }
    for _ in 0..count {
        let s = minter.next().map_err(|e| {
            let input = if e.gate() == emq_id::Gate::Node { given.as_bytes() } else { b"clock" };
            Failure::gate(e, input)
        })?;
        let id = emq_id::Id::new(ns, s).map_err(|e| Failure::gate(e, ns))?;
        if args.has("--json") {
            line(out, &describe(&id).to_string())?;
        } else {
            line(out, &id.to_string())?;
        }
    }
    Ok(vec![])
}

/// `mint --lease SEEDS`: a node leased from Valkey for the run, released
/// after it. A lease lost in the run is taken again by the holder; a mint
/// waits for that at most one TTL, then refuses with `node`.
fn mint_leased(ns: &[u8], count: u64, seeds: &str, args: &Args, out: Out) -> Result<Vec<Failure>, Failure> {
    let options = crate::lease::options(args)?;
    let lease = crate::lease::acquire(seeds, options)?;
    let wait = std::time::Duration::from_millis(options.terms.ttl_ms);
    for _ in 0..count {
        let minted = lease.next_within(wait).map_err(|e| Failure::gate(e, seeds.as_bytes()))?;
        let id = emq_id::Id::new(ns, minted.snowflake).map_err(|e| Failure::gate(e, ns))?;
        if args.has("--json") {
            line(out, &describe(&id).to_string())?;
        } else {
            line(out, &id.to_string())?;
        }
    }
    Ok(vec![])
}

/// `mint --at`: the pure step from state 0, one JSON line per clock reading.
fn replay(ns: &[u8], node: u16, clock: &[&str], out: Out) -> Result<Vec<Failure>, Failure> {
    let minter = emq_id::Minter::new(node).map_err(|e| Failure::gate(e, node.to_string().as_bytes()))?;
    let mut failures = vec![];
    for now in clock {
        let ms: i64 = now.parse().map_err(|_| Failure::Usage(format!("--at takes unix ms, not {now:?}")))?;
        let answer = match minter.next_at(ms) {
            Ok(s) => {
                let id = emq_id::Id::new(ns, s).map_err(|e| Failure::gate(e, ns))?;
                json!({ "now_ms": now, "id": id.to_string(), "snowflake": s.to_string() })
            }
            Err(e) => {
                failures.push(Failure::gate(e, now.as_bytes()));
                json!({ "now_ms": now, "error": e.code() })
            }
        };
        line(out, &answer.to_string())?;
    }
    Ok(failures)
}

fn line(out: Out, text: &str) -> Result<(), Failure> {
    writeln!(out, "{text}").map_err(|e| Failure::Io(e.to_string()))
}

/// A decimal `u64`; anything else (including ≥ 2^64) is the range gate.
fn parse_u64(text: &[u8]) -> Result<u64, Failure> {
    std::str::from_utf8(text)
        .ok()
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| {
            let e = emq_id::Error::from_gate(emq_id::Gate::Range, "a snowflake is a decimal below 2^64");
            Failure::gate(e, text)
        })
}

fn parse_time(text: &[u8]) -> Result<i64, Failure> {
    let t = String::from_utf8_lossy(text);
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    civil::parse_ms(&t).ok_or_else(|| Failure::Usage(format!("not unix ms or ISO-8601: {t:?}")))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok()).collect()
}
