package emqid

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
	ErrLength    = refusal(statusLength, "")
	ErrNamespace = refusal(statusNamespace, "")
	ErrCharset   = refusal(statusCharset, "")
	ErrRange     = refusal(statusRange, "")
	ErrQueue     = refusal(statusQueue, "")
	ErrKind      = refusal(statusKind, "")
	// ErrNode: the process has no node it may mint with (another live
	// process of this host holds it, every node is held, or the claim
	// directory EMQ_NODE_DIR cannot be used); for a node lease, every node
	// is leased, the lease is lost, or its minter's fence has closed.
	ErrNode = refusal(statusNode, "")
	// ErrSelfCheck: the linked library, or this package's use of it,
	// disagrees with the contract. It is not a gate: no input causes it.
	ErrSelfCheck = refusal(statusSelfCheck, "")
)

// details is what check says of each status when the call has nothing more
// precise to add.
var details = map[status]string{
	statusLength:    fmt.Sprintf("a branded id is exactly %d bytes", IDLen),
	statusNamespace: fmt.Sprintf("the namespace must be %d bytes A-Z", NSLen),
	statusCharset:   "the payload holds a byte outside base62 [0-9A-Za-z]",
	statusRange:     "a value outside the contract's range",
	statusQueue:     fmt.Sprintf("a queue name is 1-%d bytes of [A-Za-z0-9_.:-]", MaxQueueLen),
	statusKind:      "unknown key kind, or an id given to a kind that takes none",
	statusNode:      "no node this process may mint with",
	statusSelfCheck: "the library disagrees with " + Contract,
	statusValkey:    "an error reply of Valkey, not the lease protocol's",
}

// refusal is the one place a status of the library becomes an *Error. The
// gate is the library's own name for the status (emq_status_name), so this
// package never spells a gate itself and cannot drift from the core. It
// stays out of line, so the calls that inline check carry only its test.
//
//go:noinline
func refusal(st status, detail string) *Error {
	if st == statusPanic && detail == "" {
		detail = abiTrapDetail() // what the core said as it trapped, where the backend heard it
	}
	return &Error{Gate: abiStatusName(st), Detail: detail}
}

// check turns a status of the library into nil or its *Error with the status's detail.
func check(st status) error {
	if st == statusOK {
		return nil
	}
	return refusal(st, details[st])
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
func checkBatch(st status, done int) error {
	if err := check(st); err != nil {
		return &BatchError{Index: done, Err: err}
	}
	return nil
}

// rangeError is for values a Go type can hold but the contract cannot
// (a negative node), refused before they reach the library.
func rangeError(detail string) error {
	return refusal(statusRange, detail)
}
