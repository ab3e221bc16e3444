//! The `branded_id` type: a branded id held as its parts, 12 bytes of fixed
//! storage (not pgrx's serialised varlena), ordered as its text.
//!
//! Its I/O, comparison and hash functions are plain version-1 C functions
//! (pgrx has no derive for a fixed-length type); the SQL that declares the
//! type, its operators, opclasses and casts is below.

use std::ffi::{c_char, CStr};

use pgrx::fcinfo::{pg_getarg, pg_getarg_datum_raw};
use pgrx::prelude::*;

use crate::error::{bad_binary, bad_text, refuse, snowflake};

/// The stored form: the namespace (3 bytes and a zero), then the snowflake as
/// two native `u32`s, so the type needs only 4-byte alignment: 12 bytes.
#[repr(C, align(4))]
#[derive(Clone, Copy)]
struct Stored {
    ns: [u8; 4],
    hi: u32,
    lo: u32,
}

impl Stored {
    fn new(ns: [u8; 3], snowflake: u64) -> Stored {
        Stored { ns: [ns[0], ns[1], ns[2], 0], hi: (snowflake >> 32) as u32, lo: snowflake as u32 }
    }
    fn snowflake(&self) -> u64 {
        (self.hi as u64) << 32 | self.lo as u64
    }
    fn ns(&self) -> [u8; 3] {
        [self.ns[0], self.ns[1], self.ns[2]]
    }
    /// The core's id (a stored value always holds one; a corrupt page is refused, never trusted).
    fn to_id(self) -> emq::Id {
        emq::Id::new(&self.ns(), self.snowflake()).unwrap_or_else(|e| refuse(e))
    }
    fn text(&self) -> [u8; emq::ID_LEN] {
        emq::encode(&self.ns(), self.snowflake()).unwrap_or_else(|e| refuse(e))
    }
    /// Namespace bytes, then snowflake: the byte order of the text.
    fn cmp(&self, other: &Stored) -> std::cmp::Ordering {
        (self.ns(), self.snowflake()).cmp(&(other.ns(), other.snowflake()))
    }
    fn into_datum(self) -> pg_sys::Datum {
        // SAFETY: palloc answers (or raises an ERROR, never NULL) size_of::<Stored>()
        // bytes in the current memory context, aligned for any type (MAXALIGN), so
        // one Stored may be written there; the datum is that pointer.
        unsafe {
            let p = pg_sys::palloc(size_of::<Stored>()).cast::<Stored>();
            p.write(self);
            pg_sys::Datum::from(p)
        }
    }
    /// # Safety
    /// `d` must be a `branded_id` datum, and the answer not be used after its
    /// memory context is reset.
    unsafe fn from_datum<'a>(d: pg_sys::Datum) -> &'a Stored {
        // SAFETY: a branded_id datum (the caller's promise) points at 12 bytes aligned to
        // 4 (INTERNALLENGTH 12, ALIGNMENT int4, STORAGE plain: never toasted) that
        // this type's input functions wrote as a Stored, which any bytes are.
        unsafe { &*d.cast_mut_ptr::<Stored>() }
    }
}

fn parse(text: &[u8]) -> Stored {
    let (ns, s) = emq::decode(text).unwrap_or_else(|e| bad_text(e));
    Stored::new(ns, s)
}

/// Declares a version-1 C function (its info record and its body). Each body
/// is an `unsafe fn` whose contract is the same: `fc` is the call info
/// PostgreSQL passes to the function of that name, with the arguments (count
/// and types) its SQL declaration below names; every function is STRICT, so
/// none is NULL.
macro_rules! v1 {
    ($finfo:ident, $name:ident, $body:path) => {
        #[no_mangle]
        pub extern "C" fn $finfo() -> *const pg_sys::Pg_finfo_record {
            const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
            &V1
        }

        #[pg_guard]
        #[no_mangle]
        pub unsafe extern "C-unwind" fn $name(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
            // SAFETY: PostgreSQL calls this C function only through the SQL declaration
            // naming it (below), with that declaration's arguments: the body's contract.
            unsafe { $body(fcinfo) }
        }
    };
}

