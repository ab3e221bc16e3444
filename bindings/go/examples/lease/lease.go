// Command lease is a documented example of a node lease on Valkey
// (emq-lease/2, SPEC.md §5.2) held with go-redis: Acquire takes a free node
// with the protocol's acquire script, a goroutine renews it every third of
// its TTL, Lease.Mint mints on it, and Release hands the node back with its
// high-water mark. The scripts, keys, reply parsing and minter arithmetic are
// emqid's (the core's, through the C ABI): this file only moves them over
// go-redis, as crates/emq-lease does over its own socket.
//
// It is its own module, so the emqid package carries no go-redis dependency.
//
//	go run . -addr 127.0.0.1:6379 -n 3
//
// prints three ids minted on a leased node, one per line, and exits 0 once
// the lease is released.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mathrand "math/rand/v2"
	"sync"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// The protocol's scripts as go-redis runs them: EVALSHA, and EVAL when the
// server does not know the script yet (NOSCRIPT). The text is the library's,
// byte for byte, so the SHA-1 is the one the vector file pins.
var (
	acquireScript = redis.NewScript(emqid.LeaseAcquire.Text)
	renewScript   = redis.NewScript(emqid.LeaseRenew.Text)
	releaseScript = redis.NewScript(emqid.LeaseRelease.Text)
)

// Lease is a held node lease and its minter.
type Lease struct {
	// Minter mints on the leased node; share it between goroutines.
	Minter *emqid.LeasedMinter
	// PreviousMark is the node's mark when this lease took it (unix ms; -1:
	// never leased before): its first id sorts after it.
	PreviousMark int64

	rdb             redis.Scripter
	token           string
	leaseKey, mark  string
	ttlMs           uint64
	stop, renewerOK chan struct{}
	release         sync.Once
	released        bool
	releaseErr      error
	lost            error // set by the renewer before it ends, read after renewerOK closes
}

// Acquire takes a free node, trying nodes from a random one on, and renews
// it in a goroutine every third of terms.TTL until Release. rdb is a
// *redis.Client on a standalone server, or a *redis.ClusterClient (the
// protocol's keys share one hash slot, {emq}, so every script runs on one
// primary). Every node leased is emqid.ErrNode; any other failure is the
// client's error, wrapped.
//
// Terms are checked before anything is sent, so bad terms never take a node.
func Acquire(ctx context.Context, rdb redis.Scripter, terms emqid.LeaseTerms) (*Lease, error) {
	return acquireFrom(ctx, rdb, terms, mathrand.IntN(emqid.LeaseNodes))
}

// acquireFrom is Acquire trying nodes from first on.
func acquireFrom(ctx context.Context, rdb redis.Scripter, terms emqid.LeaseTerms, first int) (*Lease, error) {
	terms, err := emqid.NewLeaseTerms(terms.TTL, terms.Margin)
	if err != nil {
		return nil, err
	}
	token, err := freshToken()
	if err != nil {
		return nil, err
	}
	ttlMs := uint64(terms.TTL.Milliseconds())
	// The script's "now" and the monotonic reading the fence counts from,
	// both taken before the script is sent.
	now, sent := time.Now().UnixMilli(), emqid.MonotonicMs()
	reply, err := acquireScript.Run(ctx, rdb, []string{emqid.LeasePrefix()},
		token, ttlMs, first, emqid.LeaseNodes, now).Int64Slice()
	if err != nil {
		var server redis.Error
		if errors.As(err, &server) {
			if refusal := emqid.ParseAcquireError(server.Error()); refusal != nil {
				return nil, refusal
			}
		}
		return nil, fmt.Errorf("lease: acquire: %w", err)
	}
	if len(reply) != 2 {
		return nil, fmt.Errorf("lease: acquire answered %v, not {node, previous mark}", reply)
	}
	acquired, err := emqid.ParseAcquire(reply[0], reply[1])
	if err != nil {
		return nil, err
	}
	minter, err := emqid.StartLeasedMinter(acquired, now, sent, terms)
	if err != nil {
		// Only a mark past the 41-bit time limit gets here: the node stays
		// leased until its TTL runs out, and its mark as acquire raised it.
		return nil, err
	}
	leaseKey, err := emqid.LeaseKey(acquired.Node)
	if err != nil {
		return nil, err
	}
	mark, err := emqid.MarkKey(acquired.Node)
	if err != nil {
		return nil, err
	}
	l := &Lease{
		Minter:       minter,
		PreviousMark: acquired.PreviousMark,
		rdb:          rdb,
		token:        token,
		leaseKey:     leaseKey,
		mark:         mark,
		ttlMs:        ttlMs,
		stop:         make(chan struct{}),
		renewerOK:    make(chan struct{}),
	}
	go l.renew(terms.TTL / 3)
	return l, nil
}

// Node is the leased node.
func (l *Lease) Node() int { return l.Minter.Node() }

// Mint mints an id of namespace ns on the leased node. emqid.ErrNode once
// the lease is lost or fenced (not renewed in time), or during a burst that
// reached the lease's mark (the next renewal raises it).
func (l *Lease) Mint(ns string) (emqid.ID, error) {
	s, err := l.Minter.Next()
	if err != nil {
		return emqid.ID{}, err
	}
	return emqid.NewID(ns, s)
}

// renew raises the mark and extends the lease every period. A renewal that
// fails (Valkey unreachable, a timeout) is tried again at the next tick: the
// fence closes by itself if none succeeds in time. A renewal answered "lost"
// stops the minter at once and ends the renewer.
func (l *Lease) renew(every time.Duration) {
	defer close(l.renewerOK)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		sent := emqid.MonotonicMs()
		mark, err := l.Minter.NextMark(time.Now().UnixMilli())
		if err != nil {
			return // the minter is closed
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		answer, err := renewScript.Run(ctx, l.rdb, []string{l.leaseKey, l.mark}, l.token, l.ttlMs, mark).Int64()
		cancel()
		if err != nil {
			continue
		}
		if err := emqid.ParseRenewal(answer); err != nil {
			l.Minter.Stop()
			l.lost = err
			return
		}
		if err := l.Minter.Renewed(sent, mark); err != nil {
			return
		}
	}
}

// Release stops minting and renewing, and hands the node back with its
// high-water mark, so the next owner starts right after this lease's last
// id. It answers false when the lease was already gone or another's (lost:
// the node's mark stays where the renewals raised it), and is safe to call
// more than once. It frees the minter: mint nothing on the Lease after it.
func (l *Lease) Release(ctx context.Context) (bool, error) {
	l.release.Do(func() {
		l.Minter.Stop() // no id from here on, so the high water is final
		close(l.stop)
		<-l.renewerOK // no renewal in flight, none after the release
		// No Close here: other goroutines may still hold l.Minter (it refuses
		// with ErrNode from now on); its finalizer frees it once none does.
		if l.lost != nil {
			return
		}
		highWater, err := l.Minter.HighWater()
		if err != nil {
			l.releaseErr = err
			return
		}
		answer, err := releaseScript.Run(ctx, l.rdb, []string{l.leaseKey, l.mark}, l.token, highWater).Int64()
		if err != nil {
			l.releaseErr = fmt.Errorf("lease: release: %w", err)
			return
		}
		switch err := emqid.ParseRenewal(answer); {
		case err == nil:
			l.released = true
		case !errors.Is(err, emqid.ErrNode):
			l.releaseErr = err
		}
	})
	return l.released, l.releaseErr
}

// freshToken is the lease's owner token: 128 random bits, so no other owner
// (another process, or this one's earlier lease) ever holds the same.
func freshToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lease: token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
