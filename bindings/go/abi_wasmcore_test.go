//go:build !(cgo && emqid_cgo)

package emqid

import (
	"errors"
	"strings"
	"testing"
)

// outside is an address past the end of any instance's memory: a call
// given it faults in the translated code, as a trap of the core would.
const outside = 0x7ffffff0

// A trap in a call with a status never leaves the layer: it answers
// statusPanic, and the error names what happened.
func TestATrapIsAnErrorNamingIt(t *testing.T) {
	st := wasmStatus(func(s wasmSession) int32 { return int32(s.M.Xemq_parse_i64(outside, IDLen)) })
	if st != statusPanic {
		t.Fatalf("answered status %d", st)
	}
	var e *Error
	if err := check(st); !errors.As(err, &e) || e.Gate != "panic" || !strings.Contains(e.Detail, "out of range") {
		t.Fatalf("the error: %#v", err)
	}
	// The pool serves the next call.
	if id, err := Parse("USR0KHTOWnGLuC"); err != nil || id.Snowflake() != 274557032793636864 {
		t.Fatalf("after the trap: %v %v", id, err)
	}
}

// A trap in a call with no status to carry it panics with it, naming it.
func TestATrapOfACallWithoutStatusPanicsNamingIt(t *testing.T) {
	defer func() {
		err, _ := recover().(error)
		if err == nil || !strings.HasPrefix(err.Error(), "emqid: the core trapped: ") {
			t.Fatalf("recovered %v", err)
		}
	}()
	wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_gate_name(0, outside) })
	t.Fatal("no panic")
}
