//! The one error helper: every refusal becomes a JS `Error` whose `code` is
//! the contract's gate name. The package's loader gives it the `EmqIdError`
//! class.

/// A JS error code: a gate name, or Node's `ERR_INVALID_ARG_TYPE`.
#[derive(Clone, Copy, Debug)]
pub struct Code(pub &'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

pub type JsError = napi::Error<Code>;
pub type JsResult<T> = Result<T, JsError>;

/// The core's refusal, as thrown to JS.
pub fn gate(e: emq_id::Error) -> JsError {
    napi::Error::new(Code(e.code()), e.message().to_string())
}

/// The range gate for host values the core's types cannot hold.
pub fn range(detail: &str) -> JsError {
    napi::Error::new(Code(emq_id::Gate::Range.name()), detail.to_string())
}

/// A wrong JS type (the loader makes it a `TypeError`).
pub fn wrong_type(detail: &str) -> JsError {
    napi::Error::new(Code("ERR_INVALID_ARG_TYPE"), detail.to_string())
}

/// A failure of N-API itself (should not happen; never a panic).
pub fn napi_failed(what: &str) -> JsError {
    napi::Error::new(Code("ERR_NAPI"), format!("N-API call failed: {what}"))
}
