//! The contract's tables, handed to Java once when it loads (`Native.table`),
//! so Java types none of them: the numbers and names (`NUMBERS`, `TEXTS`), the
//! gates in the contract's order, the keeper's enums in the core's order, the
//! lease scripts, the self-check vectors and this library's version.

use jni::objects::{JByteArray, JClass};
use jni::sys::jint;
use jni::EnvUnowned;

use crate::fields::Fields;
use crate::jvm::{bytes_out, call};

/// The table `which` as fields (each table's layout is read by `Contract.java`).
fn table(which: jint) -> Option<Fields> {
    let names = |all: &mut dyn Iterator<Item = &'static str>| all.fold(Fields::default(), Fields::text);
    Some(match which {
        0 => emq_id::NUMBERS.iter().fold(Fields::default(), |f, (name, value)| f.text(name).number(value)),
        1 => emq_id::TEXTS.iter().fold(Fields::default(), |f, (name, value)| f.text(name).text(value)),
        2 => names(&mut emq_id::Gate::ALL.iter().map(|g| g.name())),
        3 => names(&mut emq_id::Outcome::ALL.iter().map(|o| o.name())),
        4 => names(&mut emq_id::Action::ALL.iter().map(|a| a.name())),
        5 => names(&mut emq_id::Phase::ALL.iter().map(|p| p.name())),
        6 => names(&mut emq_id::Next::ALL.iter().map(|n| n.name())),
        // Each script: name, text, the count of KEYS then each, the count of ARGV then each.
        7 => emq_id::SCRIPTS.iter().fold(Fields::default(), |f, s| {
            let f = s.keys.iter().fold(f.text(s.name).text(s.text).number(s.keys.len()), |f, k| f.text(k));
            s.args.iter().fold(f.number(s.args.len()), |f, a| f.text(a))
        }),
        8 => Fields::default().text(emq_id::SELF_CHECK_VECTORS).text(env!("CARGO_PKG_VERSION")),
        _ => return None,
    })
}

/// `table(int which)`: a table as fields, or null past the last.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_table<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    which: jint,
) -> JByteArray<'l> {
    call(env, |env| match table(which) {
        Some(fields) => bytes_out(env, fields.into_bytes()),
        None => Ok(JByteArray::default()),
    })
}

/// `gateRefusal(int index)`: the refusal's fields the one error helper makes of
/// the core's gate at `index` (the gate-coverage test walks them all), or null.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_echomq_emqid_Native_gateRefusal<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    index: jint,
) -> JByteArray<'l> {
    call(env, |env| {
        let gate = usize::try_from(index).ok().and_then(|i| emq_id::Gate::ALL.get(i).copied());
        match gate {
            Some(gate) => {
                let probe = emq_id::Error::from_gate(gate, "the mapping's probe");
                bytes_out(env, crate::error::fields(&probe))
            }
            None => Ok(JByteArray::default()),
        }
    })
}
