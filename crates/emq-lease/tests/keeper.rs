//! The holder's state machine against a scripted server on loopback: what it
//! does with each answer the protocol allows, decided here byte for byte
//! (a live cluster cannot be made to answer `WAIT 0` or "gone" on cue).
//! Each server is threads that stop by themselves within seconds.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use emq_id::{Gate, LeaseTerms};
use emq_lease::{Lease, LeaseError, LeaseOptions};

/// A command as the server reads it: its arguments.
type Command = Vec<Vec<u8>>;
/// What the server answers a command with: raw RESP.
type Script = dyn Fn(&Command) -> Vec<u8> + Send + Sync;

/// A server answering every connection with `script`; its address, and the
/// names of the lease scripts it was sent, in order.
fn server(script: Box<Script>) -> (String, Arc<Mutex<Vec<&'static str>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    listener.set_nonblocking(true).unwrap();
    let seen = Arc::new(Mutex::new(vec![]));
    let (script, log) = (Arc::new(script), seen.clone());
    thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            match listener.accept() {
                Ok((stream, _)) => {
                    let (script, log) = (script.clone(), log.clone());
                    thread::spawn(move || serve(stream, &*script, &log));
                }
                Err(_) => thread::sleep(Duration::from_millis(2)),
            }
        }
    });
    (addr, seen)
}

fn serve(stream: TcpStream, script: &Script, log: &Mutex<Vec<&'static str>>) {
    stream.set_nonblocking(false).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    while let Some(command) = read_command(&mut reader) {
        if command.first().map(Vec::as_slice) == Some(b"EVAL") {
            let name = emq_id::SCRIPTS.iter().find(|s| command[1] == s.text.as_bytes()).map_or("?", |s| s.name);
            log.lock().unwrap().push(name);
        }
        if writer.write_all(&script(&command)).is_err() {
            return;
        }
    }
}

fn read_command(r: &mut impl BufRead) -> Option<Command> {
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let count: usize = line.trim().strip_prefix('*')?.parse().ok()?;
    (0..count)
        .map(|_| {
            let mut header = String::new();
            r.read_line(&mut header).ok()?;
            let len: usize = header.trim().strip_prefix('$')?.parse().ok()?;
            let mut arg = vec![0; len + 2];
            r.read_exact(&mut arg).ok()?;
            arg.truncate(len);
            Some(arg)
        })
        .collect()
}

fn is(command: &Command, name: &str) -> bool {
    command.first().is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes()))
}

fn script_of(command: &Command) -> &'static str {
    emq_id::SCRIPTS.iter().find(|s| is(command, "EVAL") && command[1] == s.text.as_bytes()).map_or("?", |s| s.name)
}

/// A standalone server: `CLUSTER SLOTS` is refused as Valkey refuses it without cluster support.
fn standalone(command: &Command) -> Option<Vec<u8>> {
    is(command, "CLUSTER").then(|| b"-ERR This instance has cluster support disabled\r\n".to_vec())
}

/// 300 ms leases fenced 50 ms early: renewals every 100 ms, WAIT's timeout 25 ms.
fn options() -> LeaseOptions {
    LeaseOptions::new(LeaseTerms::new(300, 50).unwrap())
}

#[test]
fn an_unacknowledged_acquire_mints_nothing_and_is_released() {
    let (addr, seen) = server(Box::new(|c| {
        standalone(c).unwrap_or_else(|| match (script_of(c), is(c, "WAIT")) {
            ("acquire", _) => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            (_, true) => b":0\r\n".to_vec(),
            _ => b":1\r\n".to_vec(),
        })
    }));
    match Lease::acquire(&addr, options()) {
        Err(LeaseError::Gate(e)) => {
            assert_eq!(e.gate(), Gate::Node);
            assert_eq!(e.acknowledged(), Some((0, 1)));
        }
        Err(e) => panic!("refused as {e}, not by the node gate"),
        Ok(_) => panic!("a lease no replica acknowledged was returned"),
    }
    assert_eq!(*seen.lock().unwrap(), ["acquire", "release"]);
}

