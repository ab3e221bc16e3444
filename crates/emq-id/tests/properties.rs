//! Property tests of the core against naive references written here, not in the crate.

use emq_id::{decode, encode, hashtag, slot, step, Gate, Minter, MAX_SNOWFLAKE};
use proptest::prelude::*;

const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The contract's decode, spelled out as slowly and plainly as possible
/// (ranges written out on purpose: the reference shares no helper with the core).
#[allow(clippy::manual_is_ascii_check)]
fn naive_decode(text: &[u8]) -> Result<([u8; 3], u64), Gate> {
    if text.len() != 14 {
        return Err(Gate::Length);
    }
    if !text[..3].iter().all(|b| (b'A'..=b'Z').contains(b)) {
        return Err(Gate::Namespace);
    }
    let mut value: u128 = 0;
    for b in &text[3..] {
        let Some(d) = ALPHABET.iter().position(|a| a == b) else {
            return Err(Gate::Charset);
        };
        value = value * 62 + d as u128;
    }
    if value > (1u128 << 63) - 1 {
        return Err(Gate::Range);
    }
    Ok(([text[0], text[1], text[2]], value as u64))
}

/// CRC16-XMODEM one bit at a time.
fn naive_crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in data {
        for i in (0..8).rev() {
            let bit = (byte >> i) & 1 == 1;
            let top = crc & 0x8000 != 0;
            crc <<= 1;
            if bit != top {
                crc ^= 0x1021;
            }
        }
    }
    crc
}

fn naive_hashtag(key: &[u8]) -> &[u8] {
    let Some(open) = key.iter().position(|&b| b == b'{') else {
        return key;
    };
    match key[open + 1..].iter().position(|&b| b == b'}') {
        Some(0) | None => key,
        Some(len) => &key[open + 1..open + 1 + len],
    }
}

fn ns() -> impl Strategy<Value = [u8; 3]> {
    prop::array::uniform3(b'A'..=b'Z')
}

/// Bytes that look like ids often enough to reach every gate.
fn id_like() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..20),
        prop::collection::vec(prop::sample::select(b"AZaz09!{}\x00\xff".to_vec()), 14),
        (ns(), prop::collection::vec(prop::sample::select(ALPHABET.to_vec()), 11)).prop_map(|(n, p)| [
            n.as_slice(),
            &p
        ]
        .concat()),
    ]
}

/// Bytes at the edges of the classes the fast paths tell apart: each side of
/// `0-9`, `A-Z`, `a-z`; NUL and DEL; and bytes with bit 7 set, including the
/// alphabet's own bytes plus 0x80 (`0xB0` is `'0' | 0x80`, `0xC1` is `'A' | 0x80`).
const EDGES: &[u8] = b"/09:@AZ[`az{\x00\x7f\x80\xb0\xb9\xc1\xda\xe1\xfa\xff";

/// Payloads near the greatest one, `AzL8n0Y58m7`: the range gate's two compares
/// on either side of each edge.
fn near_max() -> impl Strategy<Value = Vec<u8>> {
    let head = prop::sample::select(vec![*b"AzK", *b"AzL", *b"AzM", *b"Az0", *b"B00", *b"zzz", *b"9zz"]);
    let tail = prop::collection::vec(prop::sample::select(b"0789mnyzAKLMYZ".to_vec()), 8);
    (ns(), head, tail).prop_map(|(n, h, t)| [n.as_slice(), &h, &t].concat())
}

#[test]
fn every_byte_at_every_position_of_edge_ids() {
    // Exhaustive where the fast paths could differ from the reference: one
    // byte replaced, in turn, at each of the 14 positions of ids at the
    // bottom, the top and in the middle of the range.
    for base in [b"JOB00000000000", b"ZZZAzL8n0Y58m7", b"AAAAzL8n0Y58m6", b"MQK0KHTOWnGLuC", b"JOBzzzzzzzzzzz"] {
        for at in 0..14 {
            for byte in 0..=255u8 {
                let mut text = *base;
                text[at] = byte;
                assert_eq!(decode(&text).map_err(|e| e.gate()), naive_decode(&text), "{:?}", text);
            }
        }
    }
}

