package holder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// lease is one lease and its minter.
type lease struct {
	minter *emqid.LeasedMinter
	token  string
	held   Held
}

// keeper is the holder's loop: go-redis I/O around the core's LeaseKeeper,
// which decides which write is due, when, and what each write came to. It
// runs in one goroutine at a time: Acquire's (the first acquire), then its
// own, then Release's.
//
// Each step: ask the core which write is due (an acquire, from a random node
// and with now no earlier than one past this holder's last minted ms, so its
// ids keep their order; or a renewal of the held or pending lease; or, once
// no write of the held lease was answered for a whole TTL, lose it and
// acquire), send it with its WAIT on one connection, read what it came to,
// and do what the core settles: publish, renew, keep pending, lose, follow
// an ASK, find the primary again, or give up (the first acquire only). A
// release is the core's too: sent until the core settles it released or
// gives up.
type keeper struct {
	lease    *Lease
	wire     *wire
	core     *emqid.LeaseKeeper
	terms    emqid.LeaseTerms
	retry    time.Duration // the terms' delay after a write that did not count
	held     *lease        // published: minted on
	pending  *lease        // taken, its acquire not acknowledged: nothing minted on it
	ordinals uint32
	// notBefore is one past this holder's last minted ms: no later lease starts before it.
	notBefore uint64
}

// write is one lease write: the script, its arguments, when it was sent, and
// what it is for.
type write struct {
	script emqid.LeaseScript
	args   []any
	sent   uint64 // MonotonicMs
	// An acquire: its token and the now it sent; the lease, once the reply names a node.
	acquire bool
	token   string
	nowMs   int64
	taken   *lease
	// A renewal: the lease renewed and the mark it sent.
	renewed *lease
	mark    uint64
	// A renewal or release that ran: whether it answered 0 (the lease gone or another's).
	gone bool
}

// came is what one write came to: the core's reading of it, the replies, and
// the holder's own fault (nil: none).
type came struct {
	outcome emqid.Outcome
	got     sent
	fault   error
}

func newKeeper(rdb client, replicas int, terms emqid.LeaseTerms) (*keeper, error) {
	w, err := newWire(rdb, replicas, terms)
	if err != nil {
		return nil, err
	}
	retry, err := terms.Retry()
	if err != nil {
		return nil, err
	}
	core, err := emqid.NewLeaseKeeper(terms, emqid.MonotonicMs())
	if err != nil {
		return nil, err
	}
	return &keeper{wire: w, core: core, terms: terms, retry: retry}, nil
}

func (k *keeper) ttlMs() uint64 { return uint64(k.terms.TTL.Milliseconds()) }

// close drops the connection and frees the core's keeper.
func (k *keeper) close() {
	k.wire.close()
	k.core.Close()
}

// start is the first acquire, in the caller's goroutine: tried until the
// lease is published (then when the first renewal is due), or refused.
func (k *keeper) start(ctx context.Context) (time.Duration, error) {
	for {
		after, refused := k.step(ctx)
		switch {
		case refused != nil:
			return 0, refused
		case k.held != nil:
			return after, nil
		}
		if err := sleep(ctx, after); err != nil {
			return 0, fmt.Errorf("holder: acquire: %w", err)
		}
	}
}

// sleep waits d, or until ctx ends (its error).
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// run steps, each when the last said the next write is due, until ctx is cancelled.
func (k *keeper) run(ctx context.Context, after time.Duration) {
	timer := time.NewTimer(after)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		after, _ := k.step(ctx) // no refusal once started: the core never gives up then
		timer.Reset(after)
	}
}

// step is one write and what the core settles of it: when the next is due,
// or (the first acquire giving up) the refusal.
func (k *keeper) step(ctx context.Context) (time.Duration, error) {
	now := emqid.MonotonicMs()
	k.fenced(now)
	next, err := k.core.Next(now)
	if err != nil {
		return k.retry, fmt.Errorf("holder: %w", err)
	}
	if next == emqid.NextExpired {
		k.lose()
	}
	w, err := k.prepare(next)
	step, c, err := k.exchange(ctx, &w, err)
	if err != nil {
		return k.retry, err
	}
	switch step.Action {
	case emqid.ActionPublish:
		k.publish(&w)
	case emqid.ActionRenewed:
		if err := w.renewed.minter.Renewed(w.sent, w.mark); err == nil {
			k.lease.leasedAgain()
		}
	case emqid.ActionPend:
		k.pending = w.taken
	case emqid.ActionLose:
		k.drop(w.renewed)
	case emqid.ActionGiveUp:
		return 0, k.refusal(ctx, &w, c)
	}
	// Wait, retry, reroute, reconnect: nothing moves with the lease (exchange saw to the connection).
	return step.After, nil
}

