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

// keeper is the holder's state machine, run by one goroutine (and by
// Acquire and Release before and after it):
//
//   - held (published: minted on): renewed every third of the TTL; an
//     acknowledged renewal moves the fence and the mark, an unacknowledged
//     one is tried again soon and moves nothing; a renewal answered gone
//     stops the minter and another node is taken at once; so is a lease no
//     renewal reached for a whole TTL (it has expired on the server).
//   - pending (taken, its acquire not acknowledged: nothing minted on it):
//     renewed until a renewal is acknowledged (then published) or answered gone.
//   - neither: acquire from a random node, with now no earlier than one past
//     this holder's last minted millisecond, so its ids keep their order.
//
// Any fault (a connection, MOVED, CLUSTERDOWN) makes a cluster client reload
// its slot map; the write is tried again soon.
type keeper struct {
	lease    *Lease
	wire     wire
	terms    emqid.LeaseTerms
	retry    time.Duration
	held     *lease
	pending  *lease
	ordinals uint32
	// answeredAt is when the held lease's last write the server answered was
	// sent (MonotonicMs): a TTL later it has expired there.
	answeredAt uint64
	// notBefore is one past this holder's last minted ms: no later lease starts before it.
	notBefore uint64
}

func newKeeper(rdb client, replicas int, terms emqid.LeaseTerms, retry time.Duration) (*keeper, error) {
	w, err := newWire(rdb, replicas, terms)
	if err != nil {
		return nil, err
	}
	return &keeper{wire: w, terms: terms, retry: retry}, nil
}

func (k *keeper) ttlMs() uint64 { return uint64(k.terms.TTL.Milliseconds()) }

func (k *keeper) every() time.Duration { return max(k.terms.TTL/3, time.Millisecond) }

// run ticks until ctx is cancelled.
func (k *keeper) run(ctx context.Context) {
	timer := time.NewTimer(k.every())
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		timer.Reset(k.tick(ctx))
	}
}

// tick is one step of the state machine; it answers when the next is due.
func (k *keeper) tick(ctx context.Context) time.Duration {
	k.expireFenced()
	var done bool
	var err error
	switch {
	case k.held != nil:
		done, err = k.renewHeld(ctx)
	case k.pending != nil:
		done, err = k.renewPending(ctx)
	default:
		var refusal error
		refusal, err = k.acquire(ctx)
		done = err == nil && refusal == nil
	}
	switch {
	case err != nil:
		k.wire.reload(ctx)
		return k.retry
	case done:
		return k.every() // renewed, or just taken: the next renewal a third of the TTL on
	default:
		return k.retry
	}
}

// expireFenced counts a held lease whose fence closed as time without a
// lease, and gives it up a whole TTL after the last write the server answered.
func (k *keeper) expireFenced() {
	if k.held == nil {
		return
	}
	now := emqid.MonotonicMs()
	if fence, err := k.held.minter.FenceMs(); err == nil && now >= fence {
		k.lease.unleased()
	}
	if now >= k.answeredAt+k.ttlMs() {
		k.lose()
	}
}

// lose stops the held lease's minter and unpublishes it.
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

// publish makes x the lease minted on.
func (k *keeper) publish(x *lease, answeredAt uint64) {
	k.held, k.answeredAt = x, answeredAt
	k.lease.publish(x)
	k.lease.count(true, false)
}

