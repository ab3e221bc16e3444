//! The self-check, for hosts to run once at load.

use crate::status::{branded_status, guard};

/// Checks this build against the contract's own vectors. `BRANDED_OK`, or
/// `EMQ_ERR_SELF_CHECK` when the library disagrees with the contract (a host
/// should then refuse to start).
///
/// # Safety
/// None needed: no arguments.
#[no_mangle]
pub extern "C" fn emq_self_check() -> branded_status {
    guard(|| emq_id::self_check().map_err(|_| branded_status::EMQ_ERR_SELF_CHECK))
}
