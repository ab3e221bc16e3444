//! Criterion benchmarks of the core, each beside its anchor in the same run:
//! the `ulid` crate for the text codec, and the crc16-crate slot routine that
//! redis-rs uses. `cargo xtask bench` runs this and prints the ratio table.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput};

/// 64 snowflakes spread over the whole range (a fixed LCG, so runs compare).
fn snowflakes() -> Vec<u64> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..64)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 1
        })
        .collect()
}

/// The codec's inputs: the snowflakes, ULIDs made from them, and both as text.
struct Texts {
    values: Vec<u64>,
    ulids: Vec<ulid::Ulid>,
    texts: Vec<[u8; 14]>,
    ulid_texts: Vec<String>,
}

fn texts() -> Texts {
    let values = snowflakes();
    let ulids: Vec<ulid::Ulid> = values.iter().map(|&v| ulid::Ulid::from_parts(v >> 16, v as u128 * 0x9E37)).collect();
    let texts = values.iter().map(|&v| emq_id::encode(b"JOB", v).unwrap()).collect();
    let ulid_texts = ulids.iter().map(|u| u.to_string()).collect();
    Texts { values, ulids, texts, ulid_texts }
}

/// The slot's inputs, 64 keys of each shape: keys without a tag hash every
/// byte; `emq-key …` is a keyspace key whose tag is the queue.
fn slot_cases() -> Vec<(String, Vec<Vec<u8>>)> {
    let untagged = |len: usize| -> Vec<Vec<u8>> {
        (0..64u32)
            .map(|i| {
                let mut k = format!("k{i:02}:").into_bytes();
                k.extend((0..len).map(|j| b'a' + ((i as usize + j) % 26) as u8));
                k.truncate(len);
                k
            })
            .collect()
    };
    let mut cases: Vec<(String, Vec<Vec<u8>>)> =
        [8usize, 24, 64, 1024].iter().map(|&n| (format!("{n}B"), untagged(n))).collect();
    let queue_keys = (0..64u32).map(|i| format!("emq:{{orders-{i:02}}}:job:JOB0KHTOWnGLuC").into_bytes()).collect();
    cases.push(("emq-key 34B".into(), queue_keys));
    cases
}

/// The slot path of redis-rs: find a `{…}` tag, then the crc16 crate's XMODEM.
fn anchor_slot(key: &[u8]) -> u16 {
    let tag = key
        .iter()
        .position(|&b| b == b'{')
        .and_then(|open| {
            let close = key[open..].iter().position(|&b| b == b'}')?;
            let tag = &key[open + 1..open + close];
            (!tag.is_empty()).then_some(tag)
        })
        .unwrap_or(key);
    crc16::State::<crc16::XMODEM>::calculate(tag) % 16384
}

fn codec(c: &mut Criterion) {
    let Texts { values, ulids, texts, ulid_texts } = texts();

    // Both encoders write into a caller's buffer, as a hot path would.
    let mut g = c.benchmark_group("encode");
    g.bench_function("emq-id", |b| {
        let mut i = 0;
        let mut buf = [0u8; 14];
        b.iter(|| {
            i = (i + 1) & 63;
            emq_id::encode_into(b"JOB", black_box(values[i]), &mut buf).unwrap();
            black_box(&buf);
        })
    });
    g.bench_function("ulid array_to_str", |b| {
        let mut i = 0;
        let mut buf = [0u8; 26];
        b.iter(|| {
            i = (i + 1) & 63;
            black_box(ulids[i]).array_to_str(&mut buf);
            black_box(&buf);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("decode");
    g.bench_function("emq-id", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 63;
            let (ns, snowflake) = emq_id::decode(black_box(&texts[i])).unwrap();
            black_box((u32::from_le_bytes([ns[0], ns[1], ns[2], 0]), snowflake))
        })
    });
    g.bench_function("ulid from_string", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 63;
            black_box(ulid::Ulid::from_string(black_box(&ulid_texts[i])).unwrap())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("hash32");
    g.bench_function("emq-id", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 63;
            black_box(emq_id::hash32(black_box(values[i])))
        })
    });
    // The anchor: a bare xor-shift-multiply of a u64, written here (the least a 64-bit mix can cost).
    g.bench_function("bare u64 xor-shift-multiply", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) & 63;
            let x = black_box(values[i]);
            black_box(((x ^ (x >> 33)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32)
        })
    });
    g.finish();
}

