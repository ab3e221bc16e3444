//! A `Connection` against servers that misbehave, each a thread on loopback
//! that stops by itself; every wait is timed.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use emq_resp::{Connection, Reply, Timeouts};

/// A one-connection server playing `act`, then waiting (5 s at most) for the
/// client to hang up; returns its `host:port`.
fn server(act: impl FnOnce(&mut TcpStream) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    thread::spawn(move || {
        listener.set_nonblocking(true).unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).unwrap();
                    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                    act(&mut s);
                    let _ = std::io::copy(&mut s, &mut std::io::sink());
                    return;
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    addr
}

/// Reads the client's command (the CLUSTER SLOTS or PING this test sends).
fn take_command(s: &mut TcpStream) {
    let mut buf = [0u8; 256];
    let _ = s.read(&mut buf);
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn a_well_behaved_server_is_answered() {
    let addr = server(|s| {
        let mut got = [0u8; 14];
        s.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"*1\r\n$4\r\nPING\r\n");
        s.write_all(b"+PONG\r\n").unwrap();
    });
    let mut c = Connection::open(&addr).unwrap();
    assert_eq!(c.timeouts(), Timeouts::DEFAULT);
    assert_eq!(c.cmd(&["PING"]).unwrap(), Reply::Status("PONG".into()));
}

#[test]
fn a_pipeline_is_one_write_and_its_replies_in_order() {
    let addr = server(|s| {
        let want = b"*2\r\n$4\r\nEVAL\r\n$1\r\nx\r\n*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$3\r\n250\r\n";
        let mut got = vec![0u8; want.len()];
        s.read_exact(&mut got).unwrap();
        assert_eq!(got, want);
        s.write_all(b"-ERR no\r\n:0\r\n").unwrap();
    });
    let mut c = Connection::open(&addr).unwrap();
    assert_eq!(c.host(), "127.0.0.1");
    let eval: [&[u8]; 2] = [b"EVAL", b"x"];
    let wait: [&[u8]; 3] = [b"WAIT", b"1", b"250"];
    let replies = c.pipeline(&[&eval, &wait]).unwrap();
    assert_eq!(replies, vec![Reply::Error("ERR no".into()), Reply::Int(0)]);
}

#[test]
fn a_silent_server_ends_in_the_read_timeout() {
    let addr = server(take_command);
    let mut c = Connection::open_with(&addr, Timeouts::all(ms(300))).unwrap();
    let start = Instant::now();
    let e = c.cmd(&["PING"]).unwrap_err();
    let took = start.elapsed();
    eprintln!("emq-resp: silent server: {e} after {took:?}");
    assert_eq!(e.kind(), ErrorKind::TimedOut);
    assert_eq!(e.to_string(), "no complete reply within 300 ms (read timeout)");
    assert!(took >= ms(290) && took < ms(2000), "{took:?}");
}

#[test]
fn a_trickling_server_cannot_stretch_the_read_timeout() {
    // A byte every 100 ms never lets a single read time out: the reply's deadline does.
    let addr = server(|s| {
        take_command(s);
        let _ = s.write_all(b"$1000\r\n");
        for _ in 0..50 {
            if s.write_all(b"x").is_err() {
                return;
            }
            thread::sleep(ms(100));
        }
    });
    let mut c = Connection::open_with(&addr, Timeouts::all(ms(500))).unwrap();
    let start = Instant::now();
    let e = c.cmd(&["PING"]).unwrap_err();
    let took = start.elapsed();
    eprintln!("emq-resp: trickling server: {e} after {took:?}");
    assert_eq!(e.kind(), ErrorKind::TimedOut);
    assert!(took < ms(1500), "{took:?}");
}

#[test]
fn a_closed_port_is_refused_by_name() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let start = Instant::now();
    let e = Connection::open(&format!("127.0.0.1:{port}")).err().unwrap();
    eprintln!("emq-resp: closed port: {e} after {:?}", start.elapsed());
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    assert!(e.to_string().starts_with(&format!("cannot connect to 127.0.0.1:{port}: ")), "{e}");
}

#[test]
fn a_zero_timeout_is_refused() {
    for t in [
        Timeouts { connect: Duration::ZERO, ..Timeouts::DEFAULT },
        Timeouts { read: Duration::ZERO, ..Timeouts::DEFAULT },
    ] {
        let e = Connection::open_with("127.0.0.1:1", t).err().unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    }
}

#[test]
fn a_connection_is_unusable_after_a_fault() {
    let addr = server(|s| {
        take_command(s);
        let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
    });
    let mut c = Connection::open(&addr).unwrap();
    let e = c.cmd(&["PING"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidData);
    assert!(e.to_string().contains("(an HTTP server, not Valkey?)"), "{e}");
    let again = c.cmd(&["PING"]).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::NotConnected);
    assert!(again.to_string().contains("failed earlier (RESP: the reply starts with \"H\""), "{again}");
}

#[test]
fn a_server_hanging_up_is_unexpected_eof() {
    let addr = server(|s| {
        take_command(s);
        let _ = s.write_all(b"*2\r\n:1\r\n");
        let _ = s.shutdown(std::net::Shutdown::Write);
    });
    let e = Connection::open(&addr).unwrap().cmd(&["PING"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnexpectedEof);
    assert_eq!(e.to_string(), "RESP: the connection closed inside an array");
}
