package emqid

/*
#include "emq_id.h"
*/
import "C"

import "unsafe"

// The kinds of key in the keyspace.
const (
	KindPending = "pending"
	KindActive  = "active"
	KindJob     = "job"
)

// QueueKey is the key of an id-less kind for a queue: emq:{queue}:pending or
// emq:{queue}:active. Errors: ErrQueue, then ErrKind.
func QueueKey(queue, kind string) (string, error) {
	return key(queue, kind, nil)
}

// JobKey is the key of one job, emq:{queue}:job:<id>. The id must pass the
// gates and be of namespace JOB (else ErrNamespace).
func JobKey(queue string, id string) (string, error) {
	return key(queue, KindJob, &id)
}

// Key is the general builder: the key of kind for queue, with an id for kinds
// that take one (nil for none). Errors in the order queue, kind, id.
func Key(queue, kind string, id *string) (string, error) {
	return key(queue, kind, id)
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