// acquire takes a node. A nil refusal: held (acknowledged); else every node
// leased, a clock the contract cannot hold, or the acquire not acknowledged
// (then pending). err: a fault.
func (k *keeper) acquire(ctx context.Context) (refusal, err error) {
	token, err := freshToken()
	if err != nil {
		return nil, err
	}
	start := mathrand.IntN(emqid.LeaseNodes)
	now := max(time.Now().UnixMilli(), int64(min(k.notBefore, 1<<62)))
	sent := emqid.MonotonicMs()
	// A clock the contract cannot hold is refused before a node is taken (a
	// dry start: the same checks on the same clock, no node involved).
	dry, err := emqid.StartLeasedMinter(emqid.Acquired{Node: 0, PreviousMark: -1}, now, sent, k.terms)
	if err != nil {
		return err, nil
	}
	dry.Close()
	w, err := k.wire.write(ctx, emqid.LeaseAcquire, []string{emqid.LeaseKey},
		token, k.ttlMs(), start, emqid.LeaseNodes, now)
	if err != nil {
		return nil, err
	}
	if w.refused != nil {
		return w.refused, nil
	}
	pair, err := w.reply.Int64Slice()
	if err != nil || len(pair) != 2 {
		return nil, fmt.Errorf("acquire answered %v, not {node, previous mark}", w.reply.Val())
	}
	acquired, err := emqid.ParseAcquire(pair[0], pair[1])
	if err != nil {
		return nil, fmt.Errorf("acquire's reply: %w", err)
	}
	// Only a mark near the end of the contract's time fails here: the node is
	// left to its TTL, and the refusal says why.
	minter, err := emqid.StartLeasedMinter(acquired, now, sent, k.terms)
	if err != nil {
		return err, nil
	}
	k.ordinals++
	x := &lease{minter: minter, token: token,
		held: Held{Node: acquired.Node, PreviousMark: acquired.PreviousMark, Ordinal: k.ordinals}}
	if w.acknowledged != nil {
		k.pending = x
		return w.acknowledged, nil
	}
	k.publish(x, sent)
	return nil, nil
}

// renew sends x's renewal: the write, when it was sent, and the mark it carried.
func (k *keeper) renew(ctx context.Context, x *lease) (written, uint64, uint64, error) {
	sent := emqid.MonotonicMs()
	mark, err := x.minter.NextMark(time.Now().UnixMilli())
	if err != nil {
		return written{}, 0, 0, err
	}
	w, err := k.wire.write(ctx, emqid.LeaseRenew, []string{emqid.LeaseKey}, x.token, k.ttlMs(), mark, x.held.Node)
	if err == nil && w.refused == nil {
		w.gone, err = renewal(w)
	}
	return w, sent, mark, err
}

// renewHeld renews the held lease: true when acknowledged (or another taken at once).
func (k *keeper) renewHeld(ctx context.Context) (bool, error) {
	x := k.held
	w, sent, mark, err := k.renew(ctx, x)
	switch {
	case err != nil:
		return false, err
	case w.refused != nil: // NOREPLICAS: the renewal did not run
		return false, nil
	case w.gone:
		k.lose()
		// Another node at once: the fleet's nodes are few to spare.
		refusal, err := k.acquire(ctx)
		return err == nil && refusal == nil, err
	case w.acknowledged != nil:
		k.answeredAt = sent // still this holder's on the primary: kept, fenced
		return false, nil
	default:
		if err := x.minter.Renewed(sent, mark); err != nil {
			return false, err
		}
		k.answeredAt = sent
		k.lease.leasedAgain()
		return true, nil
	}
}

// renewPending renews the pending lease: published once a renewal is acknowledged.
func (k *keeper) renewPending(ctx context.Context) (bool, error) {
	x := k.pending
	w, sent, mark, err := k.renew(ctx, x)
	switch {
	case err != nil:
		return false, err
	case w.refused != nil:
		return false, nil
	case w.gone: // lost before it counted (a failover took it): take another
		k.pending = nil
		x.minter.Stop()
		refusal, err := k.acquire(ctx)
		return err == nil && refusal == nil, err
	case w.acknowledged != nil:
		return false, nil
	default:
		if err := x.minter.Renewed(sent, mark); err != nil {
			return false, err
		}
		k.pending = nil
		k.publish(x, sent)
		return true, nil
	}
}

// release stops minting and releases what is held or pending: true when a
// held lease was handed back. The release is not waited on: losing it in a
// failover leaves the mark higher, which is safe.
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
	x.minter.Stop()
	hw, err := x.minter.HighWater()
	if err != nil {
		return false, err
	}
	w, err := k.wire.unacknowledged().write(ctx, emqid.LeaseRelease, []string{emqid.LeaseKey}, x.token, hw, x.held.Node)
	if err != nil {
		k.wire.reload(ctx)
		return false, fmt.Errorf("holder: release: %w", err)
	}
	if w.refused != nil {
		return false, w.refused
	}
	gone, err := renewal(w)
	return err == nil && !gone && wasHeld, err
}

// renewal reads a renew or release reply: gone, or a reply the protocol does not give.
func renewal(w written) (bool, error) {
	n, err := w.reply.Int64()
	if err != nil {
		return false, fmt.Errorf("renew answered %v: %w", w.reply.Val(), err)
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
