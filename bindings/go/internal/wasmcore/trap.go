package wasmcore

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrTrap is what every *Trap is (errors.Is): a call the module aborted.
var ErrTrap = errors.New("emqid: the core trapped")

// Trap is a call the module aborted: a panic of the core (its message, as
// the core's panic hook gave it), or a fault of the translated code itself
// (an access outside its memory, memory it could not give).
type Trap struct {
	Message string
}

func (t *Trap) Error() string { return ErrTrap.Error() + ": " + t.Message }

// Is makes errors.Is(t, ErrTrap) hold.
func (t *Trap) Is(target error) bool { return target == ErrTrap }

// refused is memory an input or an output needs that the module cannot
// give, raised by Reserve before the module runs: the call fails, but the
// instance is whole (its allocator said no), so it is not a trap of it.
type refused struct{ error }

// refuse ends a use whose call was refused before the module ran: the
// blocks it took go back, and the refusal is the call's *Trap (the detail of
// its statusPanic) without condemning the instance.
func (in *Instance) refuse(r refused) *Trap {
	in.done()
	t := &Trap{Message: r.Error()}
	last.Store(t)
	return t
}

// last is the latest trap of the process, for a status that can carry no message.
var last atomic.Pointer[Trap]

// LastTrap is the message of the process's latest trap ("" when none).
func LastTrap() string {
	if t := last.Load(); t != nil {
		return t.Message
	}
	return ""
}

// trapOf is the *Trap of a panic recovered from a call on in (nil: none):
// the core's own message when it gave one before trapping.
func trapOf(in *Instance, recovered any) *Trap {
	if t, ok := recovered.(*Trap); ok {
		last.Store(t)
		return t
	}
	t := &Trap{Message: fmt.Sprint(recovered)}
	if in != nil && in.host.panicked != "" {
		t.Message = in.host.panicked
	}
	last.Store(t)
	return t
}