// exchange sends w — unless preparing it failed (prepared: the holder's own
// fault, nothing sent) — and settles what it came to with the core,
// following an ASK once: the core's step, and what the write came to. A
// reroute, a fault or giving up drops the connection (a MOVED's node is
// where the next one goes, and a cluster client refreshes its slot map).
func (k *keeper) exchange(ctx context.Context, w *write, prepared error) (emqid.Step, came, error) {
	c := came{got: sent{fault: prepared}}
	if prepared == nil {
		c.got = k.wire.write(ctx, w.script, w.args...)
	}
	c.outcome, c.fault = k.read(w, c.got, false)
	for {
		step, err := k.core.Settle(c.outcome, w.sent, emqid.MonotonicMs())
		if err != nil {
			return step, c, fmt.Errorf("holder: %w", err)
		}
		switch step.Action {
		case emqid.ActionFollow:
			to, _ := emqid.ParseRedirect(c.got.text()) // an ASK names its node
			c.got = k.wire.follow(ctx, c.got, to, w.script, w.args...)
			c.outcome, c.fault = k.read(w, c.got, true)
			continue
		case emqid.ActionReroute:
			k.wire.moved(ctx, c.got)
		case emqid.ActionReconnect, emqid.ActionGiveUp:
			k.wire.reload(ctx)
		}
		return step, c, nil
	}
}

// prepare builds the write next asks for (a release is not the loop's:
// giveBack sends it); an error is the holder's own fault (nothing to send).
func (k *keeper) prepare(next emqid.NextWrite) (write, error) {
	sent := emqid.MonotonicMs()
	if next == emqid.NextRenew {
		x := k.held
		if x == nil {
			x = k.pending
		}
		if x == nil {
			return write{sent: sent}, errors.New("holder: a renewal with no lease")
		}
		mark, err := x.minter.NextMark(time.Now().UnixMilli())
		w := write{script: emqid.LeaseRenew, args: []any{x.token, k.ttlMs(), mark, x.held.Node}, sent: sent,
			renewed: x, mark: mark}
		return w, err
	}
	token, err := freshToken()
	if err != nil {
		return write{sent: sent}, err
	}
	start := mathrand.IntN(emqid.LeaseNodes)
	now := max(time.Now().UnixMilli(), int64(min(k.notBefore, 1<<62)))
	w := write{script: emqid.LeaseAcquire, args: []any{token, k.ttlMs(), start, emqid.LeaseNodes, now}, sent: sent,
		acquire: true, token: token, nowMs: now}
	// A clock the contract cannot hold is refused before a node is taken (a
	// dry start: the same checks on the same clock, no node involved).
	dry, err := emqid.StartLeasedMinter(emqid.Acquired{Node: 0, PreviousMark: -1}, now, sent, k.terms)
	if err != nil {
		return w, err
	}
	dry.Close()
	return w, nil
}

// read is what the write came to, by the core's reading of its replies; for
// a fault, the holder's own error when it has one.
func (k *keeper) read(w *write, got sent, asked bool) (emqid.Outcome, error) {
	switch {
	case got.fault != nil:
		return emqid.OutcomeFault, got.fault
	case got.refused != nil:
		return emqid.ReadLeaseError(got.text(), asked), nil
	case w.acquire:
		x, err := k.taken(w, got)
		if err != nil {
			return emqid.OutcomeFault, err
		}
		w.taken = x
	default: // a renewal or a release
		gone, err := renewal(got)
		if err != nil {
			return emqid.OutcomeFault, err
		}
		w.gone = gone
		if gone {
			return emqid.OutcomeGone, nil
		}
	}
	return emqid.OutcomeOfWrite(true, got.acknowledged == nil), nil
}

// taken is the lease an acquire's reply names, its minter started. Only a
// mark near the end of the contract's time fails to start: the node is left
// to its TTL, and the error says why.
func (k *keeper) taken(w *write, got sent) (*lease, error) {
	pair, err := got.reply.Int64Slice()
	if err != nil || len(pair) != 2 {
		return nil, fmt.Errorf("acquire answered %v, not {node, previous mark}", got.reply.Val())
	}
	acquired, err := emqid.ParseAcquire(pair[0], pair[1])
	if err != nil {
		return nil, fmt.Errorf("acquire's reply: %w", err)
	}
	minter, err := emqid.StartLeasedMinter(acquired, w.nowMs, w.sent, k.terms)
	if err != nil {
		return nil, err
	}
	k.ordinals++
	return &lease{minter: minter, token: w.token,
		held: Held{Node: acquired.Node, PreviousMark: acquired.PreviousMark, Ordinal: k.ordinals}}, nil
}

// publish makes the lease the write took, or the pending lease it renewed, the one minted on.
func (k *keeper) publish(w *write) {
	x := w.taken
	if !w.acquire {
		x = w.renewed
		_ = x.minter.Renewed(w.sent, w.mark) // a live minter: nothing to refuse
		k.pending = nil
	}
	k.held = x
	k.lease.publish(x)
	k.lease.count(true, false)
}

