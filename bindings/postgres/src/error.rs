//! The one error helper: a refusal of the contract as a PostgreSQL `ERROR`.
//! The message starts with the gate (`charset: …`), the detail names it again.

use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

/// Text that is not a branded id (decode's gates): `invalid_text_representation`.
pub fn bad_text(e: emq::Error) -> ! {
    report(PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION, e)
}

/// Any other value the contract refuses: `invalid_parameter_value`.
pub fn bad_value(e: emq::Error) -> ! {
    report(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, e)
}

/// Decode's gates are text errors; everything else is a parameter error.
pub fn refuse(e: emq::Error) -> ! {
    match e.gate() {
        emq::Gate::Length | emq::Gate::Namespace | emq::Gate::Charset => bad_text(e),
        _ => bad_value(e),
    }
}

fn report(code: PgSqlErrorCode, e: emq::Error) -> ! {
    ereport!(ERROR, code, format!("{}: {}", e.code(), e.message()), format!("emq_id gate: {}", e.code()));
}

/// A `bigint` that must be a snowflake: negative is the range gate.
pub fn snowflake(s: i64) -> u64 {
    if s < 0 {
        bad_value(emq::Error::from_gate(emq::Gate::Range, "a snowflake is a bigint in [0, 2^63)"));
    }
    s as u64
}
