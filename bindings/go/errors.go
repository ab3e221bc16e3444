package emqid

/*
#include "emq_id.h"
*/
import "C"

import (
	"fmt"
	"strconv"
)

// Error is every refusal of the contract. Gate is the contract's name for
// the rule that was broken ("length", "namespace", "charset", "range",
// "queue", "kind", "node"), the same word every emq-id runtime uses.
//
// Compare with the sentinels: errors.Is(err, emqid.ErrRange).
type Error struct {
	Gate   string
	Detail string
}

// Error is "emqid: <gate>", then ": <detail>" when there is one.
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

// The sentinels, one per gate, named by the library's own status names.
var (
	ErrLength    = refusal(C.BRANDED_ERR_LENGTH, "")
	ErrNamespace = refusal(C.BRANDED_ERR_NAMESPACE, "")
	ErrCharset   = refusal(C.BRANDED_ERR_CHARSET, "")
	ErrRange     = refusal(C.BRANDED_ERR_RANGE, "")
	ErrQueue     = refusal(C.EMQ_ERR_QUEUE, "")
	ErrKind      = refusal(C.EMQ_ERR_KIND, "")
	// ErrNode: the process has no node it may mint with (another live
	// process of this host holds it, every node is held, or the claim
	// directory EMQ_NODE_DIR cannot be used); for a node lease, every node
	// is leased, the lease is lost, or its minter's fence has closed.
	ErrNode = refusal(C.EMQ_ERR_NODE, "")
	// ErrSelfCheck: the linked library, or this package's use of it,
	// disagrees with the contract. It is not a gate: no input causes it.
	ErrSelfCheck = refusal(C.EMQ_ERR_SELF_CHECK, "")
)

// details is what check says of each status when the call has nothing more
// precise to add.
var details = map[C.branded_status]string{
	C.BRANDED_ERR_LENGTH:    fmt.Sprintf("a branded id is exactly %d bytes", IDLen),
	C.BRANDED_ERR_NAMESPACE: fmt.Sprintf("the namespace must be %d bytes A-Z", NSLen),
	C.BRANDED_ERR_CHARSET:   "the payload holds a byte outside base62 [0-9A-Za-z]",
	C.BRANDED_ERR_RANGE:     "a value outside the contract's range",
	C.EMQ_ERR_QUEUE:         fmt.Sprintf("a queue name is 1-%d bytes of [A-Za-z0-9_.:-]", MaxQueueLen),
	C.EMQ_ERR_KIND:          "unknown key kind, or an id given to a kind that takes none",
	C.EMQ_ERR_NODE:          "no node this process may mint with",
	C.EMQ_ERR_SELF_CHECK:    "the library disagrees with " + Contract,
	C.EMQ_ERR_VALKEY:        "an error reply of Valkey, not the lease protocol's",
}

// refusal is the one place a status of the library becomes an *Error. The
// gate is the library's own name for the status (emq_status_name), so this
// package never spells a gate itself and cannot drift from the core.
func refusal(status C.branded_status, detail string) *Error {
	return &Error{Gate: C.GoString(C.emq_status_name(C.int(status))), Detail: detail}
}

// check turns a C status into nil or its *Error with the status's detail.
func check(status C.branded_status) error {
	if status == C.BRANDED_OK {
		return nil
	}
	return refusal(status, details[status])
}

// BatchError is the refusal of one item of a batch call (ParseMany,
// EncodeMany): Index is the first item refused, Err its *Error. errors.Is
// and errors.As see Err through Unwrap, so errors.Is(err, ErrCharset) holds
// for a batch whose item failed the charset gate. The items before Index
// were done, and the call returns them with the error.
type BatchError struct {
	Index int
	Err   error
}

// Error is Err's message and the index, e.g. "emqid: length: … (index 3)".
func (e *BatchError) Error() string {
	return e.Err.Error() + " (index " + strconv.Itoa(e.Index) + ")"
}

// Unwrap is Err, the gate's *Error.
func (e *BatchError) Unwrap() error { return e.Err }

// checkBatch is check for a batch call, whose count says how many items were
// done: nil, or a *BatchError naming the item refused.
func checkBatch(status C.branded_status, done C.size_t) error {
	if err := check(status); err != nil {
		return &BatchError{Index: int(done), Err: err}
	}
	return nil
}

// rangeError is for values a Go type can hold but the contract cannot
// (a negative node), refused before they reach the library.
func rangeError(detail string) error {
	return refusal(C.BRANDED_ERR_RANGE, detail)
}
