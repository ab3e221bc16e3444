package emqid

import (
	"fmt"
	"math"
	"runtime"
	"time"
)

// Node leases on Valkey (emq-lease/3, SPEC.md §5.2): the core's scripts,
// key, reply parsing and leased minter. Nothing here opens a connection:
// run the scripts with the Valkey client you already have (EVAL, or EVALSHA
// after SCRIPT LOAD); examples/lease does it with go-redis. To hold a lease
// in one call (acknowledged, renewed, re-acquired, released), use the holder
// module beside this one, github.com/echomq/emq-id/bindings/go/holder:
// holder.Acquire(ctx, rdb, holder.Options{Replicas: 1}) over go-redis.
//
// A lease's life: acquire (LeaseAcquire, then ParseAcquire, then
// StartLeasedMinter), renew every LeaseTerms.RenewEvery (LeaseRenew with
// NextMark, then ParseRenewal, then Renewed, or Stop when it answers ErrNode),
// release (Stop, then LeaseRelease with HighWater). Every acquire and renewal
// counts only once acknowledged: send WAIT LeaseReplicas
// LeaseTerms.WaitTimeout on the same connection and read its reply with
// ParseWait before minting on the acquire or calling Renewed. A LeaseKeeper
// (keeper.go) says which write is due, when, and what each one came to.

// LeaseNodes is how many nodes a lease can be taken on (0..=MaxNode): the
// acquire script's "nodes" argument.
const LeaseNodes = abiLeaseNodes

// LeaseReplicas is how many replicas must acknowledge a lease write (WAIT's
// numreplicas) unless the deployment says otherwise: ParseWait's replicas.
const LeaseReplicas = abiLeaseReplicas

// LeaseScript is one script of the protocol: its name, its Lua source (byte
// for byte what every runtime sends), and what KEYS and ARGV hold, in order,
// in words (len(Keys) is EVAL's numkeys).
type LeaseScript struct {
	Name string
	Text string
	Keys []string
	Args []string
}

// The protocol's scripts, version and key, read from the library at load.
var (
	// LeaseAcquire takes the first free node from a given one on and raises
	// its mark. KEYS: LeaseKey. ARGV: a random token, the TTL in ms, the first
	// node to try, LeaseNodes, now in unix ms. Answers {node, previous mark}
	// (ParseAcquire), or the error ParseAcquireError reads.
	LeaseAcquire = leaseScript("acquire")
	// LeaseRenew extends the lease and raises its mark, while the lease holds
	// the token. KEYS: LeaseKey. ARGV: the token, the TTL in ms,
	// LeasedMinter.NextMark, the node (decimal). Answers 1 or 0 (ParseRenewal).
	LeaseRenew = leaseScript("renew")
	// LeaseRelease ends the lease and stores the owner's high water as the
	// node's mark, while the lease holds the token. KEYS: LeaseKey. ARGV: the
	// token, LeasedMinter.HighWater, the node (decimal). Answers 1 or 0
	// (ParseRenewal).
	LeaseRelease = leaseScript("release")
	// LeaseProtocol is the version of the protocol the scripts implement.
	LeaseProtocol = leaseProtocol()
	// LeaseKey is the reserve's one lease key, {emq}:leases: KEYS[1] of every
	// script, a hash of each node's token, end and mark (fields <n>:token,
	// <n>:until, <n>:mark), in the reserve's slot (SlotString(LeaseKey)).
	LeaseKey = leaseKey()
)

// LeaseScripts is every script of the protocol, in the core's order.
func LeaseScripts() []LeaseScript {
	scripts := make([]LeaseScript, abiLeaseScriptCount())
	for i := range scripts {
		scripts[i] = leaseScriptAt(i)
	}
	return scripts
}

func leaseProtocol() string { return abiLeaseProtocol() }

func leaseKey() string { return abiLeaseKey() }

