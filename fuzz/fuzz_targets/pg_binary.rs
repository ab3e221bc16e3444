//! Any bytes as the unread rest of a PostgreSQL message: `Id::from_binary`
//! (what `branded_id_recv` calls) answers what the byte-by-byte reference
//! answers; an accepted id writes back the same eleven bytes; and two ids
//! sort alike in their binary and text forms.
#![no_main]

use emq_id::Id;
use emq_id_fuzz::{binary_ref, check_references};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: check_references(),
    |data: &[u8]| {
        let got = Id::from_binary(data).map(|id| (id.ns(), id.snowflake())).map_err(|e| e.gate());
        assert_eq!(got, binary_ref(data), "from_binary({data:?})");
        if let Ok((ns, value)) = got {
            let id = Id::new(&ns, value).expect("an accepted binary id has valid parts");
            assert_eq!(&id.to_binary()[..], &data[..emq_id::BINARY_LEN]);
            assert_eq!(Id::parse(&id.to_bytes()), Ok(id), "the text form reads back the same id");
        }
        // Two ids from one input: their binary forms sort as their texts do.
        let (a, b) = data.split_at(data.len() / 2);
        if let (Ok(x), Ok(y)) = (Id::from_binary(a), Id::from_binary(b)) {
            let binary = x.to_binary().cmp(&y.to_binary());
            assert_eq!(binary, x.to_bytes().cmp(&y.to_bytes()), "{x} and {y}");
            assert_eq!(binary, x.cmp(&y));
        }
    }
);
