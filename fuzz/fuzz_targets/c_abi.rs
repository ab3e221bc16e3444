//! The C entry points with lengths, buffers and NULLs taken from the input:
//! each answers a status (never a crash, never a read or write outside the
//! caller's buffers, which AddressSanitizer watches: every buffer is its own
//! allocation of exactly its length), the status and outputs are the core's
//! answer translated, and nothing is written on a refusal (but the needed
//! length, where the ABI documents it, and a batch's items before the one
//! refused, with their count).
//!
//! Input: a selector byte (which entry point), a flags byte (which pointers
//! are NULL: bit 0 the first input, 1 the second, 2 the third, 3 the output,
//! 4 the length output), two bytes of output capacity, then the arguments
//! (text arguments split at `\n`). A NULL input keeps its length, so NULL
//! arrives with zero and with non-zero lengths: the ABI reads NULL with
//! length 0 as empty and refuses it otherwise (`EMQ_ERR_NULL`).
#![no_main]

use std::ffi::{c_char, c_int};
use std::ptr::{null, null_mut};

use emq_id_fuzz::Input;
use emqid::keyspace::emq_parsed_key;
use emqid::status::branded_status::{self, *};
use libfuzzer_sys::fuzz_target;

const SENTINEL: u8 = 0xA5;

/// An input buffer: the bytes in an allocation of exactly their length, or NULL.
struct Arg {
    bytes: Vec<u8>,
    null: bool,
}

impl Arg {
    fn new(bytes: &[u8], null: bool) -> Arg {
        Arg { bytes: bytes.to_vec(), null }
    }

    fn ptr(&self) -> *const u8 {
        if self.null {
            null()
        } else {
            self.bytes.as_ptr()
        }
    }

    fn cptr(&self) -> *const c_char {
        self.ptr().cast()
    }

    fn len(&self) -> usize {
        self.bytes.len()
    }

    /// What the ABI reads at `(ptr, len)`: NULL is the empty input only with length 0.
    fn read(&self) -> Result<&[u8], branded_status> {
        match (self.null, self.bytes.is_empty()) {
            (true, false) => Err(EMQ_ERR_NULL),
            (true, true) => Ok(&[]),
            (false, _) => Ok(&self.bytes),
        }
    }
}

/// A typed output in its own allocation, holding a sentinel until written, or NULL.
struct Out<T> {
    value: Box<T>,
    null: bool,
}

impl<T: Copy + PartialEq + std::fmt::Debug> Out<T> {
    fn new(sentinel: T, null: bool) -> Out<T> {
        Out { value: Box::new(sentinel), null }
    }

    fn ptr(&mut self) -> *mut T {
        if self.null {
            null_mut()
        } else {
            &mut *self.value
        }
    }

    fn get(&self) -> T {
        *self.value
    }
}

/// A caller's output buffer of `cap` bytes (its own allocation, sentinel-filled), or NULL.
struct OutBuf {
    buf: Vec<u8>,
    null: bool,
}

impl OutBuf {
    fn new(cap: usize, null: bool) -> OutBuf {
        OutBuf { buf: vec![SENTINEL; cap], null }
    }

    fn ptr(&mut self) -> *mut u8 {
        if self.null {
            null_mut()
        } else {
            self.buf.as_mut_ptr()
        }
    }

    fn cap(&self) -> usize {
        self.buf.len()
    }

    fn untouched(&self) -> bool {
        self.buf.iter().all(|&b| b == SENTINEL)
    }
}

fn status_of(e: emq_id::Error) -> branded_status {
    branded_status::from(e.gate())
}