fn mint(c: &mut Criterion) {
    let mut g = c.benchmark_group("mint");
    // The floor under `next`: one read of the wall clock.
    g.bench_function("clock read alone (SystemTime::now)", |b| b.iter(|| black_box(std::time::SystemTime::now())));
    let minter = emq_id::Minter::new(1).unwrap();
    g.bench_function("next (wall clock), 1 thread", |b| b.iter(|| black_box(minter.next().unwrap())));
    // The process-wide minter: the same step, plus the check that the node is
    // still this process's and the burst mark (ids here run far past the clock).
    // Claims apart from the host's own: this loop mints far ahead of the clock.
    std::env::set_var(emq_id::NODE_DIR_ENV, std::env::temp_dir().join(format!("emq-id-bench-{}", std::process::id())));
    let process = emq_id::process_minter().unwrap();
    g.bench_function("process minter next (wall clock), 1 thread", |b| b.iter(|| black_box(process.next().unwrap())));
    let fixed = emq_id::Minter::new(2).unwrap();
    g.bench_function("next_at (given clock), 1 thread", |b| {
        b.iter(|| black_box(fixed.next_at(black_box(1_769_526_697_641)).unwrap()))
    });
    // Two threads racing on one minter: the time each thread waits per mint.
    g.bench_function("next (wall clock), 2 threads", |b| {
        b.iter_custom(|iters| {
            let shared = emq_id::Minter::new(3).unwrap();
            let per_thread = iters.div_ceil(2);
            let start = Instant::now();
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        for _ in 0..per_thread {
                            black_box(shared.next().unwrap());
                        }
                    });
                }
            });
            // Criterion divides by `iters`; each thread made iters/2 mints.
            start.elapsed() * 2
        })
    });
    g.finish();
}

fn slot(c: &mut Criterion) {
    for (name, keys) in &slot_cases() {
        let mut g = c.benchmark_group(format!("slot/{name}"));
        g.throughput(Throughput::Bytes(keys[0].len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter("emq-id"), keys, |b, keys| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 63;
                black_box(emq_id::slot(black_box(&keys[i])))
            })
        });
        g.bench_with_input(BenchmarkId::from_parameter("crc16 crate (redis-rs)"), keys, |b, keys| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 63;
                black_box(anchor_slot(black_box(&keys[i])))
            })
        });
        g.finish();
    }
}

/// The codec and slot rows again, each call in a loop over all 64 inputs
/// and reported per input. Above, each call is one iteration of criterion's
/// loop, and the input's index lives in memory: the closure captures it,
/// and `black_box` makes the compiler store and reload it every call. Here
/// the index is a register, as in a caller's own loop over a batch. The
/// per-call rows moved by up to 20% between builds of this file with the
/// library unchanged; these by 1–2.5%.
fn loop_of_64(c: &mut Criterion) {
    let Texts { values, ulids, texts, ulid_texts } = texts();

    let mut g = loop_group(c, "encode");
    g.bench_function("emq-id", |b| {
        let mut buf = [0u8; 14];
        b.iter(|| {
            for &v in &values {
                emq_id::encode_into(b"JOB", black_box(v), &mut buf).unwrap();
                black_box(&buf);
            }
        })
    });
    g.bench_function("ulid array_to_str", |b| {
        let mut buf = [0u8; 26];
        b.iter(|| {
            for &u in &ulids {
                black_box(u).array_to_str(&mut buf);
                black_box(&buf);
            }
        })
    });
    g.finish();

    let mut g = loop_group(c, "decode");
    g.bench_function("emq-id", |b| {
        b.iter(|| {
            for text in &texts {
                let (ns, snowflake) = emq_id::decode(black_box(text)).unwrap();
                black_box((u32::from_le_bytes([ns[0], ns[1], ns[2], 0]), snowflake));
            }
        })
    });
    g.bench_function("ulid from_string", |b| {
        b.iter(|| {
            for text in &ulid_texts {
                black_box(ulid::Ulid::from_string(black_box(text)).unwrap());
            }
        })
    });
    g.finish();

    for (name, keys) in &slot_cases() {
        let mut g = loop_group(c, &format!("slot/{name}"));
        g.bench_function("emq-id", |b| {
            b.iter(|| {
                for key in keys {
                    black_box(emq_id::slot(black_box(key)));
                }
            })
        });
        g.bench_function("crc16 crate (redis-rs)", |b| {
            b.iter(|| {
                for key in keys {
                    black_box(anchor_slot(black_box(key)));
                }
            })
        });
        g.finish();
    }
}

/// A group whose rows each time one loop over 64 inputs, reported per input.
fn loop_group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(format!("{name}, loop of 64"));
    g.throughput(Throughput::Elements(64));
    g
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(40)
}

criterion_group!(name = benches; config = config(); targets = codec, mint, slot, loop_of_64);
criterion_main!(benches);
