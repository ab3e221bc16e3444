//! One blocking connection, every wait on it bounded.

use std::io::{self, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::reply::{read_reply, Reply};

/// How long a [`Connection`] waits for the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening the connection, over every address the host name resolves to.
    /// (Resolving the name itself is the system resolver's and has no bound
    /// in std; an `IP:PORT` needs none.)
    pub connect: Duration,
    /// One whole reply, from the command sent to its last byte: a server that
    /// trickles a byte now and then cannot stretch it.
    pub read: Duration,
    /// Each write of a command to the socket.
    pub write: Duration,
}

impl Timeouts {
    /// 5 s to connect, 10 s for a reply or a write: far above what a loopback
    /// or LAN Valkey takes (a `CLUSTER SLOTS` answers in microseconds; a lease
    /// script in well under a millisecond), short enough that a dead or silent
    /// server is reported while someone is still watching.
    pub const DEFAULT: Timeouts =
        Timeouts { connect: Duration::from_secs(5), read: Duration::from_secs(10), write: Duration::from_secs(10) };

    /// The same bound for connecting, reading and writing.
    pub const fn all(timeout: Duration) -> Timeouts {
        Timeouts { connect: timeout, read: timeout, write: timeout }
    }
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts::DEFAULT
    }
}

/// One connection. After an I/O or protocol error it refuses further calls
/// (the reply stream is out of step): open a new one.
pub struct Connection {
    reader: BufReader<Timed>,
    writer: TcpStream,
    timeouts: Timeouts,
    broken: Option<String>,
    /// The host part of the address this connection was opened with.
    host: String,
}

impl Connection {
    /// Connects to `addr` (`host:port`) with [`Timeouts::DEFAULT`].
    pub fn open(addr: &str) -> io::Result<Connection> {
        Connection::open_with(addr, Timeouts::DEFAULT)
    }

    /// Connects to `addr` (`host:port`), trying each address it resolves to
    /// until one answers, all within `timeouts.connect`. A zero timeout is
    /// refused (`InvalidInput`): it would mean "no bound" to the OS.
    pub fn open_with(addr: &str, timeouts: Timeouts) -> io::Result<Connection> {
        for (name, d) in [("connect", timeouts.connect), ("read", timeouts.read), ("write", timeouts.write)] {
            if d.is_zero() {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("the {name} timeout is zero")));
            }
        }
        let addrs: Vec<SocketAddr> = addr
            .to_socket_addrs()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot resolve {addr:?}: {e}")))?
            .collect();
        let stream = connect(addr, &addrs, timeouts.connect)?;
        stream.set_write_timeout(Some(timeouts.write))?;
        stream.set_nodelay(true)?;
        let reader = BufReader::new(Timed { stream: stream.try_clone()?, deadline: None, budget: timeouts.read });
        Ok(Connection { reader, writer: stream, timeouts, broken: None, host: host_of(addr).to_string() })
    }

    /// The host this connection was opened to, as given (`127.0.0.1`,
    /// `valkey-0.internal`, `[::1]`): where a cluster node that does not know
    /// its own address is reached.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The timeouts this connection was opened with.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// Sends one command and reads its reply (an error reply is
    /// `Ok(Reply::Error)`). `Err` names what went wrong: the write or read
    /// timeout (`TimedOut`), a reply that is not RESP2 or breaks a cap
    /// (`InvalidData`, see [`read_reply`]), the server closing the connection
    /// (`UnexpectedEof`), or the socket's own error.
    pub fn call(&mut self, args: &[&[u8]]) -> io::Result<Reply> {
        if let Some(earlier) = &self.broken {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                format!("this connection failed earlier ({earlier}); open a new one"),
            ));
        }
        let result = self.send(args).and_then(|()| self.receive());
        if let Err(e) = &result {
            self.broken = Some(e.to_string());
        }
        result
    }

    /// Sends several commands in one write and reads their replies in order
    /// (one round trip: a lease script and the `WAIT` that follows it). An
    /// error reply is one of the replies; an I/O or protocol fault fails the
    /// whole call and the connection, as in [`call`](Self::call).
    pub fn pipeline(&mut self, commands: &[&[&[u8]]]) -> io::Result<Vec<Reply>> {
        if let Some(earlier) = &self.broken {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                format!("this connection failed earlier ({earlier}); open a new one"),
            ));
        }
        let result = self.send_all(commands).and_then(|()| commands.iter().map(|_| self.receive()).collect());
        if let Err(e) = &result {
            self.broken = Some(e.to_string());
        }
        result
    }

    /// [`call`](Self::call) over text arguments.
    pub fn cmd(&mut self, args: &[&str]) -> io::Result<Reply> {
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.call(&bytes)
    }

    fn send(&mut self, args: &[&[u8]]) -> io::Result<()> {
        self.send_all(&[args])
    }

    fn send_all(&mut self, commands: &[&[&[u8]]]) -> io::Result<()> {
        let mut out = Vec::with_capacity(64);
        for args in commands {
            out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
            for a in *args {
                out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
                out.extend_from_slice(a);
                out.extend_from_slice(b"\r\n");
            }
        }
        self.writer.write_all(&out).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the server took no command bytes for {} ms (write timeout)", self.timeouts.write.as_millis()),
            ),
            kind => io::Error::new(kind, format!("sending the command: {e}")),
        })
    }

    fn receive(&mut self) -> io::Result<Reply> {
        self.reader.get_mut().deadline = Instant::now().checked_add(self.timeouts.read);
        let reply = read_reply(&mut self.reader);
        self.reader.get_mut().deadline = None;
        reply.map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof | io::ErrorKind::TimedOut => e,
            kind => io::Error::new(kind, format!("reading the reply: {e}")),
        })
    }
}

/// The host part of `host:port` (`[::1]` keeps its brackets); the whole text
/// when it has no port.
fn host_of(addr: &str) -> &str {
    addr.rsplit_once(':').map_or(addr, |(host, _)| host)
}

/// The first of `addrs` that accepts within `timeout` (for all of them).
fn connect(addr: &str, addrs: &[SocketAddr], timeout: Duration) -> io::Result<TcpStream> {
    let deadline = Instant::now().checked_add(timeout);
    let mut last = None;
    for a in addrs {
        let left = deadline.map_or(timeout, |d| d.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            break;
        }
        match TcpStream::connect_timeout(a, left) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some((a, e)),
        }
    }
    Err(match last {
        None => io::Error::new(io::ErrorKind::NotFound, format!("{addr:?} resolves to no address")),
        Some((a, e)) if matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no connection to {a} within {} ms (connect timeout)", timeout.as_millis()),
        ),
        Some((a, e)) => io::Error::new(e.kind(), format!("cannot connect to {a}: {e}")),
    })
}

/// The read half: each read waits only for what is left of the reply's
/// deadline, so the whole reply is bounded, not just each read.
struct Timed {
    stream: TcpStream,
    deadline: Option<Instant>,
    budget: Duration,
}

impl Timed {
    fn timed_out(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no complete reply within {} ms (read timeout)", self.budget.as_millis()),
        )
    }
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.map_or(self.budget, |d| d.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            return Err(self.timed_out());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => self.timed_out(),
            _ => e,
        })
    }
}
