//! Any (queue, type, id) bytes, split from the input at its first two `\n`
//! (`orders\npending`, `orders\njob\nJOB0KHTOWnGLuC`): no builder panics;
//! every key built lands in its queue's slot and reads back with
//! `parse_key` to the queue, family and parameter it was built from; the
//! queue grammar is the reference's; and any bytes `parse_key` accepts are a
//! key `key` builds again, byte for byte.
#![no_main]

use emq_id::{Family, Gate};
use emq_id_fuzz::{queue_ok_ref, slot_ref};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == b'\n');
    let queue = parts.next().unwrap_or_default();
    let ty = parts.next().unwrap_or_default();
    let id = parts.next();

    let queue_ok = queue_ok_ref(queue);
    assert_eq!(emq_id::check_queue(queue).is_ok(), queue_ok, "check_queue({queue:?})");
    let queue_slot = slot_ref(queue);

    // A key built from the parts: its bytes, its slot, and read back.
    match emq_id::key(queue, ty, id) {
        Ok(key) => {
            assert!(queue_ok);
            let written_type = match id {
                Some(id) => [b"job:", id].concat(), // emq-keyspace/1's form: key(q, "job", id)
                None => ty.to_vec(),
            };
            assert_eq!(key.as_bytes(), [b"emq:{", queue, b"}:", &written_type[..]].concat());
            assert_eq!(emq_id::slot(key.as_bytes()), queue_slot, "{key:?} is in its queue's slot");
            let parsed = emq_id::parse_key(key.as_bytes()).expect("a built key parses");
            assert_eq!(parsed.queue, queue);
            let (family, param) = Family::of_type(&written_type).expect("a built key's type has a family");
            assert_eq!((parsed.family, parsed.param), (family, param));
            if let Some(id) = id {
                assert_eq!(parsed.param, Some(id));
            }
        }
        Err(e) if !queue_ok => assert_eq!(e.gate(), Gate::Queue, "the queue is checked first"),
        Err(_) => {}
    }

    // The other builders over the same parts.
    // `queue_key` is `key` without an id: the same key, or the same gate.
    match (emq_id::queue_key(queue, ty), emq_id::key(queue, ty, None)) {
        (Ok(key), Ok(same)) => {
            assert_eq!(key, same);
            assert!(queue_ok);
            assert_eq!(emq_id::slot(key.as_bytes()), queue_slot);
            assert_eq!(emq_id::parse_key(key.as_bytes()).expect("a built key parses").queue, queue);
        }
        (Err(e), Err(same)) => assert_eq!(e.gate(), same.gate()),
        (a, b) => panic!("queue_key and key disagree: {a:?} against {b:?}"),
    }
    for job_id in [ty, id.unwrap_or_default()] {
        if let Ok(key) = emq_id::job_key(queue, job_id) {
            assert!(queue_ok);
            assert_eq!(emq_id::slot(key.as_bytes()), queue_slot);
            let parsed = emq_id::parse_key(key.as_bytes()).expect("a built key parses");
            assert_eq!((parsed.queue, parsed.param), (queue, Some(job_id)));
        }
    }
    match (emq_id::queue_prefix(queue), emq_id::job_prefix(queue)) {
        (Ok(prefix), Ok(job)) => {
            assert_eq!(emq_id::slot(prefix.as_bytes()), queue_slot);
            assert!(job.as_bytes().starts_with(prefix.as_bytes()), "{job:?} is not under {prefix:?}");
        }
        (Err(e), Err(same)) => assert_eq!((queue_ok, e.gate(), same.gate()), (false, Gate::Queue, Gate::Queue)),
        (a, b) => panic!("queue_prefix and job_prefix disagree: {a:?} against {b:?}"),
    }
    if let Ok(n) = emq_id::prefix_bytes(queue, ty) {
        assert_eq!(n, b"emq:{".len() + queue.len() + b"}:".len() + ty.len());
    }
    if let Ok((_, param)) = Family::of_type(ty) {
        if queue_ok && id.is_none() {
            let built = emq_id::key(queue, ty, None);
            assert!(built.is_ok(), "a type with a family builds: {built:?}");
        }
        if let Some(param) = param {
            assert!(!param.is_empty() && !param.contains(&b':'));
        }
    }
    if let Ok(key) = emq_id::reserve(queue) {
        assert_eq!(emq_id::slot(key.as_bytes()), slot_ref(b"emq"), "the reserve is one slot");
        assert_eq!(emq_id::parse_key(key.as_bytes()).map_err(|e| e.gate()).err(), Some(Gate::Queue));
    }

    // Any bytes parse_key accepts are exactly a key `key` builds.
    if let Ok(parsed) = emq_id::parse_key(data) {
        let ty = &data[b"emq:{".len() + parsed.queue.len() + b"}:".len()..];
        let rebuilt = emq_id::key(parsed.queue, ty, None).expect("a parsed key builds again");
        assert_eq!(rebuilt.as_bytes(), data);
        assert_eq!(emq_id::slot(data), slot_ref(parsed.queue));
    }
});
