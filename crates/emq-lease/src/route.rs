//! The way to the reserve's primary: any of the seeds the caller gave, and
//! every primary a slot map has named since, so a holder follows a failover
//! to the new primary even when the address it was given is the dead one.

use std::io;

use emq_resp::{Connection, Timeouts};

/// The address of the node a redirect names: its host, or `from`, the host
/// the redirected connection was opened to, when the node could not name its own.
pub fn address(to: emq_id::Redirect<'_>, from: &str) -> String {
    let host = to.host.unwrap_or(from).trim_start_matches('[').trim_end_matches(']');
    if host.contains(':') {
        format!("[{host}]:{}", to.port)
    } else {
        format!("{host}:{}", to.port)
    }
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

    /// Remembers a `MOVED` reply's target, tried first next time; a node
    /// that cannot name its host is on `from`'s.
    pub fn moved(&mut self, reply: &str, from: &str) {
        self.moved = emq_id::redirect(reply).filter(|r| !r.ask).map(|r| address(r, from)).or(self.moved.take());
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
        let at = |text| address(emq_id::redirect(text).unwrap(), "10.0.0.1");
        assert_eq!(at("ASK 9051 10.0.0.2:7001"), "10.0.0.2:7001");
        assert_eq!(at("MOVED 9051 :7001"), "10.0.0.1:7001");
        assert_eq!(at("ASK 9051 ?:7001"), "10.0.0.1:7001");
        assert_eq!(at("ASK 9051 [2001:db8::1]:7001"), "[2001:db8::1]:7001");
        assert_eq!(address(emq_id::redirect("ASK 9051 :7001").unwrap(), "[::1]"), "[::1]:7001");
    }
}
