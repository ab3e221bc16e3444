//! The way to the reserve's primary: any of the seeds the caller gave, and
//! every primary a slot map has named since, so a holder follows a failover
//! to the new primary even when the address it was given is the dead one.

use std::io;

use emq_resp::{Connection, Timeouts};

/// The node a redirect (`MOVED <slot> <host:port>` or `ASK …`, by `kind`)
/// names; an endpoint the server cannot name (`:port`, `?:port`) is on
/// `host`, the one the redirected connection was opened to.
pub fn redirect(kind: &str, reply: &str, host: &str) -> Option<String> {
    let target = reply.strip_prefix(kind)?.split_whitespace().nth(1)?;
    Some(match target.strip_prefix(':').or_else(|| target.strip_prefix("?:")) {
        Some(port) => format!("{host}:{port}"),
        None => target.to_string(),
    })
}

/// Seeds, the primaries learned from slot maps, and a `MOVED` target to try first.
pub struct Route {
    seeds: Vec<String>,
    learned: Vec<String>,
    moved: Option<String>,
    timeouts: Timeouts,
}

impl Route {
    /// `seeds`: `HOST:PORT[,HOST:PORT…]`, any nodes of one cluster (or one standalone server).
    pub fn new(seeds: &str, timeouts: Timeouts) -> io::Result<Route> {
        let seeds: Vec<String> = seeds.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        if seeds.is_empty() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no seed: give HOST:PORT[,HOST:PORT...]"));
        }
        Ok(Route { seeds, learned: vec![], moved: None, timeouts })
    }

    /// Remembers a `MOVED` reply's target (`<slot> <host>:<port>`), tried first next time;
    /// an empty host is the one `from` was opened to.
    pub fn moved(&mut self, reply: &str, from: &Connection) {
        self.moved = redirect("MOVED ", reply, from.host()).or(self.moved.take());
    }

    /// A connection to the primary that owns the reserve's slot, found
    /// through the `MOVED` target, each seed, then each primary learned, in
    /// that order. The last failure when none answers.
    pub fn connect(&mut self) -> io::Result<Connection> {
        let mut tried: Vec<String> = vec![];
        let candidates: Vec<String> = self
            .moved
            .take()
            .into_iter()
            .chain(self.seeds.iter().cloned())
            .chain(self.learned.iter().cloned())
            .collect();
        let mut last = io::Error::new(io::ErrorKind::NotConnected, "no seed answered");
        for addr in candidates {
            if tried.contains(&addr) {
                continue;
            }
            match self.through(&addr) {
                Ok(conn) => return Ok(conn),
                Err(e) => last = io::Error::new(e.kind(), format!("{addr}: {e}")),
            }
            tried.push(addr);
        }
        Err(last)
    }

    /// Asks `addr` for the slot map and connects to the reserve's primary.
    fn through(&mut self, addr: &str) -> io::Result<Connection> {
        let mut conn = Connection::open_with(addr, self.timeouts)?;
        if let Some(e) = conn.cmd(&["CLUSTER", "SLOTS"])?.error() {
            // Only a server without cluster support holds every key; any other
            // refusal (`LOADING` after a restart…) sends the holder on to the next candidate.
            if e.contains("cluster support disabled") {
                return Ok(conn);
            }
            return Err(io::Error::other(format!("CLUSTER SLOTS: {e}")));
        }
        let map = emq_resp::slot_map(&mut conn)?;
        for (_, _, primary) in &map {
            if !self.learned.contains(primary) && !self.seeds.contains(primary) {
                self.learned.push(primary.clone());
            }
        }
        let slot = emq_id::slot(emq_id::LEASE_KEY.as_bytes());
        match emq_resp::owner(&map, slot) {
            Some(owner) if owner != addr => Connection::open_with(owner, self.timeouts),
            Some(_) => Ok(conn),
            None => Err(io::Error::new(io::ErrorKind::NotFound, format!("no node of {addr}'s map serves slot {slot}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_a_comma_separated_list() {
        let route = Route::new(" 10.0.0.1:7000, 10.0.0.2:7000 ,", Timeouts::DEFAULT).unwrap();
        assert_eq!(route.seeds, ["10.0.0.1:7000", "10.0.0.2:7000"]);
        assert_eq!(Route::new(" , ", Timeouts::DEFAULT).err().map(|e| e.kind()), Some(io::ErrorKind::InvalidInput));
    }

    #[test]
    fn a_redirect_names_its_node_or_the_one_it_came_from() {
        let named = redirect("ASK ", "ASK 9051 10.0.0.2:7001", "10.0.0.1");
        assert_eq!(named.as_deref(), Some("10.0.0.2:7001"));
        assert_eq!(redirect("MOVED ", "MOVED 9051 :7001", "10.0.0.1").as_deref(), Some("10.0.0.1:7001"));
        assert_eq!(redirect("ASK ", "ASK 9051 ?:7001", "10.0.0.1").as_deref(), Some("10.0.0.1:7001"));
        assert_eq!(redirect("ASK ", "MOVED 9051 10.0.0.2:7001", "10.0.0.1"), None);
        assert_eq!(redirect("ASK ", "ASK 9051", "10.0.0.1"), None);
    }
}
