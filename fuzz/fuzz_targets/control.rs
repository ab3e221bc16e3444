//! The negative control of the fuzz runs, never fuzzed: on the input `oob` it
//! reads one byte past a heap buffer, on `panic` it panics. `cargo xtask
//! fuzz`'s smoke run feeds it both and requires AddressSanitizer's report and
//! a crash each, so a clean run of the other targets means the sanitizer and
//! the crash detection were live, not that they were off.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let buf = data.to_vec(); // an allocation of exactly the input's length
    if buf == b"oob" {
        // SAFETY: none: this read is one past the buffer on purpose, for AddressSanitizer to catch.
        let past = unsafe { buf.as_ptr().add(buf.len()).read_volatile() };
        std::hint::black_box(past);
    }
    if buf == b"panic" {
        panic!("the control target's planted panic");
    }
});
