//! Racing minters: no duplicate across threads, and each thread's ids increase.

use std::sync::Arc;

use emq_id::Minter;

const THREADS: usize = 2;
const PER_THREAD: usize = 1_000_000;

fn race(clock: fn(usize) -> i64) {
    let minter = Arc::new(Minter::new(1023).unwrap());
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let minter = Arc::clone(&minter);
            std::thread::spawn(move || (0..PER_THREAD).map(|i| minter.next_at(clock(i)).unwrap()).collect::<Vec<u64>>())
        })
        .collect();
    let mut all = Vec::with_capacity(THREADS * PER_THREAD);
    for h in handles {
        let ids = h.join().unwrap();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "a thread's ids must increase");
        all.extend(ids);
    }
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), THREADS * PER_THREAD, "no id may be minted twice");
}

#[test]
fn a_frozen_clock_forces_bursts_past_4096_per_millisecond() {
    race(|_| 1_769_526_697_641);
}

#[test]
fn a_clock_that_jumps_back_and_forth() {
    race(|i| 1_769_526_697_641 + ((i * 7919) % 13) as i64 - 6);
}

#[test]
fn the_wall_clock() {
    let minter = Arc::new(Minter::new(0).unwrap());
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let minter = Arc::clone(&minter);
            std::thread::spawn(move || (0..200_000).map(|_| minter.next().unwrap()).collect::<Vec<u64>>())
        })
        .collect();
    let mut all: Vec<u64> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n);
}
