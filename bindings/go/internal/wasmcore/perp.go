//go:build !race

package wasmcore

import (
	"runtime"
	_ "unsafe" // go:linkname
)

// Each P (a processor running goroutines) keeps one instance at hand: a
// stateless call takes it and gives it back while pinned to its P, with no
// atomic operation, where a trip through the sync.Pool costs about 10 ns, as
// much as the core's own work on an id. A goroutine pinned to its P cannot
// be preempted, and pinning is how sync.Pool keeps its per-P lists too; the
// pinned sections here only move a pointer. runtime.procPin and procUnpin
// are kept for such packages (go.dev/issue/67401: "do not remove or change
// the type signature"). The race detector cannot see that pinning orders
// these sections, so its builds take the pool alone (perp_race.go).

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// atHand is each P's instance, by the P's id; Ps beyond GOMAXPROCS at start
// (a program that raises it later) use the pool.
var atHand = make([]slot, runtime.GOMAXPROCS(0))

// slot is one P's instance on a cache line of its own: Ps writing their
// neighbours' line would pass it back and forth between cores.
type slot struct {
	in *Instance
	_  [120]byte
}

// takeAtHand is this P's instance, or nil when it has none at hand.
func takeAtHand() *Instance {
	p := procPin()
	var in *Instance
	if p < len(atHand) {
		in, atHand[p].in = atHand[p].in, nil
	}
	procUnpin()
	return in
}

// putAtHand keeps in at hand for this P, when it has none: whether it did.
func putAtHand(in *Instance) bool {
	p := procPin()
	kept := p < len(atHand) && atHand[p].in == nil
	if kept {
		atHand[p].in = in
	}
	procUnpin()
	return kept
}