func leaseScriptAt(i int) LeaseScript {
	s := LeaseScript{Name: abiLeaseScriptName(i), Text: abiLeaseScriptText(i)}
	for k := 0; ; k++ {
		key, ok := abiLeaseScriptKey(i, k)
		if !ok {
			break
		}
		s.Keys = append(s.Keys, key)
	}
	for a := 0; ; a++ {
		arg, ok := abiLeaseScriptArg(i, a)
		if !ok {
			break
		}
		s.Args = append(s.Args, arg)
	}
	return s
}

// leaseScript is the library's script of that name; a library without it
// is not the one this package was written against.
func leaseScript(name string) LeaseScript {
	for _, s := range LeaseScripts() {
		if s.Name == name {
			return s
		}
	}
	panic("emqid: the linked libemqid has no lease script " + name + " (rebuild it with `cargo build -p emq-id-c --release`)")
}

// Acquired is LeaseAcquire's reply, read: the node taken, and the mark its
// previous owners left (unix ms; -1 when the node was never leased).
type Acquired struct {
	Node         int
	PreviousMark int64
}

// ParseAcquire reads LeaseAcquire's reply {node, previous} (the two integers
// of its array). ErrRange for anything the script cannot answer.
func ParseAcquire(node, previous int64) (Acquired, error) {
	n, mark, st := abiParseAcquire(node, previous)
	if err := check(st); err != nil {
		return Acquired{}, err
	}
	return Acquired{Node: int(n), PreviousMark: mark}, nil
}

// ParseAcquireError reads an error reply of LeaseAcquire (its message, with
// or without Valkey's "ERR " prefix): ErrNode when every node is leased, and
// nil for any other error, which is not the protocol's but your client's to
// handle (NOSCRIPT, MOVED, a connection error...).
func ParseAcquireError(msg string) error {
	switch st := abiParseAcquireError(msg); st {
	case statusValkey:
		return nil
	case statusNode:
		return refusal(st, fmt.Sprintf("every node 0..=%d is leased: no node for another minter until one is released", MaxNode))
	default:
		return check(st)
	}
}

// ParseRenewal reads the reply of LeaseRenew or LeaseRelease: nil for 1,
// ErrNode for 0 (the lease is gone or another's: Stop minting on it),
// ErrRange for any other integer.
func ParseRenewal(reply int64) error {
	st := abiParseRenewal(reply)
	if st == statusNode {
		return refusal(st, "the lease is gone or held by another owner: stop minting on it")
	}
	return check(st)
}

// ParseWait reads the reply of WAIT replicas timeout, sent on the connection
// that ran LeaseAcquire or LeaseRenew: nil when at least replicas replicas
// acknowledged the write; ErrNode for fewer (a failover could lose the write:
// mint nothing on an acquire, do not call Renewed for a renewal); ErrRange
// for a negative reply, or replicas outside 0..=2^32-1.
func ParseWait(acknowledged int64, replicas int) error {
	if replicas < 0 || uint64(replicas) > math.MaxUint32 {
		return rangeError(fmt.Sprintf("a count of replicas is 0..=%d, not %d", uint32(math.MaxUint32), replicas))
	}
	st := abiParseWait(acknowledged, uint32(replicas))
	if st == statusNode {
		return refusal(st, fmt.Sprintf("acknowledged by %d of %d replica(s): a failover could lose the lease "+
			"write, so mint nothing on it", acknowledged, replicas))
	}
	return check(st)
}

// LeaseTerms is how long a lease lives (TTL) and how long before the TTL
// would run out, since the last renewal was sent, its owner stops minting
// (Margin: more than the worst clock-rate difference between owner and
// server over one TTL, plus a renewal's trip). Both in whole milliseconds.
type LeaseTerms struct {
	TTL    time.Duration
	Margin time.Duration
}

// DefaultLeaseTerms: 30 s leases fenced 5 s early; renewals every 10 s leave two tries.
var DefaultLeaseTerms = LeaseTerms{TTL: abiLeaseTTLMs * time.Millisecond, Margin: abiLeaseMarginMs * time.Millisecond}

