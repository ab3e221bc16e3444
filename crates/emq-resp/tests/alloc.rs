//! `read_reply` allocates as bytes arrive, not as lengths are announced:
//! measured with a counting allocator (this test binary's own), per thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;

use emq_resp::{read_reply, Reply, MAX_ARRAY, MAX_BULK, MAX_DEPTH};

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grew(by: usize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get().saturating_add(by));
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

fn shrank(by: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(by)));
}

/// The system allocator, counting this thread's live bytes and their peak.
struct Counting;

// SAFETY: every call is passed to `System` unchanged; the counters are
// const-initialised thread-locals without destructors, so touching them
// neither allocates nor re-enters the allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which we pass on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: `ptr` came from `System` with this `layout` (every allocation goes through us to it).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        shrank(layout.size());
        grew(new_size);
        // SAFETY: as for `dealloc`; `new_size` is the caller's, under `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The most this thread held at once while reading `wire`, over what it held before.
fn peak_while_reading(wire: &[u8]) -> usize {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let reply = read_reply(&mut Cursor::new(wire));
    assert!(reply.is_err(), "every case here ends early: {reply:?}");
    PEAK.with(Cell::get).saturating_sub(before)
}

#[test]
fn announced_lengths_cost_nothing_until_their_bytes_arrive() {
    assert_eq!(std::mem::size_of::<Reply>(), 32, "the bound in read_reply's documentation assumes it");
    let bulk = [format!("${MAX_BULK}\r\n").into_bytes(), vec![b'x'; 1000]].concat();
    let array = [format!("*{MAX_ARRAY}\r\n").into_bytes(), b":1\r\n".repeat(1000)].concat();
    let deep = format!("*{MAX_ARRAY}\r\n").repeat(MAX_DEPTH).into_bytes();
    let deep_bulk = [format!("*{MAX_ARRAY}\r\n").repeat(MAX_DEPTH - 1), format!("${MAX_BULK}\r\nxyz")].concat();
    for (name, wire) in [
        ("a bulk of 512 MiB announced, 1,000 bytes sent", bulk),
        ("an array of 2^20 announced, 1,000 elements sent", array),
        ("32 nested arrays of 2^20 announced, none sent", deep),
        ("31 nested arrays and a bulk of 512 MiB announced, 3 bytes sent", deep_bulk.into_bytes()),
    ] {
        let peak = peak_while_reading(&wire);
        eprintln!("emq-resp: {name}: {} input bytes, peak {peak} bytes allocated", wire.len());
        assert!(peak < 256 * 1024, "{name}: {peak} bytes");
    }
}
