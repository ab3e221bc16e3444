//! The clocks a minter reads: the system's wall clock in Unix milliseconds,
//! which stamps ids, and a monotonic one, which times leases (a wall clock
//! can be stepped back and forth; a lease's TTL runs on the server regardless).

#[cfg(not(all(target_arch = "wasm32", feature = "host")))]
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds on this process's monotonic clock (`Instant`, from the first
/// call): never stepped by NTP or an operator, so a lease's fence measured on
/// it cannot be stretched by a wall clock set back.
///
/// ```
/// let start = emq_id::monotonic_ms();
/// std::thread::sleep(std::time::Duration::from_millis(2));
/// assert!(emq_id::monotonic_ms() >= start + 2);
/// ```
pub fn monotonic_ms() -> u64 {
    // The host's clock has one origin for its whole process: a static here would be one per instance.
    #[cfg(all(target_arch = "wasm32", feature = "host"))]
    return crate::host::monotonic() / 1_000_000;
    #[cfg(not(all(target_arch = "wasm32", feature = "host")))]
    {
        static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        ORIGIN.get_or_init(std::time::Instant::now).elapsed().as_millis() as u64
    }
}

/// The system clock in Unix milliseconds (negative before 1970).
///
/// ```
/// assert!(emq_id::now_ms() > emq_id::EPOCH_MS as i64);
/// ```
pub fn now_ms() -> i64 {
    #[cfg(all(target_arch = "wasm32", feature = "host"))]
    return crate::host::wall_ns().div_euclid(1_000_000);
    #[cfg(not(all(target_arch = "wasm32", feature = "host")))]
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        // Seconds and milliseconds apart: cheaper than `as_millis`' u128.
        Ok(d) => d.as_secs() as i64 * 1000 + d.subsec_millis() as i64,
        Err(e) => -(e.duration().as_millis() as i64),
    }
}
