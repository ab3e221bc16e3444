package emqid

/*
#include "emq_id.h"
*/
import "C"

import "unsafe"

// XaddID is the stream entry id of an EVT id: "<unix_ms>-<tail22>", the id's
// Unix milliseconds and its snowflake's low 22 bits. Ids of one namespace sort
// as their entry ids, so a stream written in mint order never refuses an XADD.
// The id's gates, then ErrKind for another namespace.
func XaddID(id string) (string, error) {
	return text(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_xadd_id(bytesOf(id), C.size_t(len(id)), out, cap, n)
	})
}

// FromXaddID is the id of namespace ns behind a stream entry id: ErrCharset
// for parts that are not decimal, ErrRange for a time or tail no snowflake
// has, or a namespace that is not three bytes A-Z.
func FromXaddID(entry, ns string) (ID, error) {
	out := make([]byte, IDLen)
	status := C.emq_from_xadd_id(bytesOf(entry), C.size_t(len(entry)),
		charsOf(ns), C.size_t(len(ns)), (*C.char)(unsafe.Pointer(&out[0])))
	if err := check(status); err != nil {
		return ID{}, err
	}
	return ParseBytes(out)
}
