package emqid

/*
#include "emq_id.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Node leases on Valkey (emq-lease/2, SPEC.md §5.2): the core's scripts,
// keys, reply parsing and leased minter. Nothing here opens a connection:
// run the scripts with the Valkey client you already have (EVAL, or EVALSHA
// after SCRIPT LOAD); examples/lease does it with go-redis. To hold a lease
// in one call (acknowledged, renewed, re-acquired, released), use the holder
// module beside this one, github.com/echomq/emq-id/bindings/go/holder:
// holder.Acquire(ctx, rdb, holder.Options{Replicas: 1}) over go-redis.
//
// A lease's life: acquire (LeaseAcquire, then ParseAcquire, then
// StartLeasedMinter), renew every third of the TTL (LeaseRenew with
// NextMark, then ParseRenewal, then Renewed, or Stop when it answers ErrNode),
// release (Stop, then LeaseRelease with HighWater). Every acquire and renewal
// counts only once acknowledged: send WAIT LeaseReplicas
// LeaseTerms.WaitTimeout on the same connection and read its reply with
// ParseWait before minting on the acquire or calling Renewed.

// LeaseNodes is how many nodes a lease can be taken on (0..=MaxNode): the
// acquire script's "nodes" argument.
const LeaseNodes = C.EMQ_LEASE_NODES

// LeaseReplicas is how many replicas must acknowledge a lease write (WAIT's
// numreplicas) unless the deployment says otherwise: ParseWait's replicas.
const LeaseReplicas = C.EMQ_LEASE_REPLICAS

// LeaseScript is one script of the protocol: its name, its Lua source (byte
// for byte what every runtime sends), and what KEYS and ARGV hold, in order,
// in words (len(Keys) is EVAL's numkeys).
type LeaseScript struct {
	Name string
	Text string
	Keys []string
	Args []string
}

// The protocol's scripts and version, read from the library at load.
var (
	// LeaseAcquire takes the first free node from a given one on and raises
	// its mark. KEYS: the lease prefix (LeasePrefix). ARGV: a random token, the
	// TTL in ms, the first node to try, LeaseNodes, now in unix ms. Answers
	// {node, previous mark} (ParseAcquire), or the error ParseAcquireError reads.
	LeaseAcquire = leaseScript("acquire")
	// LeaseRenew extends the lease and raises its mark, while the lease holds
	// the token. KEYS: LeaseKey, MarkKey. ARGV: the token, the TTL in ms,
	// LeasedMinter.NextMark. Answers 1 or 0 (ParseRenewal).
	LeaseRenew = leaseScript("renew")
	// LeaseRelease deletes the lease and stores the owner's high water as the
	// node's mark, while the lease holds the token. KEYS: LeaseKey, MarkKey.
	// ARGV: the token, LeasedMinter.HighWater. Answers 1 or 0 (ParseRenewal).
	LeaseRelease = leaseScript("release")
	// LeaseProtocol is the version of the protocol the scripts implement.
	LeaseProtocol = leaseProtocol()
)

// LeaseScripts is every script of the protocol, in the core's order.
func LeaseScripts() []LeaseScript {
	scripts := make([]LeaseScript, int(C.emq_lease_script_count()))
	for i := range scripts {
		scripts[i] = leaseScriptAt(C.size_t(i))
	}
	return scripts
}

// staticText is a static text of the library: its pointer, and its length
// read through n after the call that wrote it (Go does not order a plain
// variable's read against a call in the same expression).
func staticText(text *C.uint8_t, n *C.size_t) string {
	if text == nil {
		return ""
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(text)), C.int(*n))
}

func leaseProtocol() string {
	var n C.size_t
	return staticText(C.emq_lease_protocol(&n), &n)
}

func leaseScriptAt(i C.size_t) LeaseScript {
	var n C.size_t
	s := LeaseScript{
		Name: staticText(C.emq_lease_script_name(i, &n), &n),
		Text: staticText(C.emq_lease_script_text(i, &n), &n),
	}
	for k := C.size_t(0); ; k++ {
		key := C.emq_lease_script_key(i, k, &n)
		if key == nil {
			break
		}
		s.Keys = append(s.Keys, staticText(key, &n))
	}
	for a := C.size_t(0); ; a++ {
		arg := C.emq_lease_script_arg(i, a, &n)
		if arg == nil {
			break
		}
		s.Args = append(s.Args, staticText(arg, &n))
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

// LeasePrefix is {emq}:node:, KEYS[1] of LeaseAcquire.
func LeasePrefix() string { return leasePrefix() }

var leasePrefix = sync.OnceValue(func() string {
	prefix, err := text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_lease_prefix(out, cap, n)
	})
	if err != nil {
		panic("emqid: the lease prefix: " + err.Error())
	}
	return prefix
})

// LeaseKey is the lease of node, {emq}:node:<n> (KEYS[1] of LeaseRenew and
// LeaseRelease). ErrRange outside 0..=MaxNode.
func LeaseKey(node int) (string, error) {
	if err := checkNode(node); err != nil {
		return "", err
	}
	return text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_lease_key(C.uint16_t(node), out, cap, n)
	})
}

// MarkKey is the mark of node, {emq}:node:<n>:mark (KEYS[2] of LeaseRenew
// and LeaseRelease). ErrRange outside 0..=MaxNode.
func MarkKey(node int) (string, error) {
	if err := checkNode(node); err != nil {
		return "", err
	}
	return text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_mark_key(C.uint16_t(node), out, cap, n)
	})
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
	var n C.uint16_t
	var mark C.int64_t
	if err := check(C.emq_parse_acquire(C.int64_t(node), C.int64_t(previous), &n, &mark)); err != nil {
		return Acquired{}, err
	}
	return Acquired{Node: int(n), PreviousMark: int64(mark)}, nil
}

// ParseAcquireError reads an error reply of LeaseAcquire (its message, with
// or without Valkey's "ERR " prefix): ErrNode when every node is leased, and
// nil for any other error, which is not the protocol's but your client's to
// handle (NOSCRIPT, MOVED, a connection error...).
func ParseAcquireError(msg string) error {
	switch status := C.emq_parse_acquire_error(bytesOf(msg), C.size_t(len(msg))); status {
	case C.EMQ_ERR_VALKEY:
		return nil
	case C.EMQ_ERR_NODE:
		return refusal(status, fmt.Sprintf("every node 0..=%d is leased: no node for another minter until one is released", MaxNode))
	default:
		return check(status)
	}
}

// ParseRenewal reads the reply of LeaseRenew or LeaseRelease: nil for 1,
// ErrNode for 0 (the lease is gone or another's: Stop minting on it),
// ErrRange for any other integer.
func ParseRenewal(reply int64) error {
	status := C.emq_parse_renewal(C.int64_t(reply))
	if status == C.EMQ_ERR_NODE {
		return refusal(status, "the lease is gone or held by another owner: stop minting on it")
	}
	return check(status)
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
	status := C.emq_parse_wait(C.int64_t(acknowledged), C.uint32_t(replicas))
	if status == C.EMQ_ERR_NODE {
		return refusal(status, fmt.Sprintf("acknowledged by %d of %d replica(s): a failover could lose the lease "+
			"write, so mint nothing on it", acknowledged, replicas))
	}
	return check(status)
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
var DefaultLeaseTerms = LeaseTerms{TTL: C.EMQ_LEASE_TTL_MS * time.Millisecond, Margin: C.EMQ_LEASE_MARGIN_MS * time.Millisecond}

// NewLeaseTerms is terms whose TTL is 1 ms to a day and whose margin is below
// it, in whole milliseconds; else ErrRange. Check terms before acquiring, so
// bad terms never take a node.
func NewLeaseTerms(ttl, margin time.Duration) (LeaseTerms, error) {
	terms := LeaseTerms{TTL: ttl, Margin: margin}
	ttlMs, marginMs, err := terms.millis()
	if err != nil {
		return LeaseTerms{}, err
	}
	if err := check(C.emq_lease_terms_check(C.uint64_t(ttlMs), C.uint64_t(marginMs))); err != nil {
		return LeaseTerms{}, err
	}
	return terms, nil
}

// WaitTimeout is the timeout to give WAIT after a lease write under these
// terms (the core's: short against the renewal's third of the TTL, so an
// unacknowledged renewal leaves time for another try). ErrRange for terms
// NewLeaseTerms refuses.
func (t LeaseTerms) WaitTimeout() (time.Duration, error) {
	ttl, margin, err := t.millis()
	if err != nil {
		return 0, err
	}
	var wait C.uint64_t
	if err := check(C.emq_lease_wait_ms(C.uint64_t(ttl), C.uint64_t(margin), &wait)); err != nil {
		return 0, err
	}
	return time.Duration(wait) * time.Millisecond, nil
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
	handle *C.emq_leased_minter
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
	status := C.emq_leased_minter_start(C.uint16_t(a.Node), C.int64_t(a.PreviousMark), C.int64_t(nowMs),
		C.uint64_t(sentMonoMs), C.uint64_t(ttl), C.uint64_t(margin), &m.handle)
	if err := check(status); err != nil {
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
	if m.handle != nil {
		C.emq_leased_minter_free(m.handle)
		m.handle = nil
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
	v := int64(C.emq_leased_minter_next_i64(m.handle, C.int64_t(unixMs), C.uint64_t(monoMs)))
	runtime.KeepAlive(m)
	if v < 0 {
		status := C.branded_status(-v)
		if status == C.EMQ_ERR_NODE {
			return 0, refusal(status, fmt.Sprintf("minting on the lease of node %d stopped: its fence closed "+
				"(not renewed in time, lost or stopped), or its mark is reached until the next renewal", m.node))
		}
		return 0, check(status)
	}
	return uint64(v), nil
}

// NextMark is the mark to send with LeaseRenew at unixMs: the later of the
// clock and the last minted millisecond, plus the TTL, never below the mark
// already stored. Give it to Renewed once the renewal is accepted.
func (m *LeasedMinter) NextMark(unixMs int64) (uint64, error) {
	var mark C.uint64_t
	err := check(C.emq_leased_minter_next_mark(m.handle, C.int64_t(unixMs), &mark))
	runtime.KeepAlive(m)
	return uint64(mark), err
}

// Renewed records a renewal Valkey accepted (ParseRenewal answered nil): sent
// at sentMonoMs (MonotonicMs), carrying mark. The fence moves to sent + TTL -
// Margin and the mark up to mark; neither ever goes back.
func (m *LeasedMinter) Renewed(sentMonoMs, mark uint64) error {
	err := check(C.emq_leased_minter_renewed(m.handle, C.uint64_t(sentMonoMs), C.uint64_t(mark)))
	runtime.KeepAlive(m)
	return err
}

// Stop closes the fence now: a renewal answered ErrNode, or the lease is
// about to be released. Every later mint is ErrNode. A closed minter mints
// nothing already: Stop on it does nothing.
func (m *LeasedMinter) Stop() {
	if m.handle != nil {
		C.emq_leased_minter_stop(m.handle)
		runtime.KeepAlive(m)
	}
}

// HighWater is the last unix ms this minter minted in (before its first id:
// one before its start): what LeaseRelease stores as the node's mark. Stop
// the minter before reading it for a release.
func (m *LeasedMinter) HighWater() (uint64, error) {
	var hw C.uint64_t
	err := check(C.emq_leased_minter_high_water(m.handle, &hw))
	runtime.KeepAlive(m)
	return uint64(hw), err
}

// FenceMs is the MonotonicMs from which minting is refused (0 once stopped).
func (m *LeasedMinter) FenceMs() (uint64, error) {
	var fence C.uint64_t
	err := check(C.emq_leased_minter_fence_ms(m.handle, &fence))
	runtime.KeepAlive(m)
	return uint64(fence), err
}