/// The text of `(ns, s)` spelt one digit at a time: the reference for `encode`.
fn naive_encode(ns: &[u8; 3], mut s: u64) -> [u8; 14] {
    let mut text = [0u8; 14];
    text[..3].copy_from_slice(ns);
    for digit in text[3..].iter_mut().rev() {
        *digit = ALPHABET[(s % 62) as usize];
        s /= 62;
    }
    text
}

/// `hashtag`'s word search, exhaustively: braces at every pair of places in
/// keys up to 40 bytes (it reads 8 at a time), among fillers that include
/// each brace's neighbour in the borrow that can flag a byte falsely
/// (`|` = `}` ^ 1, `z` = `{` ^ 1), and again with every byte before the `{`
/// a `}` (which must not count). The CRC's own test is the next one.
#[test]
fn hashtag_and_slot_match_the_reference_for_braces_at_every_place() {
    for len in 0..=40 {
        for filler in [b'|', b'z', b'a', 0x00, 0xFF] {
            for open in 0..len {
                for close in 0..len {
                    for closes_before in [false, true] {
                        let mut key = vec![filler; len];
                        if closes_before {
                            key[..open].fill(b'}');
                        }
                        key[close] = b'}';
                        key[open] = b'{';
                        assert_eq!(hashtag(&key), naive_hashtag(&key), "{key:?}");
                        assert_eq!(slot(&key), naive_crc16(naive_hashtag(&key)) % 16384, "{key:?}");
                    }
                }
            }
        }
    }
}

