//! Node leases on Valkey (emq-lease/3): the core's scripts, reply parsing
//! and leased minter for the package's JS, which checks the host types first
//! (numbers here are whole and finite by then). The one lease key, LEASE_KEY,
//! reaches JS with the core's other texts (contract.rs).

use napi_derive::napi;

use crate::convert::BigU64;
use crate::error::{gate, range, JsError};

fn whole(v: f64, what: &str) -> Result<i64, JsError> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 {
        Ok(v as i64)
    } else {
        Err(range(what))
    }
}

fn node(v: f64) -> Result<u16, JsError> {
    u16::try_from(whole(v, "a node is a whole number")?).map_err(|_| range("the node is outside 0..=MAX_NODE"))
}

pub(crate) fn ms(v: f64) -> Result<u64, JsError> {
    u64::try_from(whole(v, "milliseconds are a whole number")?).map_err(|_| range("milliseconds are not negative"))
}

/// `leaseScripts(): string` — `<name>\n<text>` per script, joined by NUL.
#[napi]
pub fn lease_scripts() -> String {
    let parts: Vec<String> = emq_id::SCRIPTS.iter().map(|s| format!("{}\n{}", s.name, s.text)).collect();
    parts.join("\0")
}

/// `parseAcquire(node, previous): [node, previous mark or -1]`
#[napi]
pub fn parse_acquire(n: f64, previous: f64) -> Result<Vec<f64>, JsError> {
    let a = emq_id::parse_acquire(whole(n, "a node is a whole number")?, whole(previous, "a mark is a whole number")?)
        .map_err(gate)?;
    Ok(vec![a.node as f64, a.previous_mark.map_or(-1.0, |m| m as f64)])
}

/// `parseRenewal(reply): void` — `node` when the lease is lost.
#[napi]
pub fn parse_renewal(reply: f64) -> Result<(), JsError> {
    emq_id::parse_renewal(whole(reply, "a renewal's reply is 0 or 1")?).map_err(gate)
}

/// `parseWait(acknowledged, replicas): void` — WAIT's reply after a lease
/// write: `node` (naming both counts) for fewer than `replicas`, `range` for a
/// negative reply.
#[napi]
pub fn parse_wait(acknowledged: f64, replicas: f64) -> Result<(), JsError> {
    let replicas = u32::try_from(whole(replicas, "a count of replicas is a whole number")?)
        .map_err(|_| range("a count of replicas is in 0..=2^32-1"))?;
    emq_id::parse_wait(whole(acknowledged, "a WAIT reply is a whole number")?, replicas).map_err(gate)
}

/// `leaseWaitMs(ttlMs, marginMs): number` — the WAIT timeout of the terms
/// (checked by the core as `leaseMargin` checks them; a negative margin asks
/// for the default for the TTL).
#[napi]
pub fn lease_wait_ms(ttl: f64, margin: f64) -> Result<f64, JsError> {
    Ok(terms(ttl, margin)?.wait_ms() as f64)
}

/// The terms of `ttl` and `margin`, checked by the core; a negative margin
/// asks for the core's default for this TTL.
pub(crate) fn terms(ttl: f64, margin: f64) -> Result<emq_id::LeaseTerms, JsError> {
    let terms = if margin < 0.0 {
        emq_id::LeaseTerms::for_ttl(ms(ttl)?)
    } else {
        emq_id::LeaseTerms::new(ms(ttl)?, ms(margin)?)
    };
    terms.map_err(gate)
}

/// `parseAcquireError(message): string | null` — the `node` refusal's detail
/// when the message is the script's "every node is leased", else null.
#[napi]
pub fn parse_acquire_error(message: String) -> Option<String> {
    emq_id::parse_acquire_error(&message).map(|e| e.detail().to_string())
}

/// `leaseMargin(ttlMs, marginMs): number` — the terms checked by the core
/// before a node is taken; a negative margin asks for the default for the TTL.
#[napi]
pub fn lease_margin(ttl: f64, margin: f64) -> Result<f64, JsError> {
    Ok(terms(ttl, margin)?.margin_ms as f64)
}

/// A minter on a leased node (see the core's `LeasedMinter`).
#[napi]
pub struct LeasedMinter {
    inner: emq_id::LeasedMinter,
}

#[napi]
impl LeasedMinter {
    /// `new LeasedMinter(node, previousMark (-1: none), nowMs, sentMonoMs, ttlMs, marginMs)`
    #[napi(constructor)]
    pub fn new(n: f64, previous: f64, now: f64, sent: f64, ttl: f64, margin: f64) -> Result<LeasedMinter, JsError> {
        let acquired =
            emq_id::parse_acquire(i64::from(node(n)?), whole(previous, "a mark is a whole number")?).map_err(gate)?;
        let terms = terms(ttl, margin)?;
        let inner = emq_id::LeasedMinter::start(acquired, whole(now, "a time is a whole number")?, ms(sent)?, terms)
            .map_err(gate)?;
        Ok(LeasedMinter { inner })
    }

    #[napi(getter)]
    pub fn node(&self) -> u32 {
        self.inner.node() as u32
    }

    /// `nextAt(nowMs, monoMs): bigint`
    #[napi]
    pub fn next_at(&self, now: f64, mono: f64) -> Result<BigU64, JsError> {
        Ok(BigU64(self.inner.next_at(whole(now, "a time is a whole number")?, ms(mono)?).map_err(gate)?))
    }

    /// `nextMark(nowMs): number`
    #[napi]
    pub fn next_mark(&self, now: f64) -> Result<f64, JsError> {
        Ok(self.inner.next_mark(whole(now, "a time is a whole number")?) as f64)
    }

    /// `renewed(sentMonoMs, mark): void`
    #[napi]
    pub fn renewed(&self, sent: f64, mark: f64) -> Result<(), JsError> {
        self.inner.renewed(ms(sent)?, ms(mark)?);
        Ok(())
    }

    #[napi]
    pub fn stop(&self) {
        self.inner.stop();
    }

    #[napi]
    pub fn high_water(&self) -> f64 {
        self.inner.high_water() as f64
    }

    #[napi]
    pub fn fence_ms(&self) -> f64 {
        self.inner.fence_ms() as f64
    }
}
