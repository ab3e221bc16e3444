package emqid

/*
#include "emq_id.h"
*/
import "C"

// Error is every refusal of the contract. Gate is the contract's name for
// the rule that was broken ("length", "namespace", "charset", "range",
// "queue", "kind", "node"), the same word every emq-id runtime uses.
//
// Compare with the sentinels: errors.Is(err, emqid.ErrRange).
type Error struct {
	Gate   string
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "emqid: " + e.Gate
	}
	return "emqid: " + e.Gate + ": " + e.Detail
}

// Is makes errors.Is match any *Error of the same gate.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Gate == e.Gate
}

// The sentinels, one per gate.
var (
	ErrLength    = &Error{Gate: "length"}
	ErrNamespace = &Error{Gate: "namespace"}
	ErrCharset   = &Error{Gate: "charset"}
	ErrRange     = &Error{Gate: "range"}
	ErrQueue     = &Error{Gate: "queue"}
	ErrKind      = &Error{Gate: "kind"}
	// ErrNode: the process has no node it may mint with (another live
	// process of this host holds it, every node is held, or the claim
	// directory EMQ_NODE_DIR cannot be used).
	ErrNode = &Error{Gate: "node"}
	// ErrSelfCheck: the linked library disagrees with the contract.
	ErrSelfCheck = &Error{Gate: "self_check"}
)

var details = map[string]string{
	"length":     "a branded id is exactly 14 bytes",
	"namespace":  "the namespace must be three bytes A-Z",
	"charset":    "the payload holds a byte outside base62 [0-9A-Za-z]",
	"range":      "a value outside the contract's range",
	"queue":      "a queue name is 1-128 bytes of [A-Za-z0-9_.:-]",
	"kind":       "unknown key kind, or an id given to a kind that takes none",
	"node":       "no node this process may mint with",
	"self_check": "the library disagrees with " + Contract,
}

// check turns a C status into nil or an *Error named by the library itself.
func check(status C.branded_status) error {
	if status == C.BRANDED_OK {
		return nil
	}
	gate := C.GoString(C.emq_status_name(C.int(status)))
	return &Error{Gate: gate, Detail: details[gate]}
}

// rangeError is for values a Go type can hold but the contract cannot
// (a negative node), refused before they reach the library.
func rangeError(detail string) error {
	return &Error{Gate: "range", Detail: detail}
}
