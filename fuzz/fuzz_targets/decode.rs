//! Any bytes: `decode` answers what the byte-by-byte reference answers (the
//! same gate, or the same namespace and value); every accepted text encodes
//! back to itself; `is_valid`, `Id` and `compare` agree with `decode`.
#![no_main]

use emq_id_fuzz::{check_references, decode_ref};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: check_references(),
    |data: &[u8]| {
        let got = emq_id::decode(data).map_err(|e| e.gate());
        assert_eq!(got, decode_ref(data), "decode({data:?})");
        assert_eq!(emq_id::is_valid(data), got.is_ok());
        let id = emq_id::Id::parse(data).map_err(|e| e.gate());
        assert_eq!(id.map(|id| (id.ns(), id.snowflake())), got);
        if let Ok((ns, value)) = got {
            assert_eq!(&id.expect("parsed above").to_bytes()[..], data);
            assert_eq!(&emq_id::encode(&ns, value).expect("an accepted id encodes")[..], data);
            let mut out = [0u8; 14];
            emq_id::encode_into(&ns, value, &mut out).expect("an accepted id encodes");
            assert_eq!(&out[..], data);
        }
        // Two ids from one input: `compare` is decode's order, `a`'s gate first.
        let (a, b) = data.split_at(data.len() / 2);
        let expected = match (decode_ref(a), decode_ref(b)) {
            (Err(g), _) | (Ok(_), Err(g)) => Err(g),
            (Ok(x), Ok(y)) => Ok(x.cmp(&y)),
        };
        assert_eq!(emq_id::compare(a, b).map_err(|e| e.gate()), expected);
        if let Ok(order) = expected {
            assert_eq!(a.cmp(b), order, "byte order is numeric order");
        }
    }
);
