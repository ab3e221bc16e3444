// The protocol translator shared by every JavaScript target (the Node package,
// the WASM package in Node, the WASM package in a browser): one request in,
// one answer out, through the package's public API. It uses no Node API, so
// the browser loads this same file. It translates; the runner judges.

const hex = {
  decode(text) {
    const out = new Uint8Array(text.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
    return out;
  },
  encode(bytes) {
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  },
};
const utf8 = new TextEncoder();

// Strings go through the string API; *_hex bytes through the Uint8Array API.
function input(r, name) {
  return r[`${name}_hex`] !== undefined ? hex.decode(r[`${name}_hex`]) : r[name];
}

export function translate(pkg, r) {
  const call = (f) => {
    try {
      return { ok: f() };
    } catch (e) {
      if (e instanceof pkg.EmqIdError) return { error: { gate: e.code, message: e.message } };
      return { unsupported: `${e && e.name}: ${e && e.message}` };
    }
  };
  switch (r.op) {
    case 'decode':
      return call(() => {
        const d = pkg.decode(input(r, 'text'));
        return {
          ns: d.ns,
          snowflake: d.snowflake.toString(),
          unix_ms: String(pkg.unixMs(d.snowflake)),
          node: pkg.node(d.snowflake),
          seq: pkg.seq(d.snowflake),
          hash32: pkg.hash32(d.snowflake),
        };
      });
    case 'encode':
      return call(() => ({ text: pkg.encode(r.ns, BigInt(r.snowflake)) }));
    case 'min_for':
      return call(() => ({ snowflake: pkg.minFor(BigInt(r.unix_ms)).toString() }));
    case 'mint':
      return call(() => {
        const minter = new pkg.Minter(r.node);
        return {
          steps: r.now_ms.map((now) => {
            try {
              return { snowflake: minter.nextAt(BigInt(now)).toString() };
            } catch (e) {
              if (e instanceof pkg.EmqIdError) return { gate: e.code };
              throw e;
            }
          }),
        };
      });
    case 'slot':
      return call(() => {
        const key = input(r, 'key');
        const tag = pkg.hashtag(key);
        return { slot: pkg.slot(key), hashtag_hex: hex.encode(typeof tag === 'string' ? utf8.encode(tag) : tag) };
      });
    case 'key':
      return call(() => ({ key: r.id === undefined ? pkg.key(r.queue, r.kind) : pkg.key(r.queue, r.kind, r.id) }));
    case 'parse_key':
      return call(() => pkg.parseKey(r.key));
    case 'reserve':
      return call(() => ({ key: pkg.reserve(r.name) }));
    case 'prefix_bytes':
      return call(() => ({ bytes: pkg.prefixBytes(r.queue, r.type) }));
    case 'queue_prefix':
      return call(() => ({ key: pkg.queuePrefix(r.queue) }));
    case 'job_prefix':
      return call(() => ({ key: pkg.jobPrefix(r.queue) }));
    case 'xadd_id':
      return call(() => ({ entry: pkg.xaddId(r.id) }));
    case 'from_xadd_id':
      return call(() => ({ id: pkg.fromXaddId(r.entry, r.ns) }));
    case 'lease_script':
      return call(() => ({ text: pkg.LEASE_SCRIPTS[r.name] }));
    case 'lease_keys':
      return call(() => ({ lease_key: pkg.LEASE_KEY }));
    case 'parse_acquire':
      return call(() => {
        const a = pkg.parseAcquire(r.node, r.previous);
        return { node: a.node, previous_mark: a.previousMark };
      });
    case 'parse_acquire_error':
      return call(() => {
        const refusal = pkg.parseAcquireError(r.message);
        if (refusal) throw refusal;
        return { refusal: false };
      });
    case 'parse_renewal':
      return call(() => (pkg.parseRenewal(r.reply), {}));
    case 'lease_wait':
      return call(() => {
        pkg.leaseTerms(r.ttl_ms, r.margin_ms);
        pkg.parseWait(r.reply, r.replicas);
        return { wait_ms: pkg.leaseWaitMs(r.ttl_ms, r.margin_ms) };
      });
    case 'lease_start':
      return call(() => {
        const m = new pkg.LeasedMinter({ node: r.node, previousMark: r.previous_mark }, r.now_ms, 0, { ttlMs: r.ttl_ms, marginMs: r.margin_ms });
        const snowflake = m.nextAt(r.now_ms, 0);
        return { snowflake: String(snowflake), fence_ms: m.fenceMs, next_mark: m.nextMark(r.now_ms) };
      });
    case 'lease_reply':
      return call(() => ({ outcome: pkg.readLeaseError(r.error, r.asked), redirect: pkg.redirect(r.error) }));
    case 'lease_keeper':
      return call(() => {
        const terms = { ttlMs: r.ttl_ms, marginMs: r.margin_ms };
        const keeper = new pkg.LeaseKeeper(terms, r.since);
        const steps = r.steps.map((s) => {
          if (s.release !== undefined) {
            keeper.release();
            return { phase: keeper.phase };
          }
          if (s.outcome === undefined) return { next: keeper.next(s.at), phase: keeper.phase };
          const { action, afterMs } = keeper.settle(s.outcome, s.sent, s.at);
          const step = { action, after_ms: afterMs, phase: keeper.phase };
          if (action === 'give_up') step.refusal = pkg.LeaseKeeper.refusal(s.outcome)?.code ?? null;
          return step;
        });
        return { renew_every_ms: pkg.leaseRenewEveryMs(r.ttl_ms, r.margin_ms), retry_ms: pkg.leaseRetryMs(r.ttl_ms, r.margin_ms), steps };
      });
    default:
      return { unsupported: `unknown op ${r.op}` };
  }
}