/// Checks an entry point that writes `(out, cap, len_out)` as `emq_key` does:
/// a NULL `len_out` is `EMQ_ERR_NULL` with nothing written; else the needed
/// length is written, `EMQ_ERR_BUFFER` when `cap` is short, `EMQ_ERR_NULL`
/// for a NULL `out`, else the bytes. A refusal before that writes nothing.
fn check_written(
    what: &str,
    status: branded_status,
    expected: Result<&[u8], branded_status>,
    out: &OutBuf,
    len_out: &Out<usize>,
) {
    let bytes = match expected {
        Err(refusal) => {
            assert_eq!(status, refusal, "{what}");
            assert!(out.untouched() && len_out.get() == usize::MAX, "{what}: a refusal writes nothing");
            return;
        }
        Ok(bytes) => bytes,
    };
    if len_out.null {
        assert_eq!(status, EMQ_ERR_NULL, "{what}: NULL len_out");
        assert!(out.untouched(), "{what}: nothing written");
        return;
    }
    assert_eq!(len_out.get(), bytes.len(), "{what}: the length written");
    if bytes.len() > out.cap() {
        assert_eq!(status, EMQ_ERR_BUFFER, "{what}: cap {} < {}", out.cap(), bytes.len());
        assert!(out.untouched(), "{what}: a short buffer is not written");
    } else if out.null {
        assert_eq!(status, EMQ_ERR_NULL, "{what}: NULL out");
    } else {
        assert_eq!(status, BRANDED_OK, "{what}");
        assert_eq!(&out.buf[..bytes.len()], bytes, "{what}: the bytes written");
        assert!(out.buf[bytes.len()..].iter().all(|&b| b == SENTINEL), "{what}: nothing past the length");
    }
}

