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
