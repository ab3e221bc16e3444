// Package bench measures the emqid Go binding beside pure-Go anchors, in one
// `go test -bench` run. It is its own module so that the anchors (oklog/ulid,
// radix) never become dependencies of emqid itself.
package bench

/*
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

static void noop(void) {}

// The same C signatures as the library entry points the binding's per-call
// functions use (emq_id.h), doing none of the work.
typedef enum { FLOOR_OK = 0 } floor_status;
typedef struct floor_minter floor_minter;
static uint32_t floor_hash32(uint64_t key) { return (uint32_t)key; }
static floor_status floor_encode(const char *ns, uint64_t snowflake, char *out) { return FLOOR_OK; }
static int64_t floor_parse_i64(const char *id, size_t len) { return (int64_t)len; }
static int32_t floor_slot_i32(const uint8_t *key, size_t len) { return (int32_t)len; }
static int64_t floor_next_i64(const floor_minter *minter, int64_t now_ms) { return 1; }
static floor_minter *floor_minter_new(void) { return malloc(1); }
*/
import "C"

import (
	"errors"
	"math"
	"runtime"
	"unsafe"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// cgoFloor is the cheapest possible cgo call: every emqid call costs at least this.
func cgoFloor() { C.noop() }

// The same-signature floors: each is shaped like one emqid per-call function
// (bindings/go: the same cgo call's C types and arguments, the same Go-side
// checks, allocation and result type, and the same calls between Go
// functions), calling a C function that does none of the work. A call's
// distance from its floor is what the library's work adds; a floor's own
// distance from cgoFloor is what the signature costs (argument conversions,
// and Encode's result allocation).
//
// Where the binding's function is too large for Go to inline (`go build
// -gcflags=-m=2` in bindings/go: Encode, checkNSLen, Parse, parseSnowflake,
// Minter.next), its floor is marked go:noinline, so both pay the same calls.

// floorID has the shape of emqid.ID, whose fields are not exported.
type floorID struct {
	ns        [emqid.NSLen]byte
	snowflake uint64
}

var errFloor = errors.New("floor: refused")

// floorHash32 is shaped like emqid.Hash32.
func floorHash32(snowflake uint64) uint32 { return uint32(C.floor_hash32(C.uint64_t(snowflake))) }

// floorEncode is shaped like emqid.Encode: the namespace's length checked, a
// fresh IDLen-byte result the C side writes into, a string over it.
//
//go:noinline
func floorEncode(ns string, snowflake uint64) (string, error) {
	if err := floorCheckNSLen(ns); err != nil {
		return "", err
	}
	out := make([]byte, emqid.IDLen)
	nsPtr := (*C.char)(unsafe.Pointer(unsafe.StringData(ns)))
	if C.floor_encode(nsPtr, C.uint64_t(snowflake), (*C.char)(unsafe.Pointer(&out[0]))) != C.FLOOR_OK {
		return "", errFloor
	}
	return unsafe.String(&out[0], emqid.IDLen), nil
}

// floorCheckNSLen is shaped like emqid's checkNSLen.
//
//go:noinline
func floorCheckNSLen(ns string) error {
	if len(ns) != emqid.NSLen {
		return errFloor
	}
	return nil
}

// floorParse is shaped like emqid.Parse: the text's bytes handed over, a
// value or a negative status back, the namespace copied from the text.
//
//go:noinline
func floorParse(text string) (floorID, error) {
	s, err := floorParseSnowflake(unsafe.StringData(text), len(text))
	if err != nil {
		return floorID{}, err
	}
	id := floorID{snowflake: s}
	copy(id.ns[:], text[:emqid.NSLen])
	return id, nil
}

// floorParseSnowflake is shaped like emqid's parseSnowflake.
//
//go:noinline
func floorParseSnowflake(data *byte, n int) (uint64, error) {
	v := int64(C.floor_parse_i64((*C.char)(unsafe.Pointer(data)), C.size_t(n)))
	if v < 0 {
		return 0, errFloor
	}
	return uint64(v), nil
}

// floorSlot is shaped like emqid.Slot.
func floorSlot(key []byte) uint16 {
	return uint16(C.floor_slot_i32((*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(key))), C.size_t(len(key))))
}

// floorMinter is shaped like emqid.Minter: a handle the C side allocated.
type floorMinter struct {
	handle *C.floor_minter
	node   int
}

func newFloorMinter(node int) *floorMinter {
	return &floorMinter{handle: C.floor_minter_new(), node: node}
}

func (m *floorMinter) close() { C.free(unsafe.Pointer(m.handle)) }

// Next is shaped like emqid's Minter.Next.
func (m *floorMinter) Next() (uint64, error) { return m.next(math.MinInt64) }

// next is shaped like emqid's Minter.next.
//
//go:noinline
func (m *floorMinter) next(unixMs int64) (uint64, error) {
	v := int64(C.floor_next_i64(m.handle, C.int64_t(unixMs)))
	runtime.KeepAlive(m)
	if v < 0 {
		return 0, errFloor
	}
	return uint64(v), nil
}
