//! The one error helper: a refusal of the contract as a PostgreSQL `ERROR`.
//! The message starts with the gate (`charset: …`), the detail names it again,
//! and the SQLSTATE comes from [`sqlstate`], the one map from gates to codes
//! (SPEC.md §9), which `emq_gates()` shows to SQL so a test can walk every gate.

use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

use emq::Gate;

/// What the refused value was: the SQLSTATE depends on it (SPEC.md §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Text (or bytes) read as an id: whatever the gate, it is not an id.
    Text,
    /// A `branded_id` in its binary form (COPY BINARY, the binary protocol).
    Binary,
    /// Any other value: a snowflake, a namespace given to encode, a queue
    /// name, a type, an id inside a key, a clock reading.
    Value,
}

/// The SQLSTATE of a refusal by `gate`, or `None` for a gate no SQL function
/// raises. `node` is raised by minting on a hot standby (SPEC.md §5.3): not a
/// value but the server's state, `object_not_in_prerequisite_state`, as for
/// the other minting refusals; it is about no text. A gate added to the core is `None` too
/// until it is mapped here: [`report`] then raises it as an internal error,
/// and the live test's walk of `emq_gates()` fails on it.
pub fn sqlstate(gate: Gate, input: Input) -> Option<PgSqlErrorCode> {
    use PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION as BINARY;
    use PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE as VALUE;
    use PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION as TEXT;
    use PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE as STATE;
    let decodes = matches!(gate, Gate::Length | Gate::Namespace | Gate::Charset | Gate::Range);
    match (gate, input) {
        (_, Input::Text) if decodes => Some(TEXT),
        (_, Input::Binary) if decodes => Some(BINARY),
        // An id inside a key is text too, but its range is a value's (§9).
        (Gate::Length | Gate::Namespace | Gate::Charset, _) => Some(TEXT),
        (Gate::Range | Gate::Queue | Gate::Kind, _) => Some(VALUE),
        (Gate::Node, Input::Value) => Some(STATE),
        _ => None,
    }
}

/// Raises `e`, refused as `input`: the one way a refusal leaves the extension.
pub fn report(e: emq::Error, input: Input) -> ! {
    let code = sqlstate(e.gate(), input).unwrap_or(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR);
    ereport!(ERROR, code, format!("{}: {}", e.code(), e.message()), format!("emq_id gate: {}", e.code()));
}

/// Text that is not a branded id (decode's gates): `invalid_text_representation`.
pub fn bad_text(e: emq::Error) -> ! {
    report(e, Input::Text)
}

/// A binary `branded_id` that is not one: `invalid_binary_representation`.
pub fn bad_binary(e: emq::Error) -> ! {
    report(e, Input::Binary)
}

/// Any other value the contract refuses: `invalid_parameter_value`, except an
/// id's `length`, `namespace` and `charset` inside a key (`invalid_text_representation`).
pub fn refuse(e: emq::Error) -> ! {
    report(e, Input::Value)
}

/// A `bigint` that must be a snowflake: negative is the range gate.
pub fn snowflake(s: i64) -> u64 {
    if s < 0 {
        refuse(emq::Error::from_gate(Gate::Range, "a snowflake is a bigint in [0, 2^63)"));
    }
    s as u64
}

/// PostgreSQL's own five-character spelling of a SQLSTATE.
fn spelled(code: PgSqlErrorCode) -> String {
    // SAFETY: unpack_sql_state only decodes the integer into a static buffer,
    // NUL-terminated, valid until its next call; it is copied out at once.
    unsafe { std::ffi::CStr::from_ptr(pg_sys::unpack_sql_state(code as i32)) }.to_string_lossy().into_owned()
}

/// Every gate of the contract, in the core's order, with the SQLSTATE its
/// refusal raises for a value, for text read as an id and for a binary
/// `branded_id`; NULL where no SQL function raises it. Read from the same map
/// every error goes through. `SELECT * FROM emq_gates()`.
#[pg_extern(immutable, parallel_safe)]
#[allow(clippy::type_complexity)] // pgrx reads the column names from this signature: no alias
fn emq_gates() -> TableIterator<
    'static,
    (
        name!(gate, String),
        name!(value_sqlstate, Option<String>),
        name!(text_sqlstate, Option<String>),
        name!(binary_sqlstate, Option<String>),
    ),
> {
    let state = |g, input| sqlstate(g, input).map(spelled);
    let row =
        move |g: Gate| (g.name().to_string(), state(g, Input::Value), state(g, Input::Text), state(g, Input::Binary));
    TableIterator::new(Gate::ALL.into_iter().map(row))
}
extension_sql!(
    "COMMENT ON FUNCTION emq_gates() IS 'Every gate of the contract with the SQLSTATE its refusal raises for a value, for text read as an id, and for binary branded_id input; NULL where no function raises it.';",
    name = "emq_gates_comment",
    requires = [emq_gates],
);
