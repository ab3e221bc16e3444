// Package holder holds a node lease on Valkey (emq-lease/3, SPEC.md §5.2)
// in one call, over the go-redis client you already have:
//
//	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: seeds})
//	lease, err := holder.Acquire(ctx, rdb, holder.Options{Replicas: 1})
//	if err != nil {
//		return err // emqid.ErrNode: every node leased, no replica acknowledged, or the cluster down for a TTL
//	}
//	defer lease.Release(context.Background())
//	id, err := lease.Mint("JOB")
//
// Acquire returns once the acquire is acknowledged by Options.Replicas
// replicas (WAIT on the same connection). A goroutine then renews the lease
// every third of its TTL, follows a failover to the new primary (a
// *redis.ClusterClient reloads its slot map) and a slot migration (an ASK is
// followed to the node it names: ASKING, the script and its WAIT on one
// connection), and when the lease is lost or not renewed for a whole TTL
// takes another node by itself, its first id after every id this holder
// minted before. Next and Mint mint on whichever lease is held, and are
// refused with emqid.ErrNode while none is. Release hands the node back with
// its high-water mark.
//
// Each lease write goes over a connection of its own to the node (a client
// made with the given client's options, without retries): go-redis re-runs
// a pipeline whose reply timed out while retries are on, and a lease write
// that may have run is never sent twice. The given client finds the node.
//
// What each write came to, what to do with it and when to write again are
// the core's decisions (emqid.LeaseKeeper, through libemqid), as are the
// scripts, their key, reply parsing, the acknowledgement rule and the
// minter: this package only moves them over go-redis. It is a module of its
// own, so the emqid module carries no go-redis dependency.
package holder