/// The CRC of every length from 0 to 100, over bytes from a fixed sequence:
/// each length under 16 is its own arm of one round of lookups, and longer
/// ones end their blocks of eight with every possible remainder.
#[test]
fn crc16_matches_the_reference_at_every_length() {
    let bytes: Vec<u8> = (0..100u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    for start in 0..4 {
        for len in 0..=bytes.len() - start {
            let data = &bytes[start..start + len];
            assert_eq!(emq_id::crc16(data), naive_crc16(data), "{len} bytes from {start}");
        }
    }
}

#[test]
fn encode_is_exact_beside_every_digit_boundary_across_the_range() {
    // The encoder reads the last ten digits off a binary fraction whose
    // error grows with the snowflake. A value just below a turn-over
    // (`m·62^j − 1`, every digit below position `j` a 'z') is where an error
    // would carry, so: every such value and its neighbours for a thousand
    // `m` at each `j` (every power of 62 among them), under high parts from
    // zero to the top of the range, and the last million snowflakes below
    // 2^63. High parts are multiples of 62⁸; the first digit turns over at
    // 3844 and 38,440 of them.
    let highs = [0, 1, 61, 62, 3843, 3844, 38_439, 38_440, MAX_SNOWFLAKE / 62u64.pow(8)];
    let mut checked = 0u64;
    for j in 0..=10u32 {
        let step = 62u64.pow(j);
        for m in 1..=1000u64 {
            let Some(low) = m.checked_mul(step) else { break };
            for high in highs {
                let Some(base) = high.checked_mul(62u64.pow(8)).and_then(|h| h.checked_add(low)) else { continue };
                for s in [base - 1, base, base + 1].into_iter().filter(|&s| s <= MAX_SNOWFLAKE) {
                    assert_eq!(encode(b"JOB", s).unwrap(), naive_encode(b"JOB", s), "{s}");
                    checked += 1;
                }
            }
        }
    }
    for s in MAX_SNOWFLAKE - 1_000_000..=MAX_SNOWFLAKE {
        assert_eq!(encode(b"JOB", s).unwrap(), naive_encode(b"JOB", s), "{s}");
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
#[allow(clippy::manual_is_ascii_check)] // the reference spells the range out, as naive_decode does
fn is_namespace_agrees_with_the_reference_on_every_three_bytes() {
    // Every one of the 2^24 namespaces: the check reads all three bytes at once.
    for x in 0..1u32 << 24 {
        let [a, b, c, _] = x.to_le_bytes();
        let naive = [a, b, c].iter().all(|byte| (b'A'..=b'Z').contains(byte));
        assert_eq!(emq_id::is_namespace(&[a, b, c]), naive, "{:?}", [a, b, c]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100_000))]

    #[test]
    fn decode_matches_the_reference_on_edge_bytes(
        text in prop_oneof![prop::collection::vec(prop::sample::select(EDGES.to_vec()), 14), near_max()],
    ) {
        prop_assert_eq!(decode(&text).map_err(|e| e.gate()), naive_decode(&text));
    }

    #[test]
    fn roundtrip(ns in ns(), s in 0..=MAX_SNOWFLAKE) {
        let text = encode(&ns, s).unwrap();
        prop_assert_eq!(text, naive_encode(&ns, s));
        prop_assert_eq!(decode(&text).unwrap(), (ns, s));
        prop_assert_eq!(naive_decode(&text).unwrap(), (ns, s));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn decode_is_total_and_matches_the_reference(bytes in id_like()) {
        let ours = decode(&bytes).map_err(|e| e.gate());
        prop_assert_eq!(ours, naive_decode(&bytes));
    }

    #[test]
    fn byte_order_is_numeric_order(ns in ns(), a in 0..=MAX_SNOWFLAKE, b in 0..=MAX_SNOWFLAKE) {
        prop_assert_eq!(encode(&ns, a).unwrap().cmp(&encode(&ns, b).unwrap()), a.cmp(&b));
    }

    #[test]
    fn slot_matches_bitwise_crc(key in prop::collection::vec(prop_oneof![any::<u8>(), Just(b'{'), Just(b'}'), Just(b'|'), Just(b'z')], 0..300)) {
        prop_assert_eq!(hashtag(&key), naive_hashtag(&key));
        prop_assert_eq!(emq_id::crc16(&key), naive_crc16(&key));
        prop_assert_eq!(slot(&key), naive_crc16(naive_hashtag(&key)) % 16384);
    }

    #[test]
    fn minted_ids_increase_and_sort_as_text(
        node in 0u16..1024,
        clock in prop::collection::vec(1_704_067_200_000i64 - 5..1_704_067_200_000 + 40, 1..300),
    ) {
        // A clock jittering around one spot: repeats, goes back, bursts.
        let minter = Minter::new(node).unwrap();
        let ids: Vec<u64> = clock.iter().map(|&t| minter.next_at(t).unwrap()).collect();
        for w in ids.windows(2) {
            prop_assert!(w[0] < w[1]);
            prop_assert!(encode(b"JOB", w[0]).unwrap() < encode(b"JOB", w[1]).unwrap());
        }
        for &s in &ids {
            prop_assert_eq!(emq_id::node(s), node);
        }
    }

    #[test]
    fn the_step_never_goes_back(state in 0u64..(1 << 53), now in any::<i64>(), node in 0u16..1024) {
        match step(state, node, now) {
            Ok((next, s)) => {
                prop_assert!(next > state);
                prop_assert!(s <= MAX_SNOWFLAKE);
                prop_assert_eq!(emq_id::seq(s) as u64, next & 0xFFF);
                prop_assert_eq!(s >> 22, next >> 12);
            }
            Err(e) => prop_assert_eq!(e.gate(), Gate::Range),
        }
    }

    #[test]
    fn every_key_of_a_queue_shares_its_slot(
        queue in "[A-Za-z0-9_.:-]{1,128}",
        s in 0..=MAX_SNOWFLAKE,
    ) {
        let q = queue.as_bytes();
        let id = encode(b"JOB", s).unwrap();
        for key in [
            emq_id::queue_key(q, b"pending").unwrap(),
            emq_id::queue_key(q, b"active").unwrap(),
            emq_id::job_key(q, &id).unwrap(),
        ] {
            prop_assert_eq!(slot(key.as_bytes()), slot(q));
            prop_assert_eq!(hashtag(key.as_bytes()), q);
        }
    }

    #[test]
    fn queues_outside_the_grammar_are_refused(queue in prop::collection::vec(any::<u8>(), 0..200)) {
        let valid = !queue.is_empty() && queue.len() <= 128
            && queue.iter().all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(b));
        let built = emq_id::queue_key(&queue, b"pending");
        prop_assert_eq!(built.is_ok(), valid);
        if !valid {
            prop_assert_eq!(built.unwrap_err().gate(), Gate::Queue);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Every family: the key of any valid parameter shares the queue's slot and
    /// parses back to exactly its queue, family and parameter.
    #[test]
    fn every_family_key_parses_back_and_shares_the_slot(
        queue in "[A-Za-z0-9_.:-]{1,128}",
        name in "[A-Za-z0-9_.-]{1,128}",
        s in 0..=MAX_SNOWFLAKE,
        pick in 0usize..64,
    ) {
        let family = emq_id::Family::ALL[pick % emq_id::Family::ALL.len()];
        let id = String::from_utf8(encode(b"JOB", s).unwrap().to_vec()).unwrap();
        let param = match family.param() {
            emq_id::Param::None => None,
            emq_id::Param::Name => Some(name.as_str()),
            emq_id::Param::JobId => Some(id.as_str()),
        };
        let ty = format!("{}{}{}", family.head(), param.unwrap_or(""), family.tail());
        let key = emq_id::key(queue.as_bytes(), ty.as_bytes(), None).unwrap();
        prop_assert_eq!(key.as_str(), format!("emq:{{{queue}}}:{ty}"));
        prop_assert_eq!(slot(key.as_bytes()), slot(queue.as_bytes()));
        let back = emq_id::parse_key(key.as_bytes()).unwrap();
        prop_assert_eq!((back.queue, back.family, back.param), (queue.as_bytes(), family, param.map(str::as_bytes)));
    }

    /// Any bytes: parse_key never panics, and whatever it accepts, key builds back byte for byte.
    #[test]
    fn parse_key_accepts_only_what_key_builds(key in prop::collection::vec(prop_oneof![any::<u8>(), Just(b':'), Just(b'{'), Just(b'}')], 0..80),
                                             tail in "(pending|g:[a-z:]{0,3}:pending|job:[A-Za-z0-9:]{0,16}|stream:[a-z:]{0,4})") {
        for candidate in [key.clone(), [b"emq:{q}:".as_slice(), tail.as_bytes()].concat()] {
            if let Ok(p) = emq_id::parse_key(&candidate) {
                let ty = &candidate[5 + p.queue.len() + 2..];
                let rebuilt = emq_id::key(p.queue, ty, None).unwrap();
                prop_assert_eq!(rebuilt.as_bytes(), candidate.as_slice());
            }
        }
    }

    /// Stream entry ids: the order of ids of one namespace is the order of
    /// their entry ids (time, then tail, as Valkey compares them), and
    /// from_xadd_id inverts xadd_id.
    #[test]
    fn entry_ids_keep_the_order_and_invert(a in 0..=MAX_SNOWFLAKE, b in 0..=MAX_SNOWFLAKE) {
        let parts = |s: u64| {
            let text = encode(b"EVT", s).unwrap();
            let entry = emq_id::xadd_id(&text).unwrap();
            let (ms, tail) = entry.as_str().split_once('-').unwrap();
            prop_assert_eq!(emq_id::from_xadd_id(entry.as_str().as_bytes(), b"EVT").unwrap().to_bytes(), text);
            Ok((text, (ms.parse::<u64>().unwrap(), tail.parse::<u64>().unwrap())))
        };
        let (ta, ea) = parts(a)?;
        let (tb, eb) = parts(b)?;
        prop_assert_eq!(ta.cmp(&tb), ea.cmp(&eb));
    }
}
