package emqid

import (
	"fmt"
	"runtime"
	"time"
)

// The lease keeper's decisions (emq-lease/3, SPEC.md §5.2), the core's: what
// a holder writes next, when, and what each write came to. A holder is its
// Valkey client's I/O around them: ask a LeaseKeeper which write is due
// (Next), send it (the script and its WAIT, pipelined on one connection),
// read what it came to (ReadLeaseError for an error reply, OutcomeOfWrite
// otherwise), and Settle it: the Step says what to do with the lease and
// when to write again. A release goes through it too (Release, then the
// release sent and settled until ActionReleased or ActionGiveUp). The holder
// module beside this one is that loop over go-redis.

// Outcome is what one lease write came to.
type Outcome int32

// The outcomes, in the core's order.
const (
	// OutcomeCounted: the script ran, the lease is the owner's, and as many
	// replicas as wanted acknowledged it: the write counts.
	OutcomeCounted Outcome = abiOutcomeCounted
	// OutcomeUnacknowledged: the script ran and the lease is the owner's, but
	// fewer replicas than wanted acknowledged it (WAIT): it moves neither the
	// fence nor the mark.
	OutcomeUnacknowledged Outcome = abiOutcomeUnacknowledged
	// OutcomeGone: a renewal or release answered 0: the lease is gone or another's.
	OutcomeGone Outcome = abiOutcomeGone
	// OutcomeLeased: the acquire answered that every node is leased.
	OutcomeLeased Outcome = abiOutcomeLeased
	// OutcomeAsk: ASK, the reserve's slot is migrating. The same write, with
	// ASKING in front and its WAIT after, goes to the node ParseRedirect
	// names, at once and on one connection.
	OutcomeAsk Outcome = abiOutcomeAsk
	// OutcomeMoved: MOVED or READONLY, the script did not write: find the
	// reserve's primary again and write again.
	OutcomeMoved Outcome = abiOutcomeMoved
	// OutcomeNotRun: the server refused the script before it ran (TRYAGAIN,
	// CLUSTERDOWN, LOADING, MASTERDOWN, BUSY), or refused its first write
	// (NOREPLICAS, OOM, MISCONF): nothing was written, and the same write is
	// tried again soon, on the same connection.
	OutcomeNotRun Outcome = abiOutcomeNotRun
	// OutcomeFault: anything else (an error the protocol does not give, a
	// reply of the wrong shape, a dropped connection): whether the write ran
	// is unknown.
	OutcomeFault Outcome = abiOutcomeFault
)

// NextWrite is the write LeaseKeeper.Next asks for.
type NextWrite int32

// The writes, in the core's order.
const (
	// NextAcquire: take a node (LeaseAcquire).
	NextAcquire NextWrite = abiNextAcquire
	// NextRenew: renew the held or pending lease (LeaseRenew).
	NextRenew NextWrite = abiNextRenew
	// NextExpired: the held lease has expired on the server (no write of it
	// was answered for a whole TTL): stop minting on it and count it lost,
	// then acquire.
	NextExpired NextWrite = abiNextExpired
	// NextRelease: hand the lease back (LeaseRelease, without WAIT), once
	// LeaseKeeper.Release began it.
	NextRelease NextWrite = abiNextRelease
)

// Action is what a holder does with a write's outcome (LeaseKeeper.Settle).
type Action int32

// The actions, in the core's order.
const (
	// ActionPublish: the lease taken, or the pending lease renewed, counts:
	// tell its minter the renewal (a pending lease) and mint on it.
	ActionPublish Action = abiActionPublish
	// ActionRenewed: the held lease's renewal counts: LeasedMinter.Renewed.
	ActionRenewed Action = abiActionRenewed
	// ActionPend: the acquire ran but no replica acknowledged it: keep the
	// lease as pending, minting nothing on it.
	ActionPend Action = abiActionPend
	// ActionWait: a renewal ran but was not acknowledged: nothing moves.
	ActionWait Action = abiActionWait
	// ActionLose: the lease is gone: stop its minter (a held one counts as
	// lost), then acquire at once.
	ActionLose Action = abiActionLose
	// ActionFollow: ASK: send the same write to the node named, with ASKING
	// in front, now; settle what that write comes to.
	ActionFollow Action = abiActionFollow
	// ActionReroute: MOVED: find the reserve's primary again.
	ActionReroute Action = abiActionReroute
	// ActionRetry: the same write again, on the same connection.
	ActionRetry Action = abiActionRetry
	// ActionReconnect: a fault: drop the connection, then write again.
	ActionReconnect Action = abiActionReconnect
	// ActionGiveUp: the first acquire gives up: the caller gets LeaseRefusal's
	// refusal, WAIT's (ParseWait; the taken lease released first), or the
	// holder's own fault. While releasing: the release did not run (the lease
	// is left to its TTL), and the holder reports why (the server's reply, or
	// its own fault).
	ActionGiveUp Action = abiActionGiveUp
	// ActionReleased: the release ran: the lease is handed back (the script's
	// 1 or 0 says whether it was still the owner's).
	ActionReleased Action = abiActionReleased
)