/// Checks a batch call that writes `done` items of `outputs` and stops at the
/// first refused (`emq_decode_many`, `emq_encode_many`), against the core's
/// answer per item (`answers`; `Err` when the call must refuse before any
/// item: a NULL, or a batch of none, which is `Ok` with nothing written).
fn check_batch<T: PartialEq + std::fmt::Debug + Copy>(
    what: &str,
    status: branded_status,
    done: &Out<usize>,
    count: usize,
    answers: Result<Vec<Result<T, branded_status>>, branded_status>,
    outputs: &[T],
    untouched: T,
) {
    if done.null {
        assert_eq!(status, EMQ_ERR_NULL, "{what}: a NULL count");
        assert!(outputs.iter().all(|o| *o == untouched), "{what}: written with a NULL count");
        return;
    }
    let answers = match answers {
        _ if count == 0 => vec![],
        Err(refusal) => {
            assert_eq!((status, done.get()), (refusal, 0), "{what}: refused before any item");
            assert!(outputs.iter().all(|o| *o == untouched), "{what}: written on a refusal");
            return;
        }
        Ok(answers) => answers,
    };
    let refused = answers.iter().position(Result::is_err).unwrap_or(answers.len());
    let want = answers.get(refused).map_or(BRANDED_OK, |a| a.err().expect("the first refused"));
    assert_eq!((status, done.get()), (want, refused), "{what}: the status and count");
    for (i, output) in outputs.iter().enumerate() {
        match answers.get(i) {
            Some(Ok(value)) if i < refused => assert_eq!(output, value, "{what}: item {i}"),
            _ => assert_eq!(*output, untouched, "{what}: item {i} written after the refusal"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let selector = input.u8();
    let flags = input.u8();
    let is_null = |bit: u8| flags & (1 << bit) != 0;
    let cap = usize::from(input.u16()) % 320;

    match selector % 16 {
        // branded_decode: the id's gates, then NULL outputs; outputs only on OK.
        0 => {
            let id = Arg::new(input.rest(), is_null(0));
            let (mut ns, mut sf) = (Out::new([SENTINEL as c_char; 3], is_null(3)), Out::new(u64::MAX, is_null(4)));
            // SAFETY: `id` is readable for its length; the outputs are NULL or writable.
            let status = unsafe { emqid::codec::branded_decode(id.cptr(), id.len(), ns.ptr().cast(), sf.ptr()) };
            let expected = id.read().and_then(|t| emq_id::decode(t).map_err(status_of));
            match expected {
                Ok(_) if ns.null || sf.null => assert_eq!(status, EMQ_ERR_NULL),
                Ok((want_ns, want_sf)) => {
                    assert_eq!(status, BRANDED_OK);
                    assert_eq!(ns.get().map(|c| c as u8), want_ns);
                    assert_eq!(sf.get(), want_sf);
                }
                Err(refusal) => assert_eq!(status, refusal),
            }
            if status != BRANDED_OK {
                assert_eq!((ns.get(), sf.get()), ([SENTINEL as c_char; 3], u64::MAX), "written on a refusal");
            }
        }
        // emq_parse_i64: the snowflake or the negated status.
        1 => {
            let id = Arg::new(input.rest(), is_null(0));
            // SAFETY: `id` is readable for its length.
            let got = unsafe { emqid::codec::emq_parse_i64(id.cptr(), id.len()) };
            let expected = id.read().and_then(|t| emq_id::decode(t).map_err(status_of));
            assert_eq!(got, expected.map_or_else(|s| -(s as i64), |(_, sf)| sf as i64));
        }
        // emq_is_valid: 1 exactly when decode accepts.
        2 => {
            let id = Arg::new(input.rest(), is_null(0));
            // SAFETY: `id` is readable for its length.
            let got = unsafe { emqid::contract::emq_is_valid(id.cptr(), id.len()) };
            let valid = id.read().map(emq_id::is_valid).unwrap_or(false);
            assert_eq!(got, c_int::from(valid));
        }
        // emq_compare: both inputs read, `a`'s gate first, then a NULL output.
        3 => {
            let (a, b) = (Arg::new(input.line(), is_null(0)), Arg::new(input.rest(), is_null(1)));
            let mut order = Out::new(c_int::MIN, is_null(3));
            // SAFETY: inputs readable for their lengths; the output NULL or writable.
            let status = unsafe { emqid::contract::emq_compare(a.cptr(), a.len(), b.cptr(), b.len(), order.ptr()) };
            let expected = a
                .read()
                .and_then(|a| b.read().map(|b| (a, b)))
                .and_then(|(a, b)| emq_id::compare(a, b).map_err(status_of));
            match expected {
                Ok(_) if order.null => assert_eq!(status, EMQ_ERR_NULL),
                Ok(o) => assert_eq!((status, order.get()), (BRANDED_OK, o as c_int)),
                Err(refusal) => assert_eq!((status, order.get()), (refusal, c_int::MIN)),
            }
        }
        // emq_slot and emq_slot_i32.
        4 => {
            let key = Arg::new(input.rest(), is_null(0));
            let mut slot = Out::new(u16::MAX, is_null(3));
            // SAFETY: `key` readable for its length; the output NULL or writable.
            let status = unsafe { emqid::place::emq_slot(key.ptr(), key.len(), slot.ptr()) };
            match key.read() {
                Ok(_) if slot.null => assert_eq!(status, EMQ_ERR_NULL),
                Ok(k) => assert_eq!((status, slot.get()), (BRANDED_OK, emq_id::slot(k))),
                Err(refusal) => assert_eq!((status, slot.get()), (refusal, u16::MAX)),
            }
            // SAFETY: as above.
            let value = unsafe { emqid::place::emq_slot_i32(key.ptr(), key.len()) };
            assert_eq!(value, key.read().map_or_else(|s| -(s as i32), |k| i32::from(emq_id::slot(k))));
        }
        // emq_hashtag: a span of the key given.
        5 => {
            let key = Arg::new(input.rest(), is_null(0));
            let (mut offset, mut len) = (Out::new(usize::MAX, is_null(3)), Out::new(usize::MAX, is_null(4)));
            // SAFETY: `key` readable for its length; the outputs NULL or writable.
            let status = unsafe { emqid::place::emq_hashtag(key.ptr(), key.len(), offset.ptr(), len.ptr()) };
            match key.read() {
                Ok(_) if offset.null || len.null => assert_eq!(status, EMQ_ERR_NULL),
                Ok(k) => {
                    let tag = emq_id::hashtag(k);
                    let want = if tag.is_empty() { 0 } else { tag.as_ptr() as usize - k.as_ptr() as usize };
                    assert_eq!((status, offset.get(), len.get()), (BRANDED_OK, want, tag.len()));
                }
                Err(refusal) => assert_eq!(status, refusal),
            }
            if status != BRANDED_OK {
                assert_eq!((offset.get(), len.get()), (usize::MAX, usize::MAX), "written on a refusal");
            }
        }
        // emq_slot_many: lengths from the input; keys back to back.
        6 => {
            let count = usize::from(input.u8() % 8);
            let mut lens: Vec<usize> = (0..count).map(|_| usize::from(input.u8() % 32)).collect();
            if is_null(2) && count >= 2 {
                // A total that overflows: refused before any key is read.
                lens[0] = usize::MAX;
                lens[1] = lens[1].max(1);
            }
            let total = lens.iter().try_fold(0usize, |acc, &l| acc.checked_add(l));
            let mut keys = input.rest().to_vec();
            keys.resize(total.unwrap_or(0), 0); // exactly what the ABI may read
            let keys = Arg::new(&keys, is_null(0));
            let lens_ptr: *const usize = if is_null(1) { null() } else { lens.as_ptr() };
            let mut slots = vec![u16::MAX; count];
            let slots_ptr = if is_null(3) { null_mut() } else { slots.as_mut_ptr() };
            // SAFETY: `lens` holds `count` lengths, `keys` their sum (or the call
            // refuses an overflowing sum before reading), `slots` `count` outputs.
            let status = unsafe { emqid::place::emq_slot_many(keys.ptr(), lens_ptr, count, slots_ptr) };
            let expected = if count == 0 {
                Ok(())
            } else if lens_ptr.is_null() || slots_ptr.is_null() {
                Err(EMQ_ERR_NULL)
            } else if total.is_none() {
                Err(BRANDED_ERR_RANGE)
            } else {
                keys.read().map(drop)
            };
            assert_eq!(status, expected.err().unwrap_or(BRANDED_OK));
            if status == BRANDED_OK && !slots_ptr.is_null() {
                let mut at = 0;
                for (slot, len) in slots.iter().zip(&lens) {
                    assert_eq!(*slot, emq_id::slot(&keys.bytes[at..at + len]));
                    at += len;
                }
            }
        }
        // branded_encode: three bytes of namespace and a snowflake.
        7 => {
            let mut ns = input.bytes(3).to_vec();
            ns.resize(3, 0);
            let ns = Arg::new(&ns, is_null(0));
            let snowflake = input.u64();
            let mut out = OutBuf::new(14, is_null(3));
            // SAFETY: `ns` NULL or readable for 3 bytes; `out` NULL or writable for 14.
            let status = unsafe { emqid::codec::branded_encode(ns.cptr(), snowflake, out.ptr().cast()) };
            let expected = ns.read().and_then(|ns| emq_id::encode(ns, snowflake).map_err(status_of));
            match expected {
                Ok(_) if out.null => assert_eq!(status, EMQ_ERR_NULL),
                Ok(text) => assert_eq!((status, &out.buf[..]), (BRANDED_OK, &text[..])),
                Err(refusal) => assert_eq!((status, out.untouched()), (refusal, true)),
            }
        }
        // emq_key: queue, type and (unless NULL) id; written as keys are.
        8 => {
            let queue = Arg::new(input.line(), is_null(0));
            let kind = Arg::new(input.line(), is_null(1));
            let id = Arg::new(input.rest(), is_null(2));
            let mut out = OutBuf::new(cap, is_null(3));
            let mut len_out = Out::new(usize::MAX, is_null(4));
            // SAFETY: inputs NULL or readable for their lengths; `out` writable
            // for `cap` bytes; `len_out` NULL or writable.
            let status = unsafe {
                emqid::keyspace::emq_key(
                    queue.ptr(),
                    queue.len(),
                    kind.ptr(),
                    kind.len(),
                    id.ptr(),
                    id.len(),
                    out.ptr(),
                    out.cap(),
                    len_out.ptr(),
                )
            };
            let key = queue.read().and_then(|q| kind.read().map(|k| (q, k))).and_then(|(q, k)| {
                let id = (!id.null).then_some(&id.bytes[..]); // NULL is "no id", whatever its length
                emq_id::key(q, k, id).map_err(status_of)
            });
            check_written("emq_key", status, key.as_ref().map(|k| k.as_bytes()).map_err(|s| *s), &out, &len_out);
        }
        // emq_parse_key: ranges into the key given.
        9 => {
            let key = Arg::new(input.rest(), is_null(0));
            let sentinel = emq_parsed_key {
                queue_offset: usize::MAX,
                queue_len: usize::MAX,
                family: u32::MAX,
                param_offset: usize::MAX,
                param_len: usize::MAX,
            };
            let mut parsed = Box::new(sentinel);
            let parsed_ptr: *mut emq_parsed_key = if is_null(3) { null_mut() } else { &mut *parsed };
            // SAFETY: `key` NULL or readable for its length; the output NULL or writable.
            let status = unsafe { emqid::keyspace::emq_parse_key(key.ptr(), key.len(), parsed_ptr) };
            let expected = key.read().and_then(|k| emq_id::parse_key(k).map(|p| (k, p)).map_err(status_of));
            let fields = |p: &emq_parsed_key| (p.queue_offset, p.queue_len, p.family, p.param_offset, p.param_len);
            match expected {
                Ok(_) if parsed_ptr.is_null() => assert_eq!(status, EMQ_ERR_NULL),
                Ok((k, p)) => {
                    assert_eq!(status, BRANDED_OK);
                    let at = |part: &[u8]| part.as_ptr() as usize - k.as_ptr() as usize;
                    let family = emq_id::Family::ALL.iter().position(|f| *f == p.family).unwrap() as u32;
                    let (param_offset, param_len) = p.param.map_or((0, 0), |x| (at(x), x.len()));
                    assert_eq!(
                        fields(&parsed),
                        (at(p.queue), p.queue.len(), family, param_offset, param_len),
                        "emq_parse_key({k:?})"
                    );
                }
                Err(refusal) => assert_eq!(status, refusal),
            }
            if status != BRANDED_OK {
                assert_eq!(fields(&parsed), fields(&sentinel), "written on a refusal");
            }
        }
        // emq_xadd_id: an EVT id's entry id, written as keys are.
        10 => {
            let id = Arg::new(input.rest(), is_null(0));
            let mut out = OutBuf::new(cap % 32, is_null(3));
            let mut len_out = Out::new(usize::MAX, is_null(4));
            // SAFETY: `id` NULL or readable; `out` writable for its cap; `len_out` NULL or writable.
            let status = unsafe { emqid::stream::emq_xadd_id(id.ptr(), id.len(), out.ptr(), out.cap(), len_out.ptr()) };
            let entry = id.read().and_then(|t| emq_id::xadd_id(t).map_err(status_of));
            check_written(
                "emq_xadd_id",
                status,
                entry.as_ref().map(|e| e.as_str().as_bytes()).map_err(|s| *s),
                &out,
                &len_out,
            );
        }
        // emq_from_xadd_id: an entry id and a namespace of any length.
        11 => {
            let entry = Arg::new(input.line(), is_null(0));
            let ns = Arg::new(input.rest(), is_null(1));
            let mut out = OutBuf::new(14, is_null(3));
            // SAFETY: inputs NULL or readable for their lengths; `out` NULL or writable for 14.
            let status = unsafe {
                emqid::stream::emq_from_xadd_id(entry.ptr(), entry.len(), ns.cptr(), ns.len(), out.ptr().cast())
            };
            let expected = entry
                .read()
                .and_then(|e| ns.read().map(|n| (e, n)))
                .and_then(|(e, n)| emq_id::from_xadd_id(e, n).map_err(status_of));
            match expected {
                Ok(_) if out.null => assert_eq!(status, EMQ_ERR_NULL),
                Ok(id) => assert_eq!((status, &out.buf[..]), (BRANDED_OK, &id.to_bytes()[..])),
                Err(refusal) => assert_eq!((status, out.untouched()), (refusal, true)),
            }
        }
        // emq_reserve, emq_queue_prefix and emq_job_prefix: a name, written as keys are.
        12 => {
            type Abi = unsafe extern "C" fn(*const u8, usize, *mut u8, usize, *mut usize) -> branded_status;
            type Core = fn(&[u8]) -> emq_id::Result<emq_id::Key>;
            let name = Arg::new(input.rest(), is_null(0));
            let calls: [(&str, Abi, Core); 3] = [
                ("emq_reserve", emqid::keyspace::emq_reserve, emq_id::reserve),
                ("emq_queue_prefix", emqid::keyspace::emq_queue_prefix, emq_id::queue_prefix),
                ("emq_job_prefix", emqid::keyspace::emq_job_prefix, emq_id::job_prefix),
            ];
            for (what, abi, core) in calls {
                let mut out = OutBuf::new(cap, is_null(3));
                let mut len_out = Out::new(usize::MAX, is_null(4));
                // SAFETY: `name` NULL or readable; `out` writable for its cap; `len_out` NULL or writable.
                let status = unsafe { abi(name.ptr(), name.len(), out.ptr(), out.cap(), len_out.ptr()) };
                let key = name.read().and_then(|n| core(n).map_err(status_of));
                check_written(what, status, key.as_ref().map(|k| k.as_bytes()).map_err(|s| *s), &out, &len_out);
            }
        }
        // emq_decode_many: ids back to back (lengths mostly 14), stopping at the first refused.
        14 => {
            let count = usize::from(input.u8() % 8);
            let lens: Vec<usize> = (0..count).map(|_| input.u8()).map(|b| usize::from(if b < 192 { 14 } else { b % 18 })).collect();
            let total: usize = lens.iter().sum();
            let mut ids = input.rest().to_vec();
            ids.resize(total, b'0');
            let ids = Arg::new(&ids, is_null(0));
            let lens_ptr: *const usize = if is_null(1) { null() } else { lens.as_ptr() };
            let mut snowflakes = vec![u64::MAX; count];
            let out_ptr = if is_null(3) { null_mut() } else { snowflakes.as_mut_ptr() };
            let mut done = Out::new(usize::MAX, is_null(4));
            // SAFETY: `lens` holds `count` lengths, `ids` their sum, `snowflakes`
            // `count` outputs, `done` one; each NULL or as promised.
            let status = unsafe { emqid::codec::emq_decode_many(ids.cptr(), lens_ptr, count, out_ptr, done.ptr()) };
            let decoded = |bytes: &[u8]| -> Vec<Result<u64, branded_status>> {
                let mut at = 0;
                let one = |len: &usize| {
                    at += len;
                    emq_id::decode(&bytes[at - len..at]).map(|(_, s)| s).map_err(status_of)
                };
                lens.iter().map(one).collect()
            };
            let answers = if count == 0 || lens_ptr.is_null() || out_ptr.is_null() { Err(EMQ_ERR_NULL) } else { ids.read().map(decoded) };
            check_batch("emq_decode_many", status, &done, count, answers, &snowflakes, u64::MAX);
        }
        // emq_encode_many: one namespace, snowflakes from the input, stopping at the first refused.
        15 => {
            let mut ns = input.bytes(3).to_vec();
            ns.resize(3, 0);
            let ns = Arg::new(&ns, is_null(0));
            let count = usize::from(input.u8() % 8);
            // Mostly below 2^63 (the top bit cleared unless the input's flag byte says so).
            let snowflakes: Vec<u64> = (0..count).map(|_| input.u64()).map(|s| if s & 0xFF < 224 { s >> 1 } else { s }).collect();
            let snowflakes_ptr = if is_null(1) { null() } else { snowflakes.as_ptr() };
            let mut out = OutBuf::new(14 * count, is_null(3));
            let mut done = Out::new(usize::MAX, is_null(4));
            // SAFETY: `ns` NULL or 3 bytes, `snowflakes` `count` values, `out`
            // `14 * count` bytes, `done` one; each NULL or as promised.
            let status = unsafe {
                emqid::codec::emq_encode_many(ns.cptr(), snowflakes_ptr, count, out.ptr().cast(), done.ptr())
            };
            let answers = if count == 0 || snowflakes_ptr.is_null() || out.null {
                Err(EMQ_ERR_NULL)
            } else {
                ns.read().map(|ns| snowflakes.iter().map(|&s| emq_id::encode(ns, s).map_err(status_of)).collect())
            };
            let texts: Vec<[u8; 14]> = out.buf.chunks_exact(14).map(|t| t.try_into().expect("14 bytes")).collect();
            check_batch("emq_encode_many", status, &done, count, answers, &texts, [SENTINEL; 14]);
        }
        // emq_parse_acquire_error: never OK; NODE for the script's refusal, else VALKEY.
        _ => {
            let text = Arg::new(input.rest(), is_null(0));
            // SAFETY: `text` NULL or readable for its length.
            let status = unsafe { emqid::lease::emq_parse_acquire_error(text.ptr(), text.len()) };
            let expected = text.read().map_or_else(
                |null| null,
                |t| {
                    let refusal = std::str::from_utf8(t).ok().and_then(emq_id::parse_acquire_error);
                    refusal.map_or(EMQ_ERR_VALKEY, status_of)
                },
            );
            assert_eq!(status, expected);
        }
    }
});
