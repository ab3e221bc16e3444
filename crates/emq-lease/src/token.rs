//! Randomness for lease tokens and first nodes, from std alone: each
//! `RandomState` is seeded by the OS's random source, so hashing a counter
//! with a fresh one gives 64 unpredictable bits. A token only has to differ
//! from every other live owner's; no secret rests on it.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.finish()
}

/// A fresh owner token: 128 random bits in hex.
pub fn fresh() -> String {
    format!("{:016x}{:016x}", random_u64(), random_u64())
}

/// A random number below `n` (n > 0; the modulo bias is immaterial for a first node to try).
pub fn below(n: u64) -> u64 {
    random_u64() % n
}