// Phase is where a holder is with its lease.
type Phase int32

// The phases, in the core's order.
const (
	// PhaseStarting: the first acquire, in the caller's goroutine.
	PhaseStarting Phase = abiPhaseStarting
	// PhaseUnleased: no lease: the next write is an acquire.
	PhaseUnleased Phase = abiPhaseUnleased
	// PhasePending: a lease taken whose acquire no replica has acknowledged
	// yet: renewed until a renewal is acknowledged; nothing is minted on it.
	PhasePending Phase = abiPhasePending
	// PhaseHeld: the lease minted on.
	PhaseHeld Phase = abiPhaseHeld
	// PhaseReleasing: handing the lease back (LeaseKeeper.Release): the
	// release is sent until it runs, a few tries at most.
	PhaseReleasing Phase = abiPhaseReleasing
)

// The enumerations' names, read from the library at load.
var (
	outcomeNames = namesOf(abiLeaseOutcomeName)
	nextNames    = namesOf(abiLeaseNextName)
	actionNames  = namesOf(abiLeaseActionName)
	phaseNames   = namesOf(abiLeasePhaseName)
)

// namesOf is every name a name function of the library gives, from value 0
// to the first it has none for.
func namesOf(name func(int) (string, bool)) []string {
	var all []string
	for v := 0; ; v++ {
		n, ok := name(v)
		if !ok {
			return all
		}
		all = append(all, n)
	}
}

// nameIn is names[v], or kind(v) for a value that has none.
func nameIn(names []string, v int32, kind string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, v)
}

// String is the outcome's stable lowercase name, the core's ("counted", ..., "not_run", "fault").
func (o Outcome) String() string { return nameIn(outcomeNames, int32(o), "Outcome") }

// String is the write's stable lowercase name, the core's ("acquire", "renew", "expired", "release").
func (n NextWrite) String() string { return nameIn(nextNames, int32(n), "NextWrite") }

// String is the action's stable lowercase name, the core's ("publish", ..., "give_up", "released").
func (a Action) String() string { return nameIn(actionNames, int32(a), "Action") }

// String is the phase's stable lowercase name, the core's ("starting", ..., "held", "releasing").
func (p Phase) String() string { return nameIn(phaseNames, int32(p), "Phase") }

// ParseOutcome is the outcome of this name ("not_run"); ErrRange for a name no outcome has.
func ParseOutcome(name string) (Outcome, error) {
	for v, n := range outcomeNames {
		if n == name {
			return Outcome(v), nil
		}
	}
	return 0, rangeError(fmt.Sprintf("no lease write outcome is named %q", name))
}

// ReadLeaseError reads an error reply to a lease script (its message, as
// go-redis gives it) into what the write came to. asked says whether the
// write was sent after ASKING (following an ASK): a node that redirects it
// again is not followed a second time, and the write is OutcomeFault.
func ReadLeaseError(text string, asked bool) Outcome {
	outcome, st := abiReadLeaseError(text, asked)
	if st != statusOK {
		return OutcomeFault // the library could not answer: nothing is known of the write
	}
	return Outcome(outcome)
}

// OutcomeOfWrite is what a write whose script answered without an error came
// to: held when the script's answer holds the lease (ParseAcquire read a node,
// ParseRenewal answered nil), acknowledged when ParseWait answered nil for its
// WAIT (or no WAIT was wanted).
func OutcomeOfWrite(held, acknowledged bool) Outcome {
	return Outcome(abiLeaseOutcomeOfWrite(held, acknowledged))
}

// Redirect is where a MOVED or ASK reply sends a write.
type Redirect struct {
	// Ask: ASK (follow once, with ASKING) rather than MOVED.
	Ask bool
	// Slot is the slot the reply is about.
	Slot int
	// Host is the node's host (an IPv6 address without brackets), or "" when
	// the reply names none: then it is the host the redirected connection
	// was opened to.
	Host string
	// Port is the node's port.
	Port int
}

// ParseRedirect reads a MOVED or ASK reply ("ASK 9051 10.0.0.2:7001"): the
// node it names, or false for any other text, or one whose slot or port is
// out of range.
func ParseRedirect(text string) (Redirect, bool) {
	p, st := abiParseRedirect(text)
	if st != statusOK {
		return Redirect{}, false
	}
	return Redirect{Ask: p.ask, Slot: int(p.slot), Host: text[p.hostOffset : p.hostOffset+p.hostLen],
		Port: int(p.port)}, true
}

