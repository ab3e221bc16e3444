package emqid

/*
#include "emq_id.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

// The kinds of key in the keyspace.
const (
	KindPending = "pending"
	KindActive  = "active"
	KindJob     = "job"
)

// QueueKey is the key of an id-less type for a queue (emq:{queue}:pending,
// emq:{queue}:g:vip:pending, ...); the emq-keyspace/1 kinds are pending or
// emq:{queue}:active. Errors: ErrQueue, then ErrKind.
func QueueKey(queue, kind string) (string, error) {
	return key(queue, kind, nil)
}

// JobKey is the key of one job, emq:{queue}:job:<id>. The id must pass the
// gates and be of namespace JOB (else ErrKind).
func JobKey(queue string, id string) (string, error) {
	return key(queue, KindJob, &id)
}

// Key builds a key of queue from its type, written as the bus writes it
// ("pending", "g:vip:pending", "job:JOB0KHTOWnGLuC:lock"), with id nil. The
// emq-keyspace/1 form Key(queue, "job", &id) is kept. Errors: ErrQueue, then
// ErrKind (no such family, a bad name, an id of another namespace) or the
// id's own gate.
func Key(queue, kind string, id *string) (string, error) {
	return key(queue, kind, id)
}

// Type is the shorthand for Key(queue, ty, nil): the key of queue of type ty.
func Type(queue, ty string) (string, error) {
	return key(queue, ty, nil)
}

// ParsedKey is a queue key read back: its queue, its family as a pattern
// ("g:<name>:pending"), and the family's parameter ("" when it takes none).
type ParsedKey struct {
	Queue  string
	Family string
	Param  string
}

// ParseKey reads a queue key back, the exact inverse of Key. ErrQueue when
// it is not emq:{queue}:<type> with a valid queue, else the type's error.
func ParseKey(key string) (ParsedKey, error) {
	var parts C.emq_parsed_key
	if err := check(C.emq_parse_key(bytesOf(key), C.size_t(len(key)), &parts)); err != nil {
		return ParsedKey{}, err
	}
	patterns := familyPatterns()
	if int(parts.family) >= len(patterns) {
		return ParsedKey{}, check(C.EMQ_ERR_KIND)
	}
	family := patterns[parts.family]
	q := int(parts.queue_offset)
	p := int(parts.param_offset)
	return ParsedKey{Queue: key[q : q+int(parts.queue_len)], Family: family, Param: key[p : p+int(parts.param_len)]}, nil
}

// familyPatterns is the library's table of family patterns, read once
// (one cgo call per family at first use, none per ParseKey after).
var familyPatterns = sync.OnceValue(func() []string {
	var patterns []string
	for i := C.uint32_t(0); ; i++ {
		pattern, err := text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
			return C.emq_family_pattern(i, out, cap, n)
		})
		if err != nil {
			return patterns
		}
		patterns = append(patterns, pattern)
	}
})

// Reserve is the reserve's cross-queue key {emq}:<name> (one slot, disjoint
// from every queue key). ErrKind for a name outside 1-128 bytes of [A-Za-z0-9_.:-].
func Reserve(name string) (string, error) {
	return text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_reserve(bytesOf(name), C.size_t(len(name)), out, cap, n)
	})
}

// JobPrefix is emq:{queue}:job:, the prefix the bus's scripts append job ids to.
func JobPrefix(queue string) (string, error) {
	return text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_job_prefix(bytesOf(queue), C.size_t(len(queue)), out, cap, n)
	})
}

// PrefixBytes is the bytes a family's keys spend before their parameter
// (ty a family's head such as "job:" or "g:"), or a fixed type's key length.
func PrefixBytes(queue, ty string) (int, error) {
	var n C.size_t
	err := check(C.emq_prefix_bytes(bytesOf(queue), C.size_t(len(queue)), bytesOf(ty), C.size_t(len(ty)), &n))
	return int(n), err
}

// bytesOf is a string's bytes for C (never NULL, so "" is an empty input).
func bytesOf(s string) *C.uint8_t {
	if len(s) == 0 {
		return (*C.uint8_t)(unsafe.Pointer(&emptyID))
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s)))
}

// charsOf is bytesOf for the ABI's char parameters.
func charsOf(s string) *C.char { return (*C.char)(unsafe.Pointer(bytesOf(s))) }

// text runs a function of the ABI that writes into a caller's buffer.
func text(write func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status) (string, error) {
	var out [C.EMQ_MAX_KEY_LEN]byte
	var n C.size_t
	if err := check(write((*C.uint8_t)(unsafe.Pointer(&out[0])), C.size_t(len(out)), &n)); err != nil {
		return "", err
	}
	return string(out[:n]), nil
}

var emptyID byte

func key(queue, kind string, id *string) (string, error) {
	var out [C.EMQ_MAX_KEY_LEN]byte
	var n C.size_t
	var idPtr *C.uint8_t
	var idLen C.size_t
	if id != nil {
		// A non-NULL pointer even for "", so the library sees an empty id, not no id.
		idPtr = (*C.uint8_t)(unsafe.Pointer(&emptyID))
		if len(*id) > 0 {
			idPtr = (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(*id)))
		}
		idLen = C.size_t(len(*id))
	}
	status := C.emq_key(
		(*C.uint8_t)(unsafe.Pointer(unsafe.StringData(queue))), C.size_t(len(queue)),
		(*C.uint8_t)(unsafe.Pointer(unsafe.StringData(kind))), C.size_t(len(kind)),
		idPtr, idLen,
		(*C.uint8_t)(unsafe.Pointer(&out[0])), C.size_t(len(out)), &n)
	if err := check(status); err != nil {
		return "", err
	}
	return string(out[:n]), nil
}
