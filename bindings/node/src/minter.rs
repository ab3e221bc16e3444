//! `new Minter(node)`: a minter object for one node.

use napi_derive::napi;

use crate::convert::{Arg, BigU64};
use crate::error::{gate, JsError};

/// A minter for one node; ids from one Minter never repeat and never decrease.
#[napi]
pub struct Minter {
    inner: emq_id::Minter,
}

#[napi]
impl Minter {
    /// `new Minter(node: number)` — a node of the core's range, else `range`.
    #[napi(constructor)]
    pub fn new(node: Arg) -> Result<Minter, JsError> {
        Ok(Minter { inner: emq_id::Minter::new(crate::api::node_arg(node)?).map_err(gate)? })
    }

    /// The node this minter stamps.
    #[napi(getter)]
    pub fn node(&self) -> u32 {
        self.inner.node() as u32
    }

    /// Mints with the system clock.
    #[napi]
    pub fn next(&self) -> Result<BigU64, JsError> {
        Ok(BigU64(self.inner.next().map_err(gate)?))
    }

    /// Mints with a clock reading in unix ms (`number` or `bigint`): the
    /// contract's pure step applied to this minter's state.
    #[napi]
    pub fn next_at(&self, now_ms: Arg) -> Result<BigU64, JsError> {
        Ok(BigU64(self.inner.next_at(now_ms.millis()?).map_err(gate)?))
    }
}