// NewLeaseTerms is terms whose TTL is 1 ms to a day and whose margin is below
// it, in whole milliseconds; else ErrRange. Check terms before acquiring, so
// bad terms never take a node.
func NewLeaseTerms(ttl, margin time.Duration) (LeaseTerms, error) {
	terms := LeaseTerms{TTL: ttl, Margin: margin}
	ttlMs, marginMs, err := terms.millis()
	if err != nil {
		return LeaseTerms{}, err
	}
	if err := check(abiLeaseTermsCheck(ttlMs, marginMs)); err != nil {
		return LeaseTerms{}, err
	}
	return terms, nil
}

// WaitTimeout is the timeout to give WAIT after a lease write under these
// terms (the core's: short against the renewal's third of the TTL, so an
// unacknowledged renewal leaves time for another try). ErrRange for terms
// NewLeaseTerms refuses.
func (t LeaseTerms) WaitTimeout() (time.Duration, error) { return t.schedule(abiLeaseWaitMs) }

// RenewEvery is how often a held lease is renewed under these terms: every
// third of the TTL (at least 1 ms), which leaves two more tries before the
// fence of the default margin. ErrRange for terms NewLeaseTerms refuses.
func (t LeaseTerms) RenewEvery() (time.Duration, error) { return t.schedule(abiLeaseRenewEveryMs) }

// Retry is how soon a lease write that did not count (unacknowledged, not
// run, a fault, every node leased) is tried again under these terms: a
// twentieth of the TTL, within 10 to 250 ms. ErrRange for terms
// NewLeaseTerms refuses.
func (t LeaseTerms) Retry() (time.Duration, error) { return t.schedule(abiLeaseRetryMs) }

// schedule is the core's duration of these terms that ms gives in ms.
func (t LeaseTerms) schedule(ms func(ttlMs, marginMs uint64) (uint64, status)) (time.Duration, error) {
	ttl, margin, err := t.millis()
	if err != nil {
		return 0, err
	}
	v, st := ms(ttl, margin)
	if err := check(st); err != nil {
		return 0, err
	}
	return time.Duration(v) * time.Millisecond, nil
}

// millis is the terms in ms, or ErrRange for what a millisecond cannot hold.
func (t LeaseTerms) millis() (ttl, margin uint64, err error) {
	for _, d := range []time.Duration{t.TTL, t.Margin} {
		if d < 0 || d%time.Millisecond != 0 {
			return 0, 0, rangeError(fmt.Sprintf("a lease's TTL and margin are whole milliseconds, not %v", d))
		}
	}
	return uint64(t.TTL.Milliseconds()), uint64(t.Margin.Milliseconds()), nil
}

// monoOrigin is the origin of MonotonicMs: Go's time.Now carries a
// monotonic reading, which time.Since uses.
var monoOrigin = time.Now()

// MonotonicMs is milliseconds on this process's monotonic clock (never
// stepped by NTP or an operator): the clock a LeasedMinter's fence is kept
// on. Read it just before sending an acquire or a renewal (sentMonoMs).
func MonotonicMs() uint64 { return monoMs(time.Now()) }

func monoMs(now time.Time) uint64 { return uint64(now.Sub(monoOrigin).Milliseconds()) }

// LeasedMinter mints on a leased node: it starts after the node's previous
// mark (so its first id sorts after every id of every previous owner), never
// mints past the mark it keeps in Valkey, and refuses with ErrNode once its
// fence closes (the lease not renewed in time, lost, or stopped). Safe for
// concurrent use: a renewer goroutine calls Renewed while others mint.
type LeasedMinter struct {
	handle leasedMinterHandle
	node   int
	terms  LeaseTerms
}

// StartLeasedMinter is the minter of a lease just acquired: a as ParseAcquire
// read it, nowMs the unix ms sent as the acquire script's "now", sentMonoMs
// the MonotonicMs when the acquire was sent. ErrRange for a node, mark or
// terms the protocol does not give. Close it when done (a finalizer frees it otherwise).
func StartLeasedMinter(a Acquired, nowMs int64, sentMonoMs uint64, terms LeaseTerms) (*LeasedMinter, error) {
	if err := checkNode(a.Node); err != nil {
		return nil, err
	}
	ttl, margin, err := terms.millis()
	if err != nil {
		return nil, err
	}
	m := &LeasedMinter{node: a.Node, terms: terms}
	if err := check(abiLeasedMinterStart(uint16(a.Node), a.PreviousMark, nowMs, sentMonoMs, ttl, margin, &m.handle)); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(m, (*LeasedMinter).Close)
	return m, nil
}