// LeaseRefusal is the first acquire's refusal when it gives up on outcome
// (Step.Action ActionGiveUp): ErrNode, in the core's words, for every node
// leased and for a write that did not run (or was moved) for a whole TTL;
// add the server's reply, which names the state. nil for the outcomes whose
// refusal is another's: WAIT's (ParseWait) or the holder's own fault.
// ErrRange for a value that is no Outcome.
func LeaseRefusal(outcome Outcome) error {
	switch st := abiLeaseRefusal(int(outcome)); st {
	case statusOK:
		return nil
	case statusNode:
		detail, _ := abiLeaseRefusalDetail(int(outcome))
		return refusal(st, detail)
	case statusRange:
		return rangeError(fmt.Sprintf("%v is no lease write outcome", outcome))
	default:
		return check(st)
	}
}

// Step is what LeaseKeeper.Settle says: what to do with the lease, and how
// long after it the next write is due.
type Step struct {
	// Action is what to do with the lease.
	Action Action
	// After is when the next write is due, from now: a third of the TTL
	// after a write that counted, LeaseTerms.Retry after one that did not, 0
	// for at once (a lost lease, an ASK) and when giving up (no next write).
	After time.Duration
}

// LeaseKeeper is a holder's lease as far as deciding goes (the core's
// Keeper): its terms, its phase, when its last answered write was sent, and
// since when its first acquire has tried. Every time it is given is
// monotonic ms (MonotonicMs, or any clock that is never stepped, the same
// for every call). Not the lease itself: the holder keeps the token and the
// LeasedMinter. Not safe for concurrent use: one goroutine at a time (the
// holder's loop).
type LeaseKeeper struct {
	handle leaseKeeperHandle
	terms  LeaseTerms
}

// NewLeaseKeeper is a keeper of leases on terms, before its first acquire,
// begun at sinceMonoMs. ErrRange for terms NewLeaseTerms refuses. Close it
// when done (a finalizer frees it otherwise).
func NewLeaseKeeper(terms LeaseTerms, sinceMonoMs uint64) (*LeaseKeeper, error) {
	ttl, margin, err := terms.millis()
	if err != nil {
		return nil, err
	}
	k := &LeaseKeeper{terms: terms}
	if err := check(abiLeaseKeeperNew(ttl, margin, sinceMonoMs, &k.handle)); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(k, (*LeaseKeeper).Close)
	return k, nil
}

// Terms is the terms its leases are kept on.
func (k *LeaseKeeper) Terms() LeaseTerms { return k.terms }

// Close frees the keeper at once. Calls after Close fail (gate "null").
func (k *LeaseKeeper) Close() {
	if k.handle != 0 {
		abiLeaseKeeperFree(k.handle)
		k.handle = 0
		runtime.SetFinalizer(k, nil)
	}
}

// Next is the write due at nowMonoMs. A held lease none of whose writes the
// server answered for a whole TTL has expired there: NextExpired, and the
// keeper is unleased. While releasing: NextRelease.
func (k *LeaseKeeper) Next(nowMonoMs uint64) (NextWrite, error) {
	next, st := abiLeaseKeeperNext(k.handle, nowMonoMs)
	runtime.KeepAlive(k)
	return NextWrite(next), check(st)
}

// Settle settles a write sent at sentMonoMs that came to outcome, read at
// nowMonoMs: what to do with the lease, and when to write next. While
// starting, a write that did not run (MOVED, TRYAGAIN, CLUSTERDOWN...) is
// tried again for up to a TTL from the first try, and then the first acquire
// gives up (LeaseRefusal); every node leased, an acquire no replica
// acknowledged and a fault give up at once. While releasing: ActionReleased
// once the release ran (counted, unacknowledged or gone); an ASK followed;
// MOVED rerouted at once and a release not run retried after
// LeaseTerms.Retry: tried three times at most, each try followed through one
// ASK at most; then, or on anything else, ActionGiveUp. ErrRange for a value that is no Outcome (the keeper is then
// unchanged).
func (k *LeaseKeeper) Settle(outcome Outcome, sentMonoMs, nowMonoMs uint64) (Step, error) {
	action, after, st := abiLeaseKeeperSettle(k.handle, int(outcome), sentMonoMs, nowMonoMs)
	runtime.KeepAlive(k)
	if err := check(st); err != nil {
		return Step{}, err
	}
	return Step{Action: Action(action), After: time.Duration(after) * time.Millisecond}, nil
}

// Phase is where the holder is.
func (k *LeaseKeeper) Phase() (Phase, error) {
	phase, st := abiLeaseKeeperPhase(k.handle)
	runtime.KeepAlive(k)
	return Phase(phase), check(st)
}

// Release begins handing the held or pending lease back (the holder has
// stopped its minter): the phase is PhaseReleasing, the write due
// NextRelease. The holder sends the release (without WAIT) and settles what
// each send came to until ActionReleased (handed back: the script's 1 says it
// was still the owner's) or ActionGiveUp (not run: the lease is left to its
// TTL), following, rerouting and retrying as Settle says.
func (k *LeaseKeeper) Release() error {
	st := abiLeaseKeeperRelease(k.handle)
	runtime.KeepAlive(k)
	return check(st)
}
