// Package bench measures the emqid Go binding beside pure-Go anchors, in one
// `go test -bench` run. It is its own module so that the anchors (oklog/ulid,
// radix) never become dependencies of emqid itself.
package bench

/*
#include <stdint.h>
#include <stddef.h>

static void noop(void) {}

// The same C signatures as the library entry points the binding's per-call
// functions use (emq_id.h), doing none of the work.
static uint32_t floor_hash32(uint64_t key) { return (uint32_t)key; }
static int floor_encode(const char *ns, uint64_t snowflake, char *out) { return 0; }
static int64_t floor_parse_i64(const char *id, size_t len) { return (int64_t)len; }
static int32_t floor_slot_i32(const uint8_t *key, size_t len) { return (int32_t)len; }
static int64_t floor_next_i64(const void *minter, int64_t now_ms) { return 1; }
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// cgoFloor is the cheapest possible cgo call: every emqid call costs at least this.
func cgoFloor() { C.noop() }

// The same-signature floors: each is shaped like one emqid per-call function
// (bindings/go: the same cgo call's arguments and result, the same Go-side
// conversions and allocation, the same result type), calling a C function
// that does none of the work. A call's distance from its floor is what the
// library's work adds; the floor's own distance from cgoFloor is what the
// signature costs (pointer arguments, which cgo checks, and allocations).

// floorID has the shape of emqid.ID, whose fields are not exported.
type floorID struct {
	ns        [3]byte
	snowflake uint64
}

var errFloor = errors.New("floor: refused")

// floorHash32 is shaped like emqid.Hash32.
func floorHash32(snowflake uint64) uint32 { return uint32(C.floor_hash32(C.uint64_t(snowflake))) }

// floorEncode is shaped like emqid.Encode: the namespace's length checked, a
// fresh 14-byte result the C side writes into, a string over it.
func floorEncode(ns string, snowflake uint64) (string, error) {
	if len(ns) != 3 {
		return "", errFloor
	}
	out := make([]byte, 14)
	if C.floor_encode((*C.char)(unsafe.Pointer(unsafe.StringData(ns))), C.uint64_t(snowflake), (*C.char)(unsafe.Pointer(&out[0]))) != 0 {
		return "", errFloor
	}
	return unsafe.String(&out[0], 14), nil
}

// floorParse is shaped like emqid.Parse: the text's bytes handed over, a
// value or a negative status back, the namespace copied from the text.
func floorParse(text string) (floorID, error) {
	v := int64(C.floor_parse_i64((*C.char)(unsafe.Pointer(unsafe.StringData(text))), C.size_t(len(text))))
	if v < 0 {
		return floorID{}, errFloor
	}
	id := floorID{snowflake: uint64(v)}
	copy(id.ns[:], text[:3])
	return id, nil
}

// floorSlot is shaped like emqid.Slot.
func floorSlot(key []byte) uint16 {
	return uint16(C.floor_slot_i32((*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(key))), C.size_t(len(key))))
}

// floorMinter is shaped like emqid.Minter: a handle the C side owns.
type floorMinter struct {
	handle unsafe.Pointer
	node   int
}

// next is shaped like emqid's Minter.Next.
func (m *floorMinter) next() (uint64, error) {
	v := int64(C.floor_next_i64(m.handle, C.int64_t(-1<<63)))
	runtime.KeepAlive(m)
	if v < 0 {
		return 0, errFloor
	}
	return uint64(v), nil
}