// fenced counts a held lease whose fence closed as time without a lease.
func (k *keeper) fenced(now uint64) {
	if k.held == nil {
		return
	}
	if fence, err := k.held.minter.FenceMs(); err == nil && now >= fence {
		k.lease.unleased()
	}
}

// lose stops the held lease's minter and unpublishes it, counted as lost.
func (k *keeper) lose() {
	x := k.held
	if x == nil {
		return
	}
	k.held = nil
	x.minter.Stop()
	if hw, err := x.minter.HighWater(); err == nil {
		k.notBefore = max(k.notBefore, hw+1)
	}
	k.lease.publish(nil)
	k.lease.count(false, true)
}

// drop stops minting on x, gone: lost when it was held, dropped when pending.
func (k *keeper) drop(x *lease) {
	switch x {
	case k.held:
		k.lose()
	case k.pending:
		k.pending = nil
		x.minter.Stop()
	}
}

// refusal is the first acquire's refusal: WAIT's (the taken lease released
// first); the core's for the outcome — followed by the server's reply, which
// names the state, when the reserve did not run the acquire for a TTL; or
// the holder's own fault.
func (k *keeper) refusal(ctx context.Context, w *write, c came) error {
	if c.outcome == emqid.OutcomeUnacknowledged && w.taken != nil {
		_, _ = k.giveBack(ctx, w.taken, false)
		return c.got.acknowledged
	}
	var core *emqid.Error
	if !errors.As(emqid.LeaseRefusal(c.outcome), &core) {
		return c.failure("acquire")
	}
	if c.outcome == emqid.OutcomeNotRun || c.outcome == emqid.OutcomeMoved {
		return &emqid.Error{Gate: core.Gate, Detail: core.Detail + ": " + c.got.text()}
	}
	return core
}

// failure is the error of a write the core gave up on with no refusal of its
// own: the holder's fault, or the server's reply ("holder: release: <reply>").
func (c came) failure(what string) error {
	switch {
	case c.fault != nil:
		return fmt.Errorf("holder: %s: %w", what, c.fault)
	case c.got.refused != nil: // a reply the protocol does not give, or a second redirect
		return fmt.Errorf("holder: %s: %w", what, c.got.refused)
	default:
		return fmt.Errorf("holder: %s: the write came to %v", what, c.outcome)
	}
}

// release stops minting and releases what is held or pending: true when a
// held lease was handed back.
func (k *keeper) release(ctx context.Context) (bool, error) {
	x, wasHeld := k.held, k.held != nil
	k.held = nil
	if x == nil {
		x, k.pending = k.pending, nil
	}
	k.lease.publish(nil)
	if x == nil {
		return false, nil
	}
	return k.giveBack(ctx, x, wasHeld)
}

// giveBack stops x's minter and hands its node back with its high water,
// through the core's release: the release (not waited on: losing it in a
// failover leaves the mark higher, which is safe) is followed through an
// ASK, and sent again where a MOVED names or after a refusal not run (the
// retry delay is slept though the holder is stopping, unless ctx ends),
// until it ran — true when wasHeld and the lease was still the owner's — or
// the core gives up: the lease is left to its TTL, and the error says why.
func (k *keeper) giveBack(ctx context.Context, x *lease, wasHeld bool) (bool, error) {
	x.minter.Stop()
	hw, err := x.minter.HighWater()
	if err != nil {
		return false, err
	}
	if err := k.core.Release(); err != nil {
		return false, fmt.Errorf("holder: release: %w", err)
	}
	for {
		w := write{script: emqid.LeaseRelease, args: []any{x.token, hw, x.held.Node}, sent: emqid.MonotonicMs()}
		step, c, err := k.exchange(ctx, &w, nil)
		switch {
		case err != nil:
			return false, err
		case step.Action == emqid.ActionReleased:
			return wasHeld && !w.gone, nil
		case step.Action == emqid.ActionGiveUp:
			return false, c.failure("release")
		}
		if err := sleep(ctx, step.After); err != nil {
			return false, fmt.Errorf("holder: release: %w", err)
		}
	}
}

// renewal reads a renew or release reply: gone, or a reply the protocol does not give.
func renewal(got sent) (bool, error) {
	n, err := got.reply.Int64()
	if err != nil {
		return false, fmt.Errorf("renew answered %v: %w", got.reply.Val(), err)
	}
	switch err := emqid.ParseRenewal(n); {
	case err == nil:
		return false, nil
	case errors.Is(err, emqid.ErrNode):
		return true, nil
	default:
		return false, err
	}
}

// freshToken is a lease's owner token: 128 random bits, so no other owner
// (another process, or this one's earlier lease) holds the same.
func freshToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("holder: token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
