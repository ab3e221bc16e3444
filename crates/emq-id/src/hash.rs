//! `hash32`: placement of a snowflake onto a 32-bit ring.

/// The contract's 32-bit placement hash of a snowflake (the first half of
/// MurmurHash3's 64-bit finaliser, truncated). For spreading work, not for security.
///
/// ```
/// assert_eq!(emq_id::hash32(274557032793636864), 234878118);
/// ```
#[inline]
pub const fn hash32(snowflake: u64) -> u32 {
    let mut k = snowflake;
    k ^= k >> 33;
    k = k.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    k ^= k >> 33;
    k as u32
}
