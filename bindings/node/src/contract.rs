//! The contract's facts for the package's JS (its constants and gate list,
//! so none is typed in JS), the self-check vectors it runs through its own API
//! at load, the probe its tests walk every gate through, and the predicates.

use napi_derive::napi;

use crate::convert::Arg;
use crate::error::{gate, wrong_type, JsError};

/// `facts(): string` — `gate <name>`, `number <NAME> <value>`, `text <NAME> <value>`
/// and `outcome <name>` (a lease write's, the keeper's) lines.
#[napi]
pub fn facts() -> String {
    let mut out = String::new();
    for g in emq_id::Gate::ALL {
        out.push_str(&format!("gate {}\n", g.name()));
    }
    for (name, value) in emq_id::NUMBERS {
        out.push_str(&format!("number {name} {value}\n"));
    }
    for (name, value) in emq_id::TEXTS {
        out.push_str(&format!("text {name} {value}\n"));
    }
    for o in emq_id::Outcome::ALL {
        out.push_str(&format!("outcome {}\n", o.name()));
    }
    out
}

/// `selfCheckVectors(): string` — the core's, one check per line (SPEC.md §8).
#[napi]
pub fn self_check_vectors() -> &'static str {
    emq_id::SELF_CHECK_VECTORS
}

/// `gateError(name)` — throws gate `name`'s refusal through the one error
/// helper, so the package's test can walk every gate of the core.
#[napi]
pub fn gate_error(name: String) -> Result<(), JsError> {
    match emq_id::Gate::from_name(&name) {
        Some(g) => Err(gate(emq_id::Error::from_gate(g, "a probe of the error mapping"))),
        None => Err(wrong_type("no gate has this name")),
    }
}

/// `isValid(text): boolean`
#[napi]
pub fn is_valid(text: Arg) -> Result<bool, JsError> {
    Ok(emq_id::is_valid(text.bytes("an id is a string or a Uint8Array")?.as_slice()))
}

/// `compare(a, b): -1 | 0 | 1` — an invalid id is refused with its gate.
#[napi]
pub fn compare(a: Arg, b: Arg) -> Result<i32, JsError> {
    let a = a.bytes("an id is a string or a Uint8Array")?;
    let b = b.bytes("an id is a string or a Uint8Array")?;
    Ok(emq_id::compare(a.as_slice(), b.as_slice()).map_err(gate)? as i32)
}