import (
	"context"
	"fmt"
	"sync"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// NoReplicas as Options.Replicas: no replica acknowledges a lease write, for a
// reserve whose primary has none. A failover (if one can happen) may then lose
// a lease and let two processes mint on one node (SPEC.md §5.2).
const NoReplicas = -1

// Options is how a holder keeps its lease; the zero value is the defaults.
type Options struct {
	// Replicas that must acknowledge each lease write before it counts: 0
	// means emqid.LeaseReplicas; NoReplicas for a reserve without replicas.
	Replicas int
	// Terms is the lease's TTL and fence margin: the zero value means
	// emqid.DefaultLeaseTerms.
	Terms emqid.LeaseTerms
}

// replicas is the count WAIT is given.
func (o Options) replicas() int {
	switch {
	case o.Replicas == NoReplicas:
		return 0
	case o.Replicas == 0:
		return emqid.LeaseReplicas
	default:
		return o.Replicas
	}
}

// terms is the terms asked for, checked by the core.
func (o Options) terms() (emqid.LeaseTerms, error) {
	if o.Terms == (emqid.LeaseTerms{}) {
		return emqid.DefaultLeaseTerms, nil
	}
	return emqid.NewLeaseTerms(o.Terms.TTL, o.Terms.Margin)
}

// Retry is how soon a failed or unacknowledged write, or a refused acquire, is
// tried again: the terms' emqid.LeaseTerms.Retry (a twentieth of the TTL,
// within 10 to 250 ms); the default terms' for terms the core refuses.
func (o Options) Retry() time.Duration {
	terms, err := o.terms()
	if err != nil {
		terms = emqid.DefaultLeaseTerms
	}
	retry, err := terms.Retry()
	if err != nil {
		retry, _ = emqid.DefaultLeaseTerms.Retry()
	}
	return retry
}

// Held is a lease this holder holds.
type Held struct {
	// Node is the leased node.
	Node int
	// PreviousMark is the node's mark when this lease took it (unix ms; -1:
	// never leased before).
	PreviousMark int64
	// Ordinal is which of this holder's leases it is: 1 for the first, 2
	// after one re-acquisition...
	Ordinal uint32
}

// Minted is a snowflake and the lease that minted it.
type Minted struct {
	Snowflake uint64
	// Lease is the Held.Ordinal of the lease that minted it.
	Lease uint32
}

// Stats is how the holder has fared.
type Stats struct {
	// Taken is leases taken and acknowledged, the first one included.
	Taken uint32
	// Lost is leases lost: answered gone, or not renewed for a whole TTL.
	Lost uint32
	// Unleased is how long the holder has been unable to mint, if it is now.
	Unleased time.Duration
	// LongestUnleased is the longest time it was unable to mint, ended or not.
	LongestUnleased time.Duration
}

// Lease is a held node lease: renewed, re-acquired and released by a
// goroutine, minted on by any goroutine. Release it when done: until then
// (or until the process ends) its goroutine keeps the node leased.
type Lease struct {
	mu      sync.RWMutex
	current *lease // published: minted on

	statsMu sync.Mutex
	taken   uint32
	lost    uint32
	since   time.Time // unable to mint since (zero: able)
	longest time.Duration

	k       *keeper
	cancel  context.CancelFunc
	stopped chan struct{}

	release    sync.Once
	released   bool
	releaseErr error
}

// Acquire takes a free node through rdb, a *redis.Client (a standalone server,
// or a Sentinel's failover client) or a *redis.ClusterClient (the protocol's
// one key, emqid.LeaseKey, is in the {emq} hash slot), trying nodes from a random one on, and
// returns once the acquire is acknowledged by opts' replicas. A write the
// server did not run (TRYAGAIN, CLUSTERDOWN, LOADING, NOREPLICAS...) or
// that was MOVED is tried again for up to a TTL. Refused with emqid.ErrNode
// when every node is leased, when the acquire was not acknowledged within
// the terms' WaitTimeout (the unacknowledged lease is released), or when the
// reserve did not run it for a whole TTL (the message ends with the
// server's reply, e.g. "CLUSTERDOWN The cluster is down"); emqid.ErrRange
// for terms the core refuses, or a client whose read timeout does not
// exceed WaitTimeout. Any other failure is the client's, wrapped.
func Acquire(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Lease, error) {
	terms, err := opts.terms()
	if err != nil {
		return nil, err
	}
	if opts.Replicas < NoReplicas {
		return nil, rangeError(fmt.Sprintf("replicas is NoReplicas, 0 (the default) or a count, not %d", opts.Replicas))
	}
	k, err := newKeeper(rdb, opts.replicas(), terms)
	if err != nil {
		return nil, err
	}
	l := &Lease{k: k, stopped: make(chan struct{})}
	k.lease = l
	// ctx bounds the first acquire whatever the client's read timeout: when
	// it ends, the holder's connections are cut and the waiting read returns.
	cut := context.AfterFunc(ctx, func() { k.wire.cut(context.Cause(ctx)) })
	after, err := k.start(ctx)
	if !cut() && err == nil {
		// ctx ended as the acquire answered: the wire is cut, so the lease
		// cannot be kept; it is left to its TTL (nothing was minted on it).
		err = context.Cause(ctx)
	}
	if err != nil {
		k.close()
		return nil, err
	}
	keep, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	go func() {
		defer close(l.stopped)
		k.run(keep, after)
	}()
	return l, nil
}

// Held is the lease held now, if any.
func (l *Lease) Held() (Held, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.current == nil {
		return Held{}, false
	}
	return l.current.held, true
}

// Stats is leases taken and lost, and the time without one.
func (l *Lease) Stats() Stats {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	s := Stats{Taken: l.taken, Lost: l.lost, LongestUnleased: l.longest}
	if !l.since.IsZero() {
		s.Unleased = time.Since(l.since)
		s.LongestUnleased = max(s.LongestUnleased, s.Unleased)
	}
	return s
}

// Next mints a snowflake on the lease held now. emqid.ErrNode while no lease
// is held (the holder is taking one), once the lease's fence has closed, or
// while a burst waits for the next renewal to raise its mark.
func (l *Lease) Next() (Minted, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.current == nil {
		return Minted{}, nodeError("no lease is held: the holder is taking one (its Stats say for how long)")
	}
	s, err := l.current.minter.Next()
	if err != nil {
		return Minted{}, err
	}
	return Minted{Snowflake: s, Lease: l.current.held.Ordinal}, nil
}

// Mint mints an id of namespace ns on the lease held now (as Next). A
// namespace the contract refuses is refused before an id is minted.
func (l *Lease) Mint(ns string) (emqid.ID, error) {
	if _, err := emqid.Encode(ns, 0); err != nil {
		return emqid.ID{}, err
	}
	m, err := l.Next()
	if err != nil {
		return emqid.ID{}, err
	}
	return emqid.NewID(ns, m.Snowflake)
}

// Release stops minting and renewing, and hands the node back with its
// high-water mark, so the next owner starts after this holder's last id. It
// answers false when no lease was held, or it was already gone or another's.
// The core's keeper settles it as any write: an ASK is followed, a MOVED or a
// refusal the server did not run is sent again (tried three times at most,
// the retry delay between, each try followed through one ASK at most); an
// error when it did not run (the server's reply, or the client's failure, or
// ctx's end): the lease is then left to its TTL. ctx bounds the whole call,
// whatever the client's read timeout (-1 and -2 wait for a reply without
// end): when it ends, the holder's connections are closed, which ends a
// write waiting for its reply (the keeper goroutine's renewal, or the
// release), and the error is ctx's.
// Safe to call more than once; minting is refused with emqid.ErrNode after it.
func (l *Lease) Release(ctx context.Context) (bool, error) {
	l.release.Do(func() {
		l.cancel()
		w := l.k.wire
		cut := context.AfterFunc(ctx, func() { w.cut(context.Cause(ctx)) })
		<-l.stopped // the keeper's state is this goroutine's now
		l.released, l.releaseErr = l.k.release(ctx)
		cut()
		l.k.close()
	})
	return l.released, l.releaseErr
}

// publish makes x the lease minted on (nil: none).
func (l *Lease) publish(x *lease) {
	l.mu.Lock()
	l.current = x
	l.mu.Unlock()
}

// unleased notes that the holder cannot mint from now on (if it could).
func (l *Lease) unleased() {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	if l.since.IsZero() {
		l.since = time.Now()
	}
}

// leasedAgain ends a time without a lease, if one was running.
func (l *Lease) leasedAgain() {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	l.leasedAgainLocked()
}

func (l *Lease) leasedAgainLocked() {
	if !l.since.IsZero() {
		l.longest = max(l.longest, time.Since(l.since))
		l.since = time.Time{}
	}
}

func (l *Lease) count(taken, lost bool) {
	l.statsMu.Lock()
	defer l.statsMu.Unlock()
	switch {
	case taken:
		l.taken++
		l.leasedAgainLocked()
	case lost:
		l.lost++
		if l.since.IsZero() {
			l.since = time.Now()
		}
	}
}

// nodeError is the gate node with this package's detail.
func nodeError(detail string) error {
	return &emqid.Error{Gate: emqid.ErrNode.Gate, Detail: detail}
}

// rangeError is the gate range with this package's detail.
func rangeError(detail string) error {
	return &emqid.Error{Gate: emqid.ErrRange.Gate, Detail: detail}
}