/// The `branded_id` at argument `n`.
///
/// # Safety
/// `fc` is a call's info whose argument `n` is a non-NULL `branded_id`.
unsafe fn id<'a>(fc: pg_sys::FunctionCallInfo, n: usize) -> &'a Stored {
    // SAFETY: fc is a valid call info (pg_getarg_datum_raw checks n against nargs), and
    // its argument n is a branded_id datum, alive for the call (the caller's promise).
    unsafe { Stored::from_datum(pg_getarg_datum_raw(fc, n)) }
}

/// The two `branded_id` arguments of a comparison.
///
/// # Safety
/// `fc` is a call's info whose arguments 0 and 1 are non-NULL `branded_id`s.
unsafe fn pair<'a>(fc: pg_sys::FunctionCallInfo) -> (&'a Stored, &'a Stored) {
    // SAFETY: the caller's promise, for both arguments.
    unsafe { (id(fc, 0), id(fc, 1)) }
}

/// `branded_id_in(cstring)`.
unsafe fn emq_branded_id_in_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_in is a cstring (v1's contract): a pointer to
    // NUL-terminated bytes that live for the call.
    let text = unsafe { CStr::from_ptr(pg_getarg_datum_raw(fc, 0).cast_mut_ptr::<c_char>()) };
    parse(text.to_bytes()).into_datum()
}
v1!(pg_finfo_emq_branded_id_in, emq_branded_id_in, emq_branded_id_in_body);

/// `branded_id_out(branded_id)`.
unsafe fn emq_branded_id_out_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_out is a branded_id (v1's contract).
    let text = unsafe { id(fc, 0) }.text();
    // SAFETY: palloc answers ID_LEN + 1 writable bytes (or raises an ERROR): the id,
    // then the NUL that makes it a cstring.
    unsafe {
        let p = pg_sys::palloc(emq::ID_LEN + 1).cast::<u8>();
        std::ptr::copy_nonoverlapping(text.as_ptr(), p, emq::ID_LEN);
        *p.add(emq::ID_LEN) = 0;
        pg_sys::Datum::from(p)
    }
}
v1!(pg_finfo_emq_branded_id_out, emq_branded_id_out, emq_branded_id_out_body);

/// `branded_id_recv(internal)`. Binary form (COPY BINARY, binary protocol): 3
/// namespace bytes, then the snowflake as 8 bytes big-endian. Validated like
/// text input; refusals are `invalid_binary_representation`.
unsafe fn emq_branded_id_recv_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of a type's receive function is the message's StringInfo (v1's
    // contract), which PostgreSQL owns for the call and expects the cursor moved in.
    let buf = unsafe { &mut *pg_getarg_datum_raw(fc, 0).cast_mut_ptr::<pg_sys::StringInfoData>() };
    let rest = usize::try_from(buf.len - buf.cursor).unwrap_or(0);
    let wire = if rest == 0 || buf.data.is_null() {
        &[][..]
    } else {
        // SAFETY: a StringInfo's data holds len bytes and 0 <= cursor <= len, so `rest`
        // bytes from the cursor are initialised and live while the message is read.
        unsafe { std::slice::from_raw_parts(buf.data.add(buf.cursor as usize).cast::<u8>(), rest) }
    };
    let id = emq::Id::from_binary(wire).unwrap_or_else(|e| bad_binary(e));
    buf.cursor += emq::BINARY_LEN as i32;
    Stored::new(id.ns(), id.snowflake()).into_datum()
}
v1!(pg_finfo_emq_branded_id_recv, emq_branded_id_recv, emq_branded_id_recv_body);

