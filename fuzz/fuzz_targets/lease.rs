//! Node leases with arbitrary numbers: the reply parsers answer what
//! SPEC.md §5.2 says (a value or `range`/`node`, never a panic); a leased
//! minter starts exactly when the reference's rules allow it, and then,
//! through any sequence of mints, clock steps, renewals and a stop, every id
//! it mints is on its node, after the previous owner's mark, above the id
//! before it and at or below the mark it holds; a mint the rules allow is
//! never refused, and none is allowed after the fence or the stop.
//!
//! Input: two reply integers and a renewal reply (8 bytes each), an error
//! text (up to `\n`), the lease (a node, a previous mark, terms, the clock
//! and monotonic readings at the acquire), then operations of a byte each
//! with their operands.
#![no_main]

use emq_id::{Acquired, Gate, LeaseTerms, LeasedMinter, EPOCH_MS, EVERY_NODE_LEASED, MAX_NODE, MAX_TS};
use emq_id_fuzz::Input;
use libfuzzer_sys::fuzz_target;

/// The last unix ms of the contract's time.
const LAST_MS: u64 = EPOCH_MS + MAX_TS;
/// A wall clock of 2026, for readings near a realistic now.
const T: i64 = 1_769_526_697_641;

/// A wall-clock reading: raw, near `T`, or anywhere in the contract's time.
fn wall(input: &mut Input) -> i64 {
    match input.u8() % 3 {
        0 => input.i64(),
        1 => T + i64::from(input.u16() as i16) * 1_000 + i64::from(input.u16()),
        _ => (EPOCH_MS + input.u64() % (MAX_TS + 1)) as i64,
    }
}

/// Lease terms: raw numbers, or ones the rules accept.
fn terms(input: &mut Input) -> LeaseTerms {
    let (a, b) = (input.u64(), input.u64());
    if input.u8() & 1 == 0 {
        return LeaseTerms { ttl_ms: a, margin_ms: b };
    }
    let ttl_ms = 3 + a % 86_400_000;
    LeaseTerms { ttl_ms, margin_ms: 1 + b % (ttl_ms - ttl_ms.div_ceil(3)) }
}

fn terms_ok(t: LeaseTerms) -> bool {
    (3..=86_400_000).contains(&t.ttl_ms) && t.margin_ms >= 1 && t.margin_ms <= t.ttl_ms - t.ttl_ms.div_ceil(3)
}

/// What the test knows of the minter, kept from the rules alone.
struct Model {
    node: u16,
    floor: u64,
    window: u64,
    mark: u64,
    fence: u64,
    stopped: bool,
    last: Option<u64>,
}

impl Model {
    /// Mints at `(now, mono)` and checks the answer; whether an id was minted.
    fn mint(&mut self, m: &LeasedMinter, now: i64, mono: u64) -> bool {
        let high_water = m.high_water();
        let got = m.next_at(now, mono);
        // The rules allow this mint when the lease is live, the clock within
        // the contract's time and the next id's millisecond (the clock's, or
        // one past the last when its sequence is spent) within the mark.
        let ts_ok = now <= LAST_MS as i64;
        let next_ms_bound = (now.max(EPOCH_MS as i64) as u64).max(high_water + 1);
        let allowed = !self.stopped && mono < self.fence && ts_ok && next_ms_bound <= self.mark;
        match got {
            Ok(id) => {
                assert!(!self.stopped && mono < self.fence, "minted after the stop or past the fence");
                assert_eq!(emq_id::node(id), self.node);
                let ms = emq_id::unix_ms(id);
                assert!(ms <= self.mark, "id at {ms} past the mark {}", self.mark);
                assert!(ms >= self.floor, "id at {ms} before the lease's floor {}", self.floor);
                assert!(ms >= now.max(EPOCH_MS as i64) as u64, "id at {ms} before the clock {now}");
                assert!(self.last.is_none_or(|last| id > last), "ids rise");
                assert!(id <= emq_id::MAX_SNOWFLAKE);
                assert_eq!(m.high_water(), ms);
                self.last = Some(id);
                true
            }
            Err(e) => {
                assert!(!allowed, "a mint the rules allow was refused: {e:?} (now {now}, mono {mono})");
                assert!(matches!(e.gate(), Gate::Node | Gate::Range), "{e:?}");
                assert_eq!(m.high_water(), high_water, "a refusal leaves the state");
                false
            }
        }
    }

    fn renewed(&mut self, m: &LeasedMinter, sent: u64, mark: u64) {
        m.renewed(sent, mark);
        self.mark = self.mark.max(mark.min(LAST_MS));
        self.fence = self.fence.max(sent.saturating_add(self.window));
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);

