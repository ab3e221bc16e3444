//! The process-wide minter, configured by the `EMQ_NODE` environment variable.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::Result;
use crate::id::Id;
use crate::mint::parse_node;
use crate::mint::Minter;
use crate::snowflake::MAX_NODE;

/// The environment variable naming this process's node (`0`–`1023`).
pub const NODE_ENV: &str = "EMQ_NODE";

/// Where the process-wide minter's node came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeSource {
    /// From `EMQ_NODE`: unique as long as your configuration gives each
    /// concurrently minting process its own node.
    Env,
    /// `EMQ_NODE` was unset, so the node was drawn from the process id and the
    /// clock. Two processes can draw the same node and then mint the same id:
    /// collisions are possible. Set `EMQ_NODE` in production.
    Fallback,
}

/// The process-wide minter and where its node came from.
#[derive(Debug)]
pub struct ProcessMinter {
    minter: Minter,
    source: NodeSource,
}

impl ProcessMinter {
    /// The minter itself.
    pub fn minter(&self) -> &Minter {
        &self.minter
    }

    /// The node it stamps.
    pub fn node(&self) -> u16 {
        self.minter.node()
    }

    /// Whether the node was configured or drawn (collision-possible).
    pub fn source(&self) -> NodeSource {
        self.source
    }
}

/// The process-wide minter, created on first use from `EMQ_NODE`.
///
/// `EMQ_NODE` set to anything but a decimal in `0..=1023` is refused with
/// [`Gate::Range`](crate::Gate::Range) (every call answers the same error: a misconfigured node
/// never silently falls back). Unset, the node is drawn and
/// [`ProcessMinter::source`] says [`NodeSource::Fallback`].
pub fn process_minter() -> Result<&'static ProcessMinter> {
    static GLOBAL: OnceLock<Result<ProcessMinter>> = OnceLock::new();
    GLOBAL
        .get_or_init(|| {
            let (node, source) = match std::env::var_os(NODE_ENV) {
                Some(value) => (parse_node(value.to_str().unwrap_or(""))?, NodeSource::Env),
                None => (fallback_node(), NodeSource::Fallback),
            };
            Ok(ProcessMinter { minter: Minter::new(node)?, source })
        })
        .as_ref()
        .map_err(|e| *e)
}

/// Mints an id in `ns` with the process-wide minter and the system clock.
///
/// ```
/// let id = emq_id::mint(b"JOB").unwrap();
/// assert_eq!(id.ns_str(), "JOB");
/// assert_eq!(emq_id::mint(b"job").unwrap_err().gate(), emq_id::Gate::Range);
/// ```
pub fn mint(ns: &[u8]) -> Result<Id> {
    // Check the namespace first, so a refused call does not consume a sequence number.
    crate::codec::encode(ns, 0)?;
    let snowflake = process_minter()?.minter().next()?;
    Id::new(ns, snowflake)
}

/// The system clock in Unix milliseconds (negative before 1970).
pub fn now_ms() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        // Seconds and milliseconds apart: cheaper than `as_millis`' u128.
        Ok(d) => d.as_secs() as i64 * 1000 + d.subsec_millis() as i64,
        Err(e) => -(e.duration().as_millis() as i64),
    }
}

fn fallback_node() -> u16 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let seed = (std::process::id() as u64) << 32 | nanos as u64;
    (crate::hash::hash32(seed) % (MAX_NODE as u32 + 1)) as u16
}
