//! PostgreSQL's binary COPY format, written by hand for the tests that feed
//! the extension's binary input function (well-formed and malformed fields):
//! the format is a short header, length-prefixed fields and a trailer.

/// A binary COPY file of one row with one field holding `field`.
pub fn one_field(field: &[u8]) -> Vec<u8> {
    let mut f = b"PGCOPY\n\xff\r\n\0".to_vec();
    f.extend_from_slice(&0u32.to_be_bytes()); // flags
    f.extend_from_slice(&0u32.to_be_bytes()); // header extension length
    f.extend_from_slice(&1i16.to_be_bytes()); // one field
    f.extend_from_slice(&(field.len() as i32).to_be_bytes());
    f.extend_from_slice(field);
    f.extend_from_slice(&(-1i16).to_be_bytes()); // trailer
    f
}