/// `branded_id_send(branded_id)`.
unsafe fn emq_branded_id_send_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_send is a branded_id (v1's contract).
    let id = unsafe { id(fc, 0) };
    let body = id.to_id().to_binary();
    // SAFETY: palloc answers 4 + BINARY_LEN writable bytes, aligned for the 4-byte
    // varlena header (or raises an ERROR); the header gives that size, then the body.
    unsafe {
        let p = pg_sys::palloc(4 + body.len()).cast::<u8>();
        pgrx::set_varsize_4b(p.cast(), (4 + body.len()) as i32);
        std::ptr::copy_nonoverlapping(body.as_ptr(), p.add(4), body.len());
        pg_sys::Datum::from(p)
    }
}
v1!(pg_finfo_emq_branded_id_send, emq_branded_id_send, emq_branded_id_send_body);

/// `branded_id_cmp(branded_id, branded_id)`.
unsafe fn emq_branded_id_cmp_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: both arguments of branded_id_cmp are branded_ids (v1's contract).
    let (a, b) = unsafe { pair(fc) };
    pg_sys::Datum::from(a.cmp(b) as i32)
}
v1!(pg_finfo_emq_branded_id_cmp, emq_branded_id_cmp, emq_branded_id_cmp_body);

/// The comparison operators' functions: two `branded_id`s, a bool.
///
/// # Safety
/// `fc` is a call's info whose arguments 0 and 1 are non-NULL `branded_id`s.
unsafe fn compare(fc: pg_sys::FunctionCallInfo, test: fn(std::cmp::Ordering) -> bool) -> pg_sys::Datum {
    // SAFETY: the caller's promise.
    let (a, b) = unsafe { pair(fc) };
    pg_sys::Datum::from(test(a.cmp(b)))
}
/// Declares the body of a comparison operator's function (two `branded_id`s: v1's contract).
macro_rules! comparison {
    ($body:ident, $test:expr) => {
        unsafe fn $body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
            // SAFETY: both arguments of the operator's function are branded_ids (v1's contract).
            unsafe { compare(fc, $test) }
        }
    };
}
comparison!(lt, |o| o.is_lt());
comparison!(le, |o| o.is_le());
comparison!(eq, |o| o.is_eq());
comparison!(ne, |o| o.is_ne());
comparison!(ge, |o| o.is_ge());
comparison!(gt, |o| o.is_gt());
v1!(pg_finfo_emq_branded_id_lt, emq_branded_id_lt, lt);
v1!(pg_finfo_emq_branded_id_le, emq_branded_id_le, le);
v1!(pg_finfo_emq_branded_id_eq, emq_branded_id_eq, eq);
v1!(pg_finfo_emq_branded_id_ne, emq_branded_id_ne, ne);
v1!(pg_finfo_emq_branded_id_ge, emq_branded_id_ge, ge);
v1!(pg_finfo_emq_branded_id_gt, emq_branded_id_gt, gt);

/// `branded_id_hash(branded_id)`: the hash opclass, the contract's `hash32` of the snowflake.
unsafe fn emq_branded_id_hash_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_hash is a branded_id (v1's contract).
    let id = unsafe { id(fc, 0) };
    pg_sys::Datum::from(emq::hash32(id.snowflake()) as i32)
}
v1!(pg_finfo_emq_branded_id_hash, emq_branded_id_hash, emq_branded_id_hash_body);

/// `branded_id_hash_extended(branded_id, int8)`: ignores its seed and answers
/// `hash32` zero-extended, as the contract says: placement must be the same everywhere.
unsafe fn emq_branded_id_hash_extended_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_hash_extended is a branded_id (v1's contract).
    let id = unsafe { id(fc, 0) };
    pg_sys::Datum::from(emq::hash32(id.snowflake()) as i64)
}
v1!(pg_finfo_emq_branded_id_hash_extended, emq_branded_id_hash_extended, emq_branded_id_hash_extended_body);

/// `branded_id(ns text, snowflake int8)`.
unsafe fn emq_branded_id_make_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id(text, int8) is a text, read as &str (v1's contract).
    let ns: &str = unsafe { pg_getarg(fc, 0) }.unwrap_or("");
    // SAFETY: argument 1 is an int8.
    let s = snowflake(unsafe { pg_getarg::<i64>(fc, 1) }.unwrap_or(-1));
    let id = emq::Id::new(ns.as_bytes(), s).unwrap_or_else(|e| refuse(e));
    Stored::new(id.ns(), id.snowflake()).into_datum()
}
v1!(pg_finfo_emq_branded_id_make, emq_branded_id_make, emq_branded_id_make_body);