#[test]
fn unacknowledged_renewals_leave_the_fence_where_it_was() {
    let acknowledged = Arc::new(AtomicBool::new(true));
    let ack = acknowledged.clone();
    let (addr, _) = server(Box::new(move |c| {
        standalone(c).unwrap_or_else(|| match (script_of(c), is(c, "WAIT")) {
            ("acquire", _) => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            (_, true) if ack.load(Ordering::Acquire) => b":1\r\n".to_vec(),
            (_, true) => b":0\r\n".to_vec(),
            _ => b":1\r\n".to_vec(), // renewals answered: the lease is still ours on the primary
        })
    }));
    let lease = Lease::acquire(&addr, options()).unwrap();
    acknowledged.store(false, Ordering::Release);
    let start = Instant::now();
    // Renewals are answered every 100 ms but never acknowledged: minting stops
    // at the fence of the acquire (250 ms after it), and stays stopped.
    let refused = loop {
        match lease.next() {
            Ok(_) => assert!(start.elapsed() < Duration::from_millis(400), "minting past the acquire's fence"),
            Err(e) => break (start.elapsed(), e),
        }
        thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(refused.1.gate(), Gate::Node);
    assert!(refused.0 >= Duration::from_millis(150), "fenced after {:?}, before the fence", refused.0);
    thread::sleep(Duration::from_millis(200));
    assert!(lease.next().is_err(), "an unacknowledged renewal reopened the fence");
    // Acknowledged again: the same lease mints again (renewals were answered: it never expired).
    acknowledged.store(true, Ordering::Release);
    let minted = lease.next_within(Duration::from_secs(2)).unwrap();
    assert_eq!((minted.lease, lease.node()), (1, Some(7)));
    assert!(lease.stats().longest_unleased >= Duration::from_millis(100));
}

#[test]
fn a_lost_lease_is_taken_again_after_every_id_minted_on_it() {
    let acquires = Arc::new(AtomicUsize::new(0));
    let count = acquires.clone();
    let lost = Arc::new(AtomicBool::new(false));
    let lose = lost.clone();
    let (addr, seen) = server(Box::new(move |c| {
        standalone(c).unwrap_or_else(|| match script_of(c) {
            // The first lease is node 900; the next one node 3, whose ids sort
            // below node 900's in any one millisecond.
            "acquire" if count.fetch_add(1, Ordering::AcqRel) == 0 => b"*2\r\n:900\r\n:-1\r\n".to_vec(),
            "acquire" => b"*2\r\n:3\r\n:-1\r\n".to_vec(),
            "renew" if lose.load(Ordering::Acquire) => b":0\r\n".to_vec(),
            _ => b":1\r\n".to_vec(), // renew, release and WAIT: done, acknowledged
        })
    }));
    let lease = Lease::acquire(&addr, options()).unwrap();
    let mut ids: Vec<u64> = (0..1_000).map(|_| lease.next().unwrap().snowflake).collect();
    // An id 200 ms ahead of the clock, as a burst borrows (below the mark,
    // 300 ms ahead): the next lease must start after it, not at the clock.
    let minter = lease.minter().unwrap();
    ids.push(minter.next_at(emq_id::now_ms() + 200, emq_id::monotonic_ms()).unwrap());
    lost.store(true, Ordering::Release);
    // Minting goes on on the first lease until a renewal finds it gone.
    let deadline = Instant::now() + Duration::from_secs(3);
    let next = loop {
        assert!(Instant::now() < deadline, "no second lease within 3 s: {:?}", seen.lock().unwrap());
        let m = lease.next_within(Duration::from_secs(3)).unwrap();
        if m.lease == 2 {
            break m;
        }
        ids.push(m.snowflake);
    };
    assert_eq!((next.lease, lease.node()), (2, Some(3)), "{:?}", seen.lock().unwrap());
    assert!(next.snowflake > *ids.last().unwrap(), "the new lease's first id sorts before the old lease's last");
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let stats = lease.stats();
    assert_eq!((stats.taken, stats.lost), (2, 1));
    assert!(lease.release().unwrap());
}

#[test]
fn a_write_redirected_by_ask_runs_and_is_waited_on_where_it_was_sent() {
    // The slot migrating, its key moved: the target runs the scripts after
    // `ASKING`, and only its replicas have the writes.
    let (target, ran) = server(Box::new(|c| {
        standalone(c).unwrap_or_else(|| match (script_of(c), is(c, "ASKING"), is(c, "WAIT")) {
            (_, true, _) => b"+OK\r\n".to_vec(),
            ("acquire", ..) => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            (.., true) => b":1\r\n".to_vec(),
            _ => b":1\r\n".to_vec(),
        })
    }));
    let ask = format!("-ASK 9051 {target}\r\n").into_bytes();
    let (source, asked) = server(Box::new(move |c| {
        // The source's replicas never got the writes: a WAIT here answers 0.
        standalone(c).unwrap_or_else(|| if is(c, "WAIT") { b":0\r\n".to_vec() } else { ask.clone() })
    }));
    let lease = Lease::acquire(&source, options()).expect("acknowledged by the node that ran the acquire");
    assert_eq!(lease.node(), Some(7));
    assert!(lease.next_within(Duration::from_millis(500)).is_ok());
    thread::sleep(Duration::from_millis(250)); // renewals, redirected the same way
    assert!(lease.release().unwrap());
    let ran = ran.lock().unwrap().clone();
    assert_eq!((ran.first(), ran.last()), (Some(&"acquire"), Some(&"release")), "{ran:?}");
    assert!(ran.contains(&"renew"), "{ran:?}");
    assert_eq!(*asked.lock().unwrap(), ran, "every write tried at the source first");
}

#[test]
fn a_cluster_not_up_yet_is_waited_for_within_a_ttl() {
    // `CLUSTERDOWN` for the first 150 ms (half the TTL): the acquire did not
    // run, and is tried again until it does.
    let up_at = Instant::now() + Duration::from_millis(150);
    let (addr, seen) = server(Box::new(move |c| {
        standalone(c).unwrap_or_else(|| match script_of(c) {
            "acquire" if Instant::now() < up_at => b"-CLUSTERDOWN The cluster is down\r\n".to_vec(),
            "acquire" => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            _ => b":1\r\n".to_vec(),
        })
    }));
    let lease = Lease::acquire(&addr, options()).expect("taken once the cluster is up");
    assert_eq!(lease.node(), Some(7));
    let tries = seen.lock().unwrap().iter().filter(|s| **s == "acquire").count();
    assert!(tries >= 2, "{tries} acquires: the first refusal was not tried again");
}

#[test]
fn a_reserve_that_never_runs_the_acquire_is_refused_by_name_after_a_ttl() {
    for (reply, named) in [
        ("-CLUSTERDOWN The cluster is down\r\n", "CLUSTERDOWN The cluster is down"),
        ("-TRYAGAIN Multiple keys request during rehashing of slot\r\n", "TRYAGAIN"),
        ("-NOREPLICAS Not enough good replicas to write.\r\n", "NOREPLICAS"),
    ] {
        let (addr, _) = server(Box::new(move |c| standalone(c).unwrap_or_else(|| reply.as_bytes().to_vec())));
        let start = Instant::now();
        match Lease::acquire(&addr, options()) {
            Err(LeaseError::Refused { refusal, reply }) => {
                assert_eq!(refusal.gate(), Gate::Node);
                assert!(reply.starts_with(named), "{reply}");
                let e = LeaseError::Refused { refusal, reply };
                assert!(e.to_string().contains(named), "{e}");
            }
            Err(e) => panic!("{named}: refused as {e:?}, not by name"),
            Ok(_) => panic!("{named}: a lease was returned"),
        }
        assert!(start.elapsed() >= Duration::from_millis(300), "gave up after {:?}, within the TTL", start.elapsed());
    }
}

#[test]
fn a_held_lease_rides_out_writes_that_did_not_run() {
    // Every renewal for 150 ms (half the TTL) answered `TRYAGAIN`, then
    // `CLUSTERDOWN`: the lease is kept, renewed once they run again.
    let (down_from, down_until) =
        (Instant::now() + Duration::from_millis(200), Instant::now() + Duration::from_millis(350));
    // Each connection asks for the slot map first: one ask means the holder
    // kept its connection (a write that did not run is tried again on it, not reconnected).
    let connections = Arc::new(AtomicUsize::new(0));
    let opened = connections.clone();
    let (addr, _) = server(Box::new(move |c| {
        if is(c, "CLUSTER") {
            opened.fetch_add(1, Ordering::AcqRel);
        }
        standalone(c).unwrap_or_else(|| match script_of(c) {
            "acquire" => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            "renew" if (down_from..down_until).contains(&Instant::now()) => {
                b"-TRYAGAIN Multiple keys request during rehashing of slot\r\n".to_vec()
            }
            _ => b":1\r\n".to_vec(),
        })
    }));
    let lease = Lease::acquire(&addr, options()).unwrap();
    thread::sleep(Duration::from_millis(600));
    assert!(lease.next().is_ok());
    let stats = lease.stats();
    assert_eq!((stats.taken, stats.lost), (1, 0));
    assert!(lease.release().unwrap());
    assert_eq!(connections.load(Ordering::Acquire), 1, "reconnected after a write that did not run");
}

#[test]
fn a_release_answered_moved_is_sent_where_the_reserve_went() {
    // The reserve's slot moved while the lease was held: the release finds it on the other node.
    let (there, released) = server(Box::new(|c| standalone(c).unwrap_or_else(|| b":1\r\n".to_vec())));
    let moved = format!("-MOVED 9051 {there}\r\n").into_bytes();
    let (here, _) = server(Box::new(move |c| {
        standalone(c).unwrap_or_else(|| match script_of(c) {
            "acquire" => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            "release" => moved.clone(),
            _ => b":1\r\n".to_vec(),
        })
    }));
    let lease = Lease::acquire(&here, options()).unwrap();
    assert!(lease.release().unwrap(), "the release was not handed back where the reserve is");
    assert_eq!(*released.lock().unwrap(), ["release"]);
}

#[test]
fn an_ask_target_still_loading_is_tried_again_not_a_fault() {
    // The node ASK names answers `ASKING` (and the script) with `LOADING` for
    // 150 ms: the write did not run there, and is tried again until it does.
    let up_at = Instant::now() + Duration::from_millis(150);
    let (target, _) = server(Box::new(move |c| {
        standalone(c).unwrap_or_else(|| match (script_of(c), Instant::now() < up_at) {
            (_, true) => b"-LOADING Valkey is loading the dataset in memory\r\n".to_vec(),
            _ if is(c, "ASKING") => b"+OK\r\n".to_vec(),
            ("acquire", _) => b"*2\r\n:7\r\n:-1\r\n".to_vec(),
            _ => b":1\r\n".to_vec(),
        })
    }));
    let ask = format!("-ASK 9051 {target}\r\n").into_bytes();
    let (source, asked) = server(Box::new(move |c| {
        standalone(c).unwrap_or_else(|| if is(c, "WAIT") { b":0\r\n".to_vec() } else { ask.clone() })
    }));
    let lease = Lease::acquire(&source, options()).expect("taken once the target has loaded");
    assert_eq!(lease.node(), Some(7));
    assert!(asked.lock().unwrap().len() >= 2, "the acquire was not tried again");
    assert!(lease.release().unwrap());
}
