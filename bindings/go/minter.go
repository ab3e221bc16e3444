package emqid

import (
	"fmt"
	"math"
	"runtime"
)

// Minter mints snowflakes for one node. It is safe for concurrent use (a
// lock-free compare-and-swap in the library). Ids from one Minter never
// repeat and never decrease, whatever the clock does.
type Minter struct {
	handle minterHandle
	node   int
}

// NewMinter is a fresh minter for node (0..=MaxNode, else ErrRange). Give
// every concurrently minting process its own node. Close it when done (a
// finalizer frees it otherwise).
func NewMinter(node int) (*Minter, error) {
	if err := checkNode(node); err != nil {
		return nil, err
	}
	m := &Minter{node: node}
	if err := check(abiMinterNew(uint16(node), &m.handle)); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(m, (*Minter).Close)
	return m, nil
}

// Node is the node the minter stamps.
func (m *Minter) Node() int { return m.node }

// Close frees the minter. Calls on a closed Minter fail (gate "null").
func (m *Minter) Close() {
	if m.handle != 0 {
		abiMinterFree(m.handle)
		m.handle = 0
		runtime.SetFinalizer(m, nil)
	}
}

// Next mints with the system clock.
func (m *Minter) Next() (uint64, error) {
	return m.next(math.MinInt64) // the library reads its clock for INT64_MIN
}

// NextAt mints with a given clock reading in Unix milliseconds: the
// contract's pure step applied atomically. A refused step (ErrRange) leaves
// the state unchanged.
func (m *Minter) NextAt(unixMs int64) (uint64, error) {
	if unixMs == math.MinInt64 {
		unixMs++ // INT64_MIN asks for the system clock; any instant before 2024 reads as the epoch anyway
	}
	return m.next(unixMs)
}

func (m *Minter) next(unixMs int64) (uint64, error) {
	v := abiMinterNextI64(m.handle, unixMs)
	runtime.KeepAlive(m)
	if v < 0 {
		return 0, check(status(-v))
	}
	return uint64(v), nil
}

// NextMany mints n snowflakes in one cgo call (one clock reading): use it
// when minting in bulk, where cgo's per-call cost would dominate.
func (m *Minter) NextMany(n int) ([]uint64, error) {
	if n < 0 {
		return nil, rangeError(fmt.Sprintf("a count is at least 0, got %d", n))
	}
	out := make([]uint64, n)
	if n == 0 {
		return out, nil
	}
	made, st := abiMinterNextMany(m.handle, out)
	runtime.KeepAlive(m)
	return out[:made], check(st)
}

// MintStep is the contract's pure mint step: from a state and a clock reading
// (Unix ms), the next state and the snowflake for node.
func MintStep(state uint64, node int, unixMs int64) (next, snowflake uint64, err error) {
	if err := checkNode(node); err != nil {
		return 0, 0, err
	}
	next, snowflake, st := abiMintStep(state, uint16(node), unixMs)
	if err := check(st); err != nil {
		return 0, 0, err
	}
	return next, snowflake, nil
}

// checkNode refuses a node outside 0..=MaxNode before it reaches the library,
// whose uint16_t parameter would otherwise wrap it into a valid node.
func checkNode(node int) error {
	if node < 0 || node > MaxNode {
		return rangeError(fmt.Sprintf("the node %d is outside 0..=%d", node, MaxNode))
	}
	return nil
}