    // The reply parsers on raw numbers and text.
    let (node, previous) = (input.i64(), input.i64());
    match emq_id::parse_acquire(node, previous) {
        Ok(a) => {
            assert!((0..=i64::from(MAX_NODE)).contains(&node) && i64::from(a.node) == node);
            match a.previous_mark {
                None => assert_eq!(previous, -1),
                Some(p) => assert!(previous >= 0 && p == previous as u64 && p <= LAST_MS),
            }
        }
        Err(e) => {
            assert_eq!(e.gate(), Gate::Range);
            let previous_ok = previous == -1 || (0..=LAST_MS as i64).contains(&previous);
            assert!(!(0..=i64::from(MAX_NODE)).contains(&node) || !previous_ok);
        }
    }
    let renewal = input.i64();
    match emq_id::parse_renewal(renewal) {
        Ok(()) => assert_eq!(renewal, 1),
        Err(e) => assert_eq!(e.gate(), if renewal == 0 { Gate::Node } else { Gate::Range }),
    }
    let text = String::from_utf8_lossy(input.line());
    let refusal = text == EVERY_NODE_LEASED || text.strip_prefix("ERR ") == Some(EVERY_NODE_LEASED);
    assert_eq!(emq_id::parse_acquire_error(&text).map(|e| e.gate()), refusal.then_some(Gate::Node));

    // A lease, hand-built from the input (its fields are public).
    let node = input.u16() % 1100;
    let previous_mark = match input.u8() % 3 {
        0 => None,
        1 => Some(input.u64()),
        _ => Some(wall(&mut input) as u64),
    };
    let terms = terms(&mut input);
    let now = wall(&mut input);
    let sent = u64::from(input.u16());
    let started = LeasedMinter::start(Acquired { node, previous_mark }, now, sent, terms);

    // The start rules, from SPEC.md: a clock of the contract's time, a node,
    // a mark of the contract's time, valid terms, and a lease that ends in time.
    let now_ok = (EPOCH_MS as i64..=LAST_MS as i64).contains(&now);
    let floor = (now.max(0) as u64).max(previous_mark.map_or(0, |p| p.saturating_add(1)));
    let allowed = now_ok
        && node <= MAX_NODE
        && previous_mark.is_none_or(|p| p <= LAST_MS)
        && terms_ok(terms)
        && floor + terms.ttl_ms <= LAST_MS;
    let m = match started {
        Ok(m) => m,
        Err(e) => {
            assert!(!allowed, "a lease the rules allow was refused: {e:?}");
            assert_eq!(e.gate(), Gate::Range);
            return;
        }
    };
    assert!(allowed, "a lease the rules refuse was started");
    assert_eq!((m.node(), m.terms()), (node, terms));
    let window = terms.ttl_ms - terms.margin_ms;
    let mut model = Model {
        node,
        floor,
        window,
        mark: floor + terms.ttl_ms,
        fence: sent.saturating_add(window),
        stopped: false,
        last: None,
    };
    assert_eq!(m.fence_ms(), model.fence);
    assert_eq!(m.high_water(), if floor == EPOCH_MS { EPOCH_MS } else { floor - 1 });

    // Operations: mints, clock steps (either way), renewals, a stop.
    let (mut now, mut mono) = (now, sent);
    let mut bursts = 4_500usize; // mints in bursts per input: one spent sequence at most
    for _ in 0..64 {
        if input.is_empty() {
            break;
        }
        match input.u8() % 8 {
            0 => {
                now = now.saturating_add(i64::from(input.u16() as i16));
                mono = mono.saturating_add(u64::from(input.u16()));
            }
            1 => {
                model.mint(&m, now, mono);
            }
            2 => {
                let (raw_now, raw_mono) = (input.i64(), input.u64());
                model.mint(&m, raw_now, raw_mono);
            }
            3 => {
                // A renewal as the runner sends it: the next mark, at the monotonic now.
                let mark = m.next_mark(now);
                assert!(mark >= model.mark && mark <= LAST_MS, "next_mark {mark} (held {})", model.mark);
                model.renewed(&m, mono, mark);
            }
            4 => {
                let (raw_sent, raw_mark) = (input.u64(), input.u64());
                model.renewed(&m, raw_sent, raw_mark);
            }
            5 => {
                let mark = m.next_mark(input.i64());
                assert!(mark >= model.mark && mark <= LAST_MS, "next_mark {mark} (held {})", model.mark);
            }
            6 => {
                m.stop();
                model.stopped = true;
                model.fence = 0;
            }
            _ => {
                // A burst in one millisecond: a few ids, or (marked 0xFF, rare, since
                // it costs a millisecond) 4,200, past the millisecond's 4,096 sequences.
                let n = match input.u8() {
                    0xFF => 4_200,
                    n => usize::from(n % 32),
                }
                .min(bursts);
                bursts -= n;
                // At one clock reading, a refusal lasts: the burst ends at the first.
                for _ in 0..n {
                    if !model.mint(&m, now, mono) {
                        break;
                    }
                }
            }
        }
        assert_eq!(m.fence_ms(), model.fence);
    }
});