/// `emq_snowflake(branded_id)`.
unsafe fn emq_branded_id_snowflake_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of emq_snowflake(branded_id) is a branded_id (v1's contract).
    pg_sys::Datum::from(unsafe { id(fc, 0) }.snowflake() as i64)
}
v1!(pg_finfo_emq_branded_id_snowflake, emq_branded_id_snowflake, emq_branded_id_snowflake_body);

/// `emq_ns(branded_id)`.
unsafe fn emq_branded_id_ns_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of emq_ns(branded_id) is a branded_id (v1's contract).
    let ns = unsafe { id(fc, 0) }.ns();
    String::from_utf8_lossy(&ns).into_owned().into_datum().unwrap()
}
v1!(pg_finfo_emq_branded_id_ns, emq_branded_id_ns, emq_branded_id_ns_body);

/// `branded_id_to_text(branded_id)`.
unsafe fn emq_branded_id_to_text_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_to_text is a branded_id (v1's contract).
    let text = unsafe { id(fc, 0) }.text();
    String::from_utf8_lossy(&text).into_owned().into_datum().unwrap()
}
v1!(pg_finfo_emq_branded_id_to_text, emq_branded_id_to_text, emq_branded_id_to_text_body);

/// `branded_id_from_text(text)`.
unsafe fn emq_branded_id_from_text_body(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: argument 0 of branded_id_from_text is a text, read as &str (v1's contract).
    let text: &str = unsafe { pg_getarg(fc, 0) }.unwrap_or("");
    parse(text.as_bytes()).into_datum()
}
v1!(pg_finfo_emq_branded_id_from_text, emq_branded_id_from_text, emq_branded_id_from_text_body);

extension_sql!(
    r#"
CREATE TYPE branded_id;
CREATE FUNCTION branded_id_in(cstring) RETURNS branded_id
    AS 'MODULE_PATHNAME', 'emq_branded_id_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_in(cstring) IS 'The input function of branded_id: an id from its text. Errors (22P02): length, namespace, charset, range.';
CREATE FUNCTION branded_id_out(branded_id) RETURNS cstring
    AS 'MODULE_PATHNAME', 'emq_branded_id_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_out(branded_id) IS 'The output function of branded_id: its text, 14 characters.';
CREATE FUNCTION branded_id_recv(internal) RETURNS branded_id
    AS 'MODULE_PATHNAME', 'emq_branded_id_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_recv(internal) IS 'The binary input function of branded_id (COPY BINARY, the binary protocol): 3 namespace bytes, then the snowflake as 8 bytes big-endian. Errors (22P03): length (fewer than 11 bytes), range (a namespace not three letters A-Z, or a snowflake of 2^63 or more).';
CREATE FUNCTION branded_id_send(branded_id) RETURNS bytea
    AS 'MODULE_PATHNAME', 'emq_branded_id_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_send(branded_id) IS 'The binary output function of branded_id: 3 namespace bytes, then the snowflake as 8 bytes big-endian.';
CREATE TYPE branded_id (
    INPUT = branded_id_in, OUTPUT = branded_id_out,
    RECEIVE = branded_id_recv, SEND = branded_id_send,
    INTERNALLENGTH = 12, ALIGNMENT = int4, STORAGE = plain
);
COMMENT ON TYPE branded_id IS 'An EchoMQ branded id (namespace + snowflake): 12 bytes, ordered as its text';

CREATE FUNCTION branded_id_cmp(branded_id, branded_id) RETURNS int4
    AS 'MODULE_PATHNAME', 'emq_branded_id_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_cmp(branded_id, branded_id) IS 'The btree order of branded_id: -1, 0 or 1 as a sorts before, with or after b (by namespace, then snowflake: the byte order of their text).';
CREATE FUNCTION branded_id_lt(branded_id, branded_id) RETURNS bool
    AS 'MODULE_PATHNAME', 'emq_branded_id_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_lt(branded_id, branded_id) IS 'The operator a < b on branded_id: whether a sorts before b, as their text does.';
CREATE FUNCTION branded_id_le(branded_id, branded_id) RETURNS bool
    AS 'MODULE_PATHNAME', 'emq_branded_id_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_le(branded_id, branded_id) IS 'The operator a <= b on branded_id: whether a sorts before b or equals it, as their text does.';
CREATE FUNCTION branded_id_eq(branded_id, branded_id) RETURNS bool
    AS 'MODULE_PATHNAME', 'emq_branded_id_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_eq(branded_id, branded_id) IS 'The operator a = b on branded_id: whether the two ids are the same.';
CREATE FUNCTION branded_id_ne(branded_id, branded_id) RETURNS bool
    AS 'MODULE_PATHNAME', 'emq_branded_id_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_ne(branded_id, branded_id) IS 'The operator a <> b on branded_id: whether the two ids differ.';
CREATE FUNCTION branded_id_ge(branded_id, branded_id) RETURNS bool
    AS 'MODULE_PATHNAME', 'emq_branded_id_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_ge(branded_id, branded_id) IS 'The operator a >= b on branded_id: whether a sorts after b or equals it, as their text does.';
CREATE FUNCTION branded_id_gt(branded_id, branded_id) RETURNS bool
    AS 'MODULE_PATHNAME', 'emq_branded_id_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_gt(branded_id, branded_id) IS 'The operator a > b on branded_id: whether a sorts after b, as their text does.';

CREATE OPERATOR < (LEFTARG = branded_id, RIGHTARG = branded_id, FUNCTION = branded_id_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR < (branded_id, branded_id) IS 'Whether id a sorts before id b (the byte order of their text).';
CREATE OPERATOR <= (LEFTARG = branded_id, RIGHTARG = branded_id, FUNCTION = branded_id_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR <= (branded_id, branded_id) IS 'Whether id a sorts before or equals id b (the byte order of their text).';
CREATE OPERATOR = (LEFTARG = branded_id, RIGHTARG = branded_id, FUNCTION = branded_id_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
COMMENT ON OPERATOR = (branded_id, branded_id) IS 'Whether id a equals id b.';
CREATE OPERATOR <> (LEFTARG = branded_id, RIGHTARG = branded_id, FUNCTION = branded_id_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (branded_id, branded_id) IS 'Whether id a differs from id b.';
CREATE OPERATOR >= (LEFTARG = branded_id, RIGHTARG = branded_id, FUNCTION = branded_id_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR >= (branded_id, branded_id) IS 'Whether id a sorts after or equals id b (the byte order of their text).';
CREATE OPERATOR > (LEFTARG = branded_id, RIGHTARG = branded_id, FUNCTION = branded_id_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR > (branded_id, branded_id) IS 'Whether id a sorts after id b (the byte order of their text).';

CREATE OPERATOR CLASS branded_id_ops DEFAULT FOR TYPE branded_id USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 branded_id_cmp(branded_id, branded_id);
COMMENT ON OPERATOR CLASS branded_id_ops USING btree IS 'The default btree order of branded_id: by namespace, then snowflake, the byte order of its text.';
COMMENT ON OPERATOR FAMILY branded_id_ops USING btree IS 'The btree operators of branded_id (the class branded_id_ops).';

CREATE FUNCTION branded_id_hash(branded_id) RETURNS int4
    AS 'MODULE_PATHNAME', 'emq_branded_id_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_hash(branded_id) IS 'The hash opclass of branded_id: the placement hash (emq_hash32) of its snowflake, as int4.';
CREATE FUNCTION branded_id_hash_extended(branded_id, int8) RETURNS int8
    AS 'MODULE_PATHNAME', 'emq_branded_id_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_hash_extended(branded_id, int8) IS 'The extended hash of branded_id: the placement hash (emq_hash32) of its snowflake; the seed is ignored, so placement is the same everywhere.';
CREATE OPERATOR CLASS branded_id_hash_ops DEFAULT FOR TYPE branded_id USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 branded_id_hash(branded_id),
    FUNCTION 2 branded_id_hash_extended(branded_id, int8);
COMMENT ON OPERATOR CLASS branded_id_hash_ops USING hash IS 'The default hash of branded_id: the placement hash of its snowflake.';
COMMENT ON OPERATOR FAMILY branded_id_hash_ops USING hash IS 'The hash operators of branded_id (the class branded_id_hash_ops).';

CREATE FUNCTION branded_id(ns text, snowflake int8) RETURNS branded_id
    AS 'MODULE_PATHNAME', 'emq_branded_id_make' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id(text, int8) IS 'The branded_id of namespace ns and a snowflake. Errors: range (ns not three letters A-Z, or a negative snowflake).';
CREATE FUNCTION emq_snowflake(branded_id) RETURNS int8
    AS 'MODULE_PATHNAME', 'emq_branded_id_snowflake' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION emq_snowflake(branded_id) IS 'The snowflake of a branded_id.';
CREATE FUNCTION emq_ns(branded_id) RETURNS text
    AS 'MODULE_PATHNAME', 'emq_branded_id_ns' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION emq_ns(branded_id) IS 'The namespace (three letters A-Z) of a branded_id.';
CREATE FUNCTION branded_id_to_text(branded_id) RETURNS text
    AS 'MODULE_PATHNAME', 'emq_branded_id_to_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_to_text(branded_id) IS 'The text of a branded_id: the cast from branded_id to text.';
CREATE FUNCTION branded_id_from_text(text) RETURNS branded_id
    AS 'MODULE_PATHNAME', 'emq_branded_id_from_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION branded_id_from_text(text) IS 'The branded_id of a text id: the cast from text to branded_id. Errors (22P02): length, namespace, charset, range.';
CREATE CAST (branded_id AS text) WITH FUNCTION branded_id_to_text(branded_id) AS ASSIGNMENT;
COMMENT ON CAST (branded_id AS text) IS 'A branded_id as its text; implicit in assignment.';
CREATE CAST (text AS branded_id) WITH FUNCTION branded_id_from_text(text);
COMMENT ON CAST (text AS branded_id) IS 'A text id as a branded_id. Errors (22P02): length, namespace, charset, range.';

"#,
    name = "branded_id_type",
);

// Accessors written in SQL over the scalar functions, so they follow them.
extension_sql!(
    r#"
CREATE FUNCTION emq_time(branded_id) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT emq_time(emq_snowflake($1)) $$;
COMMENT ON FUNCTION emq_time(branded_id) IS 'The instant at which the id was minted.';
CREATE FUNCTION emq_node(branded_id) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT emq_node(emq_snowflake($1)) $$;
COMMENT ON FUNCTION emq_node(branded_id) IS 'The node (0-1023) that minted the id.';
CREATE FUNCTION emq_seq(branded_id) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT emq_seq(emq_snowflake($1)) $$;
COMMENT ON FUNCTION emq_seq(branded_id) IS 'The sequence (0-4095) of the id within its millisecond.';
CREATE FUNCTION emq_hash32(branded_id) RETURNS int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT emq_hash32(emq_snowflake($1)) $$;
COMMENT ON FUNCTION emq_hash32(branded_id) IS 'The placement hash of the id''s snowflake, in [0, 2^32), the same in every runtime.';

CREATE FUNCTION emq_mint_id(ns text) RETURNS branded_id
    LANGUAGE sql VOLATILE STRICT PARALLEL RESTRICTED AS $$ SELECT branded_id_from_text(emq_mint($1)) $$;
COMMENT ON FUNCTION emq_mint_id(text) IS 'A new branded_id of namespace ns: emq_mint as the type. Errors: as emq_mint (range, node, 55000).';
"#,
    name = "branded_id_accessors",
    requires =
        ["branded_id_type", scalar::emq_time, scalar::emq_node, scalar::emq_seq, scalar::emq_hash32, mint::emq_mint,],
);