// Node is the leased node.
func (m *LeasedMinter) Node() int { return m.node }

// Terms is the lease's terms.
func (m *LeasedMinter) Terms() LeaseTerms { return m.terms }

// Close frees the minter at once. It is not safe while another goroutine
// may still call the minter: call it only when nothing else holds it, or
// leave the minter to its finalizer. Calls after Close fail (gate "null").
func (m *LeasedMinter) Close() {
	if m.handle != 0 {
		abiLeasedMinterFree(m.handle)
		m.handle = 0
		runtime.SetFinalizer(m, nil)
	}
}

// Next mints with one reading of time.Now: its wall clock for the id, its
// monotonic reading for the fence.
func (m *LeasedMinter) Next() (uint64, error) {
	now := time.Now()
	return m.NextAt(now.UnixMilli(), monoMs(now))
}

// NextAt mints with a wall-clock reading unixMs (for the id) taken at monoMs
// on the clock sentMonoMs was read on (for the fence). ErrNode once the fence
// has closed, or while the next id would pass the stored mark (a burst far
// ahead of the clock: the next renewal raises it); ErrRange past the time
// field. A refusal leaves the state as it was.
func (m *LeasedMinter) NextAt(unixMs int64, monoMs uint64) (uint64, error) {
	v := abiLeasedMinterNextI64(m.handle, unixMs, monoMs)
	runtime.KeepAlive(m)
	if v < 0 {
		st := status(-v)
		if st == statusNode {
			return 0, refusal(st, fmt.Sprintf("minting on the lease of node %d stopped: its fence closed "+
				"(not renewed in time, lost or stopped), or its mark is reached until the next renewal", m.node))
		}
		return 0, check(st)
	}
	return uint64(v), nil
}

// NextMark is the mark to send with LeaseRenew at unixMs: the later of the
// clock and the last minted millisecond, plus the TTL, never below the mark
// already stored. Give it to Renewed once the renewal is accepted.
func (m *LeasedMinter) NextMark(unixMs int64) (uint64, error) {
	mark, st := abiLeasedMinterNextMark(m.handle, unixMs)
	runtime.KeepAlive(m)
	return mark, check(st)
}

// Renewed records a renewal Valkey accepted (ParseRenewal answered nil): sent
// at sentMonoMs (MonotonicMs), carrying mark. The fence moves to sent + TTL -
// Margin and the mark up to mark; neither ever goes back.
func (m *LeasedMinter) Renewed(sentMonoMs, mark uint64) error {
	err := check(abiLeasedMinterRenewed(m.handle, sentMonoMs, mark))
	runtime.KeepAlive(m)
	return err
}

// Stop closes the fence now: a renewal answered ErrNode, or the lease is
// about to be released. Every later mint is ErrNode. A closed minter mints
// nothing already: Stop on it does nothing.
func (m *LeasedMinter) Stop() {
	if m.handle != 0 {
		abiLeasedMinterStop(m.handle)
		runtime.KeepAlive(m)
	}
}

// HighWater is the last unix ms this minter minted in (before its first id:
// one before its start): what LeaseRelease stores as the node's mark. Stop
// the minter before reading it for a release.
func (m *LeasedMinter) HighWater() (uint64, error) {
	hw, st := abiLeasedMinterHighWater(m.handle)
	runtime.KeepAlive(m)
	return hw, check(st)
}

// FenceMs is the MonotonicMs from which minting is refused (0 once stopped).
func (m *LeasedMinter) FenceMs() (uint64, error) {
	fence, st := abiLeasedMinterFenceMs(m.handle)
	runtime.KeepAlive(m)
	return fence, check(st)
}
