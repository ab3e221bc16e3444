//! The contract's facts by name, for bindings to hand to their hosts: every
//! binding exposes these tables (or reads its constants from them), so no
//! binding ever types a limit, a length or a gate list of its own.

use crate::{base62, codec, family, keyspace, lease, slot, snowflake, stream, CONTRACT};

/// The contract's numbers a host needs, by their name in this crate.
///
/// ```
/// let max_node = emq_id::NUMBERS.iter().find(|(name, _)| *name == "MAX_NODE").unwrap().1;
/// assert_eq!(max_node, u64::from(emq_id::MAX_NODE));
/// ```
pub const NUMBERS: &[(&str, u64)] = &[
    ("ID_LEN", codec::ID_LEN as u64),
    ("NS_LEN", codec::NS_LEN as u64),
    ("PAYLOAD_LEN", base62::PAYLOAD_LEN as u64),
    ("EPOCH_MS", snowflake::EPOCH_MS),
    ("MAX_NODE", snowflake::MAX_NODE as u64),
    ("MAX_SEQ", snowflake::MAX_SEQ as u64),
    ("MAX_TS", snowflake::MAX_TS),
    ("MAX_SNOWFLAKE", snowflake::MAX_SNOWFLAKE),
    ("SLOTS", slot::SLOTS as u64),
    ("MAX_QUEUE_LEN", keyspace::MAX_QUEUE_LEN as u64),
    ("MAX_NAME_LEN", family::MAX_NAME_LEN as u64),
    ("MAX_KEY_LEN", keyspace::MAX_KEY_LEN as u64),
    ("MAX_ENTRY_ID_LEN", stream::MAX_ENTRY_ID_LEN as u64),
    ("LEASE_NODES", lease::LEASE_NODES as u64),
    ("LEASE_TTL_MS", lease::LeaseTerms::DEFAULT.ttl_ms),
    ("LEASE_MARGIN_MS", lease::LeaseTerms::DEFAULT.margin_ms),
    ("LEASE_REPLICAS", lease::LEASE_REPLICAS as u64),
];

/// The contract's names a host needs, by their name in this crate.
///
/// ```
/// assert!(emq_id::TEXTS.contains(&("VERSION_KEY", "{emq}:version")));
/// ```
pub const TEXTS: &[(&str, &str)] = &[
    ("CONTRACT", CONTRACT),
    ("KEYSPACE", keyspace::KEYSPACE),
    ("VERSION_KEY", keyspace::VERSION_KEY),
    ("BUS_VERSION", keyspace::BUS_VERSION),
    ("LEASE_PROTOCOL", lease::LEASE_PROTOCOL),
    ("LEASE_KEY", lease::LEASE_KEY),
];

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_upper_snake_case() {
        let names: std::vec::Vec<&str> = NUMBERS.iter().map(|p| p.0).chain(TEXTS.iter().map(|p| p.0)).collect();
        for (i, a) in names.iter().enumerate() {
            assert!(a.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'), "{a}");
            assert!(!names[..i].contains(a), "{a} twice");
        }
    }
}
