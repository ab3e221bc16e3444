//! Any bytes as a key: `hashtag` is the span the cluster spec's reference
//! finds (a span of the key itself, not a copy), `crc16` the bit-by-bit
//! CRC16-XMODEM, `slot` the reference's slot.
#![no_main]

use emq_id_fuzz::{check_references, crc16_ref, hashtag_ref, slot_ref};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: check_references(),
    |key: &[u8]| {
        let tag = emq_id::hashtag(key);
        let span = hashtag_ref(key);
        assert_eq!(tag.as_ptr() as usize - key.as_ptr() as usize, span.start, "hashtag({key:?}) starts where the reference's does");
        assert_eq!(tag.len(), span.len(), "hashtag({key:?}) ends where the reference's does");
        assert_eq!(emq_id::crc16(key), crc16_ref(key), "crc16({key:?})");
        let slot = emq_id::slot(key);
        assert_eq!(slot, slot_ref(key), "slot({key:?})");
        assert!(slot < emq_id::SLOTS);
    }
);
