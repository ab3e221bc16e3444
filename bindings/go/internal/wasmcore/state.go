package wasmcore

import (
	"sync"

	"github.com/echomq/emq-id/bindings/go/internal/emqcore"
)

// State is the process's one instance that keeps state: the process-wide
// minter and its node claim (statics of the module, one per instance, so one
// per process only here), and every minter, leased minter and keeper, whose
// handles are addresses in its memory. Uses take turns (Lock, Unlock). A trap
// leaves its state unknown: every later use fails with the same trap, and the
// node claim stays held until the process ends, as a native process that
// aborted holds nothing but its node neither.
type State struct {
	mu   sync.Mutex
	in   *Instance
	trap *Trap
}

var state = sync.OnceValue(func() *State { return &State{} })

// Lock begins a use of the state's instance (made at the first use). A
// trapped state (or one whose instance could not be made) gives nil, which
// fails the call; Unlock then answers the trap.
func Lock() *Instance {
	s := state()
	s.mu.Lock()
	if s.trap == nil && s.in == nil {
		s.in, s.trap = instantiate()
	}
	if s.trap != nil {
		return nil
	}
	return s.in
}

// instantiate is a new instance, or the trap that making it was.
func instantiate() (in *Instance, trap *Trap) {
	defer func() {
		if recovered := recover(); recovered != nil {
			trap = trapOf(nil, recovered)
		}
	}()
	return newInstance(), nil
}

// Unlock ends a use begun by Lock. recovered is the caller's recover(), and a
// panic is returned as a *Trap (in is nil when Lock found the state trapped).
func Unlock(in *Instance, recovered any) error {
	s := state()
	defer s.mu.Unlock()
	if s.trap != nil {
		last.Store(s.trap)
		return s.trap
	}
	if r, ok := recovered.(refused); ok {
		return in.refuse(r)
	}
	if recovered != nil {
		s.trap = trapOf(in, recovered)
		return s.trap
	}
	in.done()
	return nil
}

// pure is an instance for the exports that touch neither memory nor a global
// of the module (the snowflake's fields and hash): any number of goroutines
// call them on it at once. TestPureExportsTouchNoState holds the translation
// to that.
var pure = sync.OnceValue(newInstance)

// Pure is the shared instance of the exports that keep no state.
func Pure() *emqcore.Module { return pure().M }
