//! `emq-id route` against servers that are not a Valkey cluster: a closed
//! port, an HTTP server, one that sends garbage, one that sends nothing.
//! Each must end within seconds with `error: io: …` (a Failure::Io: exit
//! status 1, where bad input is 2) that says what was wrong. The bad
//! servers are threads on 127.0.0.1 that stop by themselves; every run is
//! timed and printed (`cargo test --test route -- --nocapture`).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

/// What a bad server does with its one connection.
type Play = fn(&mut TcpStream);

/// The longest any case may take: "within seconds".
const WITHIN: Duration = Duration::from_secs(4);

/// A server that plays `play` on its first connection, then waits for the
/// client to hang up; it gives up by itself after 10 s either way.
fn bad_server(play: Play) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    listener.set_nonblocking(true).unwrap();
    thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    stream.set_nonblocking(false).unwrap();
                    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                    play(&mut stream);
                    // Drain until the client hangs up, so the client reads what was sent
                    // (closing with unread bytes would reset the connection instead).
                    let _ = std::io::copy(&mut stream, &mut std::io::sink());
                    return;
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    addr
}

/// Reads the client's `CLUSTER SLOTS` (one small write).
fn take_request(s: &mut TcpStream) {
    let mut buf = [0u8; 512];
    let _ = s.read(&mut buf);
}

fn http_400(s: &mut TcpStream) {
    take_request(s);
    let body = "Bad Request";
    let _ = write!(s, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n", body.len());
    let _ = write!(s, "Connection: close\r\n\r\n{body}");
    let _ = s.shutdown(Shutdown::Write);
}

fn garbage(s: &mut TcpStream) {
    take_request(s);
    let _ = s.write_all(b"\x00\x9f\xfe\xff garbage \x07\x1b[2J");
}

fn huge_length(s: &mut TcpStream) {
    take_request(s);
    let _ = s.write_all(b"*1\r\n$99999999999\r\n");
}

fn endless_line(s: &mut TcpStream) {
    take_request(s);
    let _ = s.write_all(b"+");
    let chunk = [b'x'; 4096];
    for _ in 0..64 {
        if s.write_all(&chunk).is_err() {
            return;
        }
    }
}

fn silent(s: &mut TcpStream) {
    take_request(s);
}

/// Runs `emq-id route KEY --cluster ADDR ARGS…` and checks it fails as an io
/// failure naming `addr`, saying each of `says`, within [`WITHIN`] (and, when
/// given, not before `at_least`).
fn check(case: &str, addr: &str, args: &[&str], says: &[&str], at_least: Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_emq-id"))
        .args(["route", "emq:{orders}:pending", "--cluster", addr])
        .args(args)
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("route: {case}: exit {:?} after {took:.2?}: {}", out.status.code(), stderr.trim_end());
    assert_eq!(out.status.code(), Some(1), "{case}: {stderr}");
    assert!(out.stdout.is_empty(), "{case}: printed {:?}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr.starts_with(&format!("error: io: {addr}: ")), "{case}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{case}: one line: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "{case}: {stderr:?} does not say {s:?}");
    }
    assert!(took < WITHIN, "{case}: took {took:?}");
    assert!(took >= at_least, "{case}: gave up after {took:?}, before its timeout");
}

#[test]
fn a_closed_port() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    check("closed port", &addr, &[], &["cannot connect to", "refused"], Duration::ZERO);
}

#[test]
fn an_http_server() {
    let says = ["not a RESP2 type byte", "(an HTTP server, not Valkey?)", "\"HTTP/1.1 400 Bad Request\""];
    check("HTTP server", &bad_server(http_400), &[], &says, Duration::ZERO);
}

#[test]
fn a_server_that_sends_garbage() {
    check("garbage", &bad_server(garbage), &[], &["starts with \"\\x00\", not a RESP2 type byte"], Duration::ZERO);
    check("a 100 GB bulk announced", &bad_server(huge_length), &[], &["above the cap", "(MAX_BULK)"], Duration::ZERO);
    check("an endless line", &bad_server(endless_line), &[], &["longer than 65536 bytes (MAX_LINE)"], Duration::ZERO);
}

#[test]
fn a_server_that_sends_nothing() {
    let says = ["no complete reply within 1000 ms (read timeout)"];
    check("silent server", &bad_server(silent), &["--timeout", "1000"], &says, Duration::from_millis(1000));
}

#[test]
fn a_bad_timeout_is_a_usage_error() {
    for bad in ["0", "-5", "soon", ""] {
        let out = Command::new(env!("CARGO_BIN_EXE_emq-id"))
            .args(["route", "k", "--cluster", "127.0.0.1:1", "--timeout", bad])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(stderr.starts_with("error: usage: --timeout takes milliseconds above 0"), "{bad:?}: {stderr}");
    }
}
