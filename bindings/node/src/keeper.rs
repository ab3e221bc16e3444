//! The lease keeper's decisions (the core's `keeper` module) for the package's
//! JS: what an error reply of a lease script means, where a redirect sends a
//! write, and the `Keeper` that says which write is due and what each came to.
//! Names cross as the core's own (`Outcome::name()`, `Action::name()`…); the
//! JS has checked the host types (times are whole numbers by then).

use napi_derive::napi;

use crate::error::{gate, range, JsError};
use crate::lease::{ms, terms};

/// The outcome named `name`, or `range` (the JS checks the names first, from `facts()`).
fn outcome(name: &str) -> Result<emq_id::Outcome, JsError> {
    emq_id::Outcome::from_name(name).ok_or_else(|| range("no lease write's outcome has this name"))
}

/// `readLeaseError(text, asked): string` — what a lease script's error reply means.
#[napi]
pub fn read_lease_error(text: String, asked: bool) -> &'static str {
    emq_id::read_lease_error(&text, asked).name()
}

/// `leaseOutcome(held, acknowledged): string` — a write whose script answered without an error.
#[napi]
pub fn lease_outcome(held: bool, acknowledged: bool) -> &'static str {
    emq_id::Outcome::of_write(held, acknowledged).name()
}

/// The node a `MOVED` or `ASK` reply names.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct LeaseRedirect {
    pub ask: bool,
    pub slot: u32,
    /// None: the host the redirected connection was opened to.
    pub host: Option<String>,
    pub port: u32,
}

/// `leaseRedirect(text): { ask, slot, host, port } | null`
#[napi]
pub fn lease_redirect(text: String) -> Option<LeaseRedirect> {
    emq_id::redirect(&text).map(|r| LeaseRedirect {
        ask: r.ask,
        slot: u32::from(r.slot),
        host: r.host.map(str::to_string),
        port: u32::from(r.port),
    })
}

/// `leaseRefusal(outcome): void` — throws the first acquire's refusal when it
/// gives up on `outcome` (the core's `Keeper::refusal`), through the one error helper.
#[napi]
pub fn lease_refusal(name: String) -> Result<(), JsError> {
    match emq_id::Keeper::refusal(outcome(&name)?) {
        Some(e) => Err(gate(e)),
        None => Ok(()),
    }
}

/// `leaseRenewEveryMs(ttlMs, marginMs): number` — the terms' renewal period.
#[napi]
pub fn lease_renew_every_ms(ttl: f64, margin: f64) -> Result<f64, JsError> {
    Ok(terms(ttl, margin)?.renew_every_ms() as f64)
}

/// `leaseRetryMs(ttlMs, marginMs): number` — the terms' delay before a write that did not count is tried again.
#[napi]
pub fn lease_retry_ms(ttl: f64, margin: f64) -> Result<f64, JsError> {
    Ok(terms(ttl, margin)?.retry_ms() as f64)
}

/// What a settled write comes to: the action's name, and when the next write is due.
#[napi(object, object_from_js = false)]
pub struct LeaseStep {
    pub action: &'static str,
    pub after_ms: f64,
}

/// A holder's keeper of leases (the core's `Keeper`).
#[napi]
pub struct LeaseKeeper {
    inner: emq_id::Keeper,
}

#[napi]
impl LeaseKeeper {
    /// `new LeaseKeeper(ttlMs, marginMs (-1: the default), sinceMonoMs)`
    #[napi(constructor)]
    pub fn new(ttl: f64, margin: f64, since: f64) -> Result<LeaseKeeper, JsError> {
        Ok(LeaseKeeper { inner: emq_id::Keeper::starting(terms(ttl, margin)?, ms(since)?) })
    }

    /// `next(nowMonoMs): 'acquire' | 'renew' | 'expired' | 'release'` (the core's `Next::ALL` names)
    #[napi]
    pub fn next(&mut self, now: f64) -> Result<&'static str, JsError> {
        Ok(self.inner.next(ms(now)?).name())
    }

    /// `settle(outcome, sentMonoMs, nowMonoMs): { action, afterMs }`
    #[napi]
    pub fn settle(&mut self, name: String, sent: f64, now: f64) -> Result<LeaseStep, JsError> {
        let step = self.inner.settle(outcome(&name)?, ms(sent)?, ms(now)?);
        Ok(LeaseStep { action: step.action.name(), after_ms: step.after_ms as f64 })
    }

    /// `release()` — begins handing the held or pending lease back: `next` answers
    /// `release`, and `settle` follows, resends or ends it (`released`, `give_up`).
    #[napi]
    pub fn release(&mut self) {
        self.inner.release();
    }

    #[napi(getter)]
    pub fn phase(&self) -> &'static str {
        self.inner.phase().name()
    }

    #[napi(getter)]
    pub fn asked(&self) -> bool {
        self.inner.asked()
    }
}
