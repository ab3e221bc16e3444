//go:build !(cgo && emqid_cgo) || emqid_diff

package emqid

// The layer (see abi.go) over the library translated to Go (internal/emqcore:
// the C ABI built for WebAssembly and translated by wasm2go; internal/wasmcore
// runs its instances). Each function writes its inputs into an instance's
// memory, calls the export of the same name, and reads its outputs back. On
// the wasm32 ABI, pointers and size_t are 32-bit and the library's statuses,
// enums and 16-bit integers are i32; 64-bit integers are i64; memory is
// little-endian on every host.
//
// Stateless calls take a pooled instance (wasmOpen), so goroutines never wait
// for each other; minters, leased minters, keepers and the process-wide
// minter live in the one state instance (wasmState), whose handles are
// addresses in its memory. A trap (a panic of the core, or memory it could
// not give) never leaves a call: it answers statusPanic, or, where a call has
// no status, panics with the *wasmcore.Trap that carries the core's message.
//
// The functions are named wasm*: the pure-Go build's abi* are these
// (abi_purego.go), and a cgo build tagged emqid_diff holds both backends for
// the differential test.

import (
	"encoding/binary"
	"math"
	"time"
	"unsafe"

	"github.com/echomq/emq-id/bindings/go/internal/wasmcore"
)

// wasmSession is one use of an instance: a pooled one (wasmOpen) or the
// state's (wasmState). Its end is deferred before it begins, so that a panic
// in between is recovered too.
type wasmSession struct {
	*wasmcore.Instance
	state bool
}

func wasmOpen() wasmSession { return wasmSession{Instance: wasmcore.Get()} }

func wasmState() wasmSession { return wasmSession{Instance: wasmcore.Lock(), state: true} }

// finish ends the session: recovered is the caller's recover(), and the
// trap it was, if any, is returned.
func (s wasmSession) finish(recovered any) error {
	if s.state {
		return wasmcore.Unlock(s.Instance, recovered)
	}
	if s.Instance == nil { // wasmOpen itself panicked: no instance to give back
		if recovered == nil {
			return nil
		}
		return (*wasmcore.Instance)(nil).Done(recovered)
	}
	return s.Done(recovered)
}

// end is finish for a call with a status: a trap is statusPanic.
func (s wasmSession) end(recovered any, st *status) {
	if s.finish(recovered) != nil {
		*st = statusPanic
	}
}

// endNegative is finish for a call answering a value or a negated status
// (emq_parse_i64, emq_slot_i32, the minters' next_i64): a trap is -statusPanic.
func endNegative[T int32 | int64](s wasmSession, recovered any, r *T) {
	if s.finish(recovered) != nil {
		*r = -T(statusPanic)
	}
}

// endValue is finish for a call with no status to carry a trap: a zero would
// pass for an answer, so it panics with the trap, as an aborting native
// library would end the process.
func (s wasmSession) endValue(recovered any) {
	if err := s.finish(recovered); err != nil {
		panic(err)
	}
}

// u16, u32 and u64 read a little-endian output.
func (s wasmSession) u16(p int32) uint16 { return binary.LittleEndian.Uint16(s.Bytes(p, 2)) }
func (s wasmSession) u32(p int32) uint32 { return binary.LittleEndian.Uint32(s.Bytes(p, 4)) }
func (s wasmSession) u64(p int32) uint64 { return binary.LittleEndian.Uint64(s.Bytes(p, 8)) }

// text is the n bytes at p as a string (a copy), "" for a NULL p.
func (s wasmSession) text(p int32, n int) string {
	if p == 0 {
		return ""
	}
	return string(s.Bytes(p, n))
}

// lengths32 is lens as the wasm32 ABI's size_t array.
func (s wasmSession) lengths32(lens []uintptr) int32 {
	p := s.Reserve(4 * len(lens))
	b := s.Bytes(p, 4*len(lens))
	for i, n := range lens {
		if uint64(n) > math.MaxUint32 {
			panic("emqid: an item longer than the core's memory")
		}
		binary.LittleEndian.PutUint32(b[4*i:], uint32(n))
	}
	return p
}

// i32 is a Go int as the wasm32 ABI's int or size_t argument.
func i32(v int) int32 { return int32(v) }

// wasmBool is a Go bool as the ABI's int.
func wasmBool(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// wasmStatic calls f, which returns a static text and writes its length
// through its last argument.
func wasmStatic(f func(s wasmSession, n int32) int32) (text string, ok bool) {
	var s wasmSession
	defer func() { s.endValue(recover()) }()
	s = wasmOpen()
	n := s.Out(4)
	p := f(s, n)
	return s.text(p, int(s.u32(n))), p != 0
}

// wasmWritten calls f, which writes at most abiMaxKeyLen bytes into (out, cap)
// and their count through n.
func wasmWritten(f func(s wasmSession, out, capacity, n int32) int32) (text string, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	out, n := s.Reserve(abiMaxKeyLen), s.Out(4)
	if st = status(f(s, out, abiMaxKeyLen, n)); st != statusOK {
		return "", st
	}
	return s.text(out, int(s.u32(n))), statusOK
}

// wasmStatus calls f for a status alone.
func wasmStatus(f func(s wasmSession) int32) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	return status(f(s))
}

// wasmTrapDetail is the message of the process's latest trap: the detail of
// a statusPanic error.
func wasmTrapDetail() string { return wasmcore.LastTrap() }

// Status names, gates and the self-check.

func wasmStatusName(st status) (name string) {
	var s wasmSession
	defer func() {
		if s.finish(recover()) != nil {
			name = "panic"
		}
	}()
	s = wasmOpen()
	p := s.M.Xemq_status_name(int32(st))
	if p == 0 {
		return "panic"
	}
	text := s.Bytes(p, 32)
	for i, c := range text {
		if c == 0 {
			return string(text[:i])
		}
	}
	return string(text)
}

func wasmGateCount() int {
	var s wasmSession
	defer func() { s.endValue(recover()) }()
	s = wasmOpen()
	return int(s.M.Xemq_gate_count())
}

func wasmGateName(i int) string {
	text, _ := wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_gate_name(i32(i), n) })
	return text
}

func wasmGateStatus(i int) status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_gate_status(i32(i)) })
}

func wasmSelfCheck() status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_self_check() })
}

func wasmSelfCheckVectors() string {
	text, _ := wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_self_check_vectors(n) })
	return text
}

// Ids.

func wasmParseI64(data *byte, n int) (r int64) {
	var s wasmSession
	defer func() { endNegative(s, recover(), &r) }()
	s = wasmOpen()
	return s.M.Xemq_parse_i64(s.PutBytes(unsafe.Slice(data, n)), i32(n))
}

func wasmBrandedEncode(ns string, snowflake uint64, out *[IDLen]byte) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(IDLen)
	if st = status(s.M.Xbranded_encode(s.PutString(ns), int64(snowflake), p)); st == statusOK {
		copy(out[:], s.Bytes(p, IDLen))
	}
	return st
}

func wasmDecodeMany(data []byte, lens []uintptr, out []uint64, done *uintptr) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	count := len(lens)
	dst, n := s.Reserve(8*count), s.Out(4)
	st = status(s.M.Xemq_decode_many(s.PutBytes(data), s.lengths32(lens), i32(count), dst, n))
	*done = uintptr(s.u32(n))
	decoded := s.Bytes(dst, 8*count)
	for i := range int(*done) {
		out[i] = binary.LittleEndian.Uint64(decoded[8*i:])
	}
	return st
}

func wasmEncodeMany(ns string, snowflakes []uint64, out []byte, done *uintptr) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	count := len(snowflakes)
	src := s.Reserve(8 * count)
	b := s.Bytes(src, 8*count)
	for i, v := range snowflakes {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	dst, n := s.Reserve(IDLen*count), s.Out(4)
	st = status(s.M.Xemq_encode_many(s.PutString(ns), src, i32(count), dst, n))
	*done = uintptr(s.u32(n))
	copy(out, s.Bytes(dst, IDLen*int(*done)))
	return st
}

// The snowflake's fields and hash touch no memory and no global of the
// module (wasmcore's test holds the translation to that), so they run on
// the shared pure instance from any goroutine at once, with no session.

func wasmBrandedHash32(snowflake uint64) uint32 {
	return uint32(wasmcore.Pure().Xbranded_hash32(int64(snowflake)))
}

func wasmBrandedUnixMs(snowflake uint64) uint64 {
	return uint64(wasmcore.Pure().Xbranded_unix_ms(int64(snowflake)))
}

func wasmNode(snowflake uint64) uint16 { return uint16(wasmcore.Pure().Xemq_node(int64(snowflake))) }

func wasmSeq(snowflake uint64) uint16 { return uint16(wasmcore.Pure().Xemq_seq(int64(snowflake))) }

func wasmMinFor(unixMs int64) (sf uint64, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(8)
	st = status(s.M.Xemq_min_for(unixMs, p))
	return s.u64(p), st
}

func wasmIsValid(text string) bool {
	var s wasmSession
	defer func() { s.endValue(recover()) }()
	s = wasmOpen()
	return s.M.Xemq_is_valid(s.PutString(text), i32(len(text))) != 0
}

func wasmCompare(a, b string) (order int, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(4)
	st = status(s.M.Xemq_compare(s.PutString(a), i32(len(a)), s.PutString(b), i32(len(b)), p))
	return int(int32(s.u32(p))), st
}

func wasmXaddID(id string) (string, status) {
	return wasmWritten(func(s wasmSession, out, capacity, n int32) int32 {
		return s.M.Xemq_xadd_id(s.PutString(id), i32(len(id)), out, capacity, n)
	})
}

func wasmFromXaddID(entry, ns string, out *[IDLen]byte) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(IDLen)
	st = status(s.M.Xemq_from_xadd_id(s.PutString(entry), i32(len(entry)), s.PutString(ns), i32(len(ns)), p))
	if st == statusOK {
		copy(out[:], s.Bytes(p, IDLen))
	}
	return st
}

// Slots.

func wasmSlotI32(data *byte, n int) (r int32) {
	var s wasmSession
	defer func() { endNegative(s, recover(), &r) }()
	s = wasmOpen()
	return s.M.Xemq_slot_i32(s.PutBytes(unsafe.Slice(data, n)), i32(n))
}

func wasmSlotMany(data []byte, lens []uintptr, out []uint16) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	count := len(lens)
	dst := s.Reserve(2 * count)
	if st = status(s.M.Xemq_slot_many(s.PutBytes(data), s.lengths32(lens), i32(count), dst)); st == statusOK {
		slots := s.Bytes(dst, 2*count)
		for i := range count {
			out[i] = binary.LittleEndian.Uint16(slots[2*i:])
		}
	}
	return st
}

func wasmHashtag(key []byte) (offset, n int) {
	var s wasmSession
	defer func() { s.endValue(recover()) }()
	s = wasmOpen()
	off, length := s.Out(4), s.Out(4)
	s.M.Xemq_hashtag(s.PutBytes(key), i32(len(key)), off, length)
	return int(s.u32(off)), int(s.u32(length))
}

// The keyspace.

func wasmKey(queue, kind string, id *string) (string, status) {
	return wasmWritten(func(s wasmSession, out, capacity, n int32) int32 {
		var idPtr, idLen int32 // NULL: no id; "" is an empty id at a real address
		if id != nil {
			idPtr, idLen = s.PutString(*id), i32(len(*id))
		}
		return s.M.Xemq_key(s.PutString(queue), i32(len(queue)), s.PutString(kind), i32(len(kind)), idPtr, idLen,
			out, capacity, n)
	})
}

func wasmParseKey(key string) (parts keyParts, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(20) // five 32-bit fields on wasm32
	if st = status(s.M.Xemq_parse_key(s.PutString(key), i32(len(key)), p)); st != statusOK {
		return keyParts{}, st
	}
	return keyParts{
		queueOffset: int(s.u32(p)), queueLen: int(s.u32(p + 4)),
		family:      s.u32(p + 8),
		paramOffset: int(s.u32(p + 12)), paramLen: int(s.u32(p + 16)),
	}, statusOK
}

func wasmFamilyPattern(family uint32) (string, status) {
	return wasmWritten(func(s wasmSession, out, capacity, n int32) int32 {
		return s.M.Xemq_family_pattern(int32(family), out, capacity, n)
	})
}

func wasmReserve(name string) (string, status) {
	return wasmWritten(func(s wasmSession, out, capacity, n int32) int32 {
		return s.M.Xemq_reserve(s.PutString(name), i32(len(name)), out, capacity, n)
	})
}

func wasmQueuePrefix(queue string) (string, status) {
	return wasmWritten(func(s wasmSession, out, capacity, n int32) int32 {
		return s.M.Xemq_queue_prefix(s.PutString(queue), i32(len(queue)), out, capacity, n)
	})
}

func wasmJobPrefix(queue string) (string, status) {
	return wasmWritten(func(s wasmSession, out, capacity, n int32) int32 {
		return s.M.Xemq_job_prefix(s.PutString(queue), i32(len(queue)), out, capacity, n)
	})
}

func wasmPrefixBytes(queue, ty string) (size int, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	n := s.Out(4)
	st = status(s.M.Xemq_prefix_bytes(s.PutString(queue), i32(len(queue)), s.PutString(ty), i32(len(ty)), n))
	return int(s.u32(n)), st
}

// Minters.

func wasmMintStep(state uint64, node uint16, nowMs int64) (next, snowflake uint64, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	nx, sf := s.Out(8), s.Out(8)
	st = status(s.M.Xemq_mint_step(int64(state), int32(node), nowMs, nx, sf))
	return s.u64(nx), s.u64(sf), st
}

func wasmMinterNew(node uint16, out *minterHandle) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	p := s.Out(4)
	st = status(s.M.Xemq_minter_new(int32(node), p))
	*out = minterHandle(s.u32(p))
	return st
}

func wasmMinterFree(h minterHandle) {
	var s wasmSession
	defer func() { _ = s.finish(recover()) }() // a trapped state frees nothing: its memory is not trusted
	s = wasmState()
	s.M.Xemq_minter_free(int32(h))
}

func wasmMinterNextI64(h minterHandle, nowMs int64) (r int64) {
	if nowMs == math.MinInt64 {
		// The library's clock is the host's: read here, it costs no call out of the module.
		nowMs = time.Now().UnixMilli()
	}
	var s wasmSession
	defer func() { endNegative(s, recover(), &r) }()
	s = wasmState()
	return s.M.Xemq_minter_next_i64(int32(h), nowMs)
}

func wasmMinterNextMany(h minterHandle, out []uint64) (made int, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	dst, n := s.Reserve(8*len(out)), s.Out(4)
	st = status(s.M.Xemq_minter_next_many(int32(h), dst, i32(len(out)), n))
	made = int(s.u32(n))
	minted := s.Bytes(dst, 8*made)
	for i := range made {
		out[i] = binary.LittleEndian.Uint64(minted[8*i:])
	}
	return made, st
}

// The process-wide minter.

func wasmMint(ns string, out *[IDLen]byte) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	p := s.Out(IDLen)
	if st = status(s.M.Xemq_mint(s.PutString(ns), p)); st == statusOK {
		copy(out[:], s.Bytes(p, IDLen))
	}
	return st
}

func wasmProcessNode() (node uint16, source int, holder uint32, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	n, src, pid := s.Out(2), s.Out(4), s.Out(4)
	st = status(s.M.Xemq_process_node(n, src, pid))
	return s.u16(n), int(s.u32(src)), s.u32(pid), st
}

func wasmProcessSetNode(node uint16) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	return status(s.M.Xemq_process_set_node(int32(node)))
}

// Leases.

func wasmLeaseScriptCount() int {
	var s wasmSession
	defer func() { s.endValue(recover()) }()
	s = wasmOpen()
	return int(s.M.Xemq_lease_script_count())
}

func wasmLeaseScriptName(i int) string {
	text, _ := wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_script_name(i32(i), n) })
	return text
}

func wasmLeaseScriptText(i int) string {
	text, _ := wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_script_text(i32(i), n) })
	return text
}

func wasmLeaseScriptKey(i, k int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_script_key(i32(i), i32(k), n) })
}

func wasmLeaseScriptArg(i, a int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_script_arg(i32(i), i32(a), n) })
}

func wasmLeaseProtocol() string {
	text, _ := wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_protocol(n) })
	return text
}

func wasmLeaseKey() string {
	text, _ := wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_key(n) })
	return text
}

func wasmParseAcquire(node, previous int64) (n uint16, mark int64, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	np, mp := s.Out(2), s.Out(8)
	st = status(s.M.Xemq_parse_acquire(node, previous, np, mp))
	return s.u16(np), int64(s.u64(mp)), st
}

func wasmParseAcquireError(msg string) status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_parse_acquire_error(s.PutString(msg), i32(len(msg))) })
}

func wasmParseRenewal(reply int64) status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_parse_renewal(reply) })
}

func wasmParseWait(acknowledged int64, replicas uint32) status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_parse_wait(acknowledged, int32(replicas)) })
}

// wasmTermsMs calls f on the terms for the ms it writes.
func wasmTermsMs(f func(m wasmSession, ttl, margin int64, out int32) int32, ttlMs, marginMs uint64) (ms uint64, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(8)
	st = status(f(s, int64(ttlMs), int64(marginMs), p))
	return s.u64(p), st
}

func wasmLeaseWaitMs(ttlMs, marginMs uint64) (uint64, status) {
	return wasmTermsMs(func(s wasmSession, ttl, margin int64, out int32) int32 {
		return s.M.Xemq_lease_wait_ms(ttl, margin, out)
	}, ttlMs, marginMs)
}

func wasmLeaseTermsCheck(ttlMs, marginMs uint64) status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_lease_terms_check(int64(ttlMs), int64(marginMs)) })
}

func wasmLeasedMinterStart(node uint16, previousMark, nowMs int64, sentMonoMs, ttlMs, marginMs uint64,
	out *leasedMinterHandle) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	p := s.Out(4)
	st = status(s.M.Xemq_leased_minter_start(int32(node), previousMark, nowMs, int64(sentMonoMs), int64(ttlMs),
		int64(marginMs), p))
	*out = leasedMinterHandle(s.u32(p))
	return st
}

func wasmLeasedMinterFree(h leasedMinterHandle) {
	var s wasmSession
	defer func() { _ = s.finish(recover()) }()
	s = wasmState()
	s.M.Xemq_leased_minter_free(int32(h))
}

func wasmLeasedMinterNextI64(h leasedMinterHandle, nowMs int64, monoMs uint64) (r int64) {
	var s wasmSession
	defer func() { endNegative(s, recover(), &r) }()
	s = wasmState()
	return s.M.Xemq_leased_minter_next_i64(int32(h), nowMs, int64(monoMs))
}

// wasmLeasedU64 calls f on a leased minter for the u64 it writes.
func wasmLeasedU64(f func(s wasmSession, out int32) int32) (v uint64, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	p := s.Out(8)
	st = status(f(s, p))
	return s.u64(p), st
}

func wasmLeasedMinterNextMark(h leasedMinterHandle, nowMs int64) (uint64, status) {
	return wasmLeasedU64(func(s wasmSession, out int32) int32 {
		return s.M.Xemq_leased_minter_next_mark(int32(h), nowMs, out)
	})
}

// wasmStateStatus calls f on the state instance for a status alone.
func wasmStateStatus(f func(s wasmSession) int32) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	return status(f(s))
}

func wasmLeasedMinterRenewed(h leasedMinterHandle, sentMonoMs, mark uint64) status {
	return wasmStateStatus(func(s wasmSession) int32 {
		return s.M.Xemq_leased_minter_renewed(int32(h), int64(sentMonoMs), int64(mark))
	})
}

func wasmLeasedMinterStop(h leasedMinterHandle) status {
	return wasmStateStatus(func(s wasmSession) int32 { return s.M.Xemq_leased_minter_stop(int32(h)) })
}

func wasmLeasedMinterHighWater(h leasedMinterHandle) (uint64, status) {
	return wasmLeasedU64(func(s wasmSession, out int32) int32 {
		return s.M.Xemq_leased_minter_high_water(int32(h), out)
	})
}

func wasmLeasedMinterFenceMs(h leasedMinterHandle) (uint64, status) {
	return wasmLeasedU64(func(s wasmSession, out int32) int32 {
		return s.M.Xemq_leased_minter_fence_ms(int32(h), out)
	})
}

// The lease keeper.

func wasmLeaseOutcomeName(outcome int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_outcome_name(i32(outcome), n) })
}

func wasmLeaseNextName(next int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_next_name(i32(next), n) })
}

func wasmLeaseActionName(action int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_action_name(i32(action), n) })
}

func wasmLeasePhaseName(phase int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_phase_name(i32(phase), n) })
}

func wasmReadLeaseError(text string, asked bool) (outcome int, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(4)
	st = status(s.M.Xemq_read_lease_error(s.PutString(text), i32(len(text)), wasmBool(asked), p))
	return int(int32(s.u32(p))), st
}

func wasmLeaseOutcomeOfWrite(held, acknowledged bool) int {
	var s wasmSession
	defer func() { s.endValue(recover()) }()
	s = wasmOpen()
	return int(s.M.Xemq_lease_outcome_of_write(wasmBool(held), wasmBool(acknowledged)))
}

func wasmParseRedirect(text string) (parts redirectParts, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmOpen()
	p := s.Out(16) // two 32-bit size_t, two u16, an int on wasm32
	if st = status(s.M.Xemq_parse_redirect(s.PutString(text), i32(len(text)), p)); st != statusOK {
		return redirectParts{}, st
	}
	return redirectParts{
		hostOffset: int(s.u32(p)), hostLen: int(s.u32(p + 4)),
		slot: s.u16(p + 8), port: s.u16(p + 10), ask: s.u32(p+12) != 0,
	}, statusOK
}

func wasmLeaseKeeperNew(ttlMs, marginMs, sinceMonoMs uint64, out *leaseKeeperHandle) (st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	p := s.Out(4)
	st = status(s.M.Xemq_lease_keeper_new(int64(ttlMs), int64(marginMs), int64(sinceMonoMs), p))
	*out = leaseKeeperHandle(s.u32(p))
	return st
}

func wasmLeaseKeeperFree(h leaseKeeperHandle) {
	var s wasmSession
	defer func() { _ = s.finish(recover()) }()
	s = wasmState()
	s.M.Xemq_lease_keeper_free(int32(h))
}

// wasmKeeperInt calls f on a keeper for the int it writes.
func wasmKeeperInt(f func(s wasmSession, out int32) int32) (v int, st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	p := s.Out(4)
	st = status(f(s, p))
	return int(int32(s.u32(p))), st
}

func wasmLeaseKeeperNext(h leaseKeeperHandle, nowMonoMs uint64) (int, status) {
	return wasmKeeperInt(func(s wasmSession, out int32) int32 {
		return s.M.Xemq_lease_keeper_next(int32(h), int64(nowMonoMs), out)
	})
}

func wasmLeaseKeeperSettle(h leaseKeeperHandle, outcome int, sentMonoMs, nowMonoMs uint64) (action int, after uint64,
	st status) {
	var s wasmSession
	defer func() { s.end(recover(), &st) }()
	s = wasmState()
	ap, fp := s.Out(4), s.Out(8)
	st = status(s.M.Xemq_lease_keeper_settle(int32(h), i32(outcome), int64(sentMonoMs), int64(nowMonoMs), ap, fp))
	return int(int32(s.u32(ap))), s.u64(fp), st
}

func wasmLeaseKeeperPhase(h leaseKeeperHandle) (int, status) {
	return wasmKeeperInt(func(s wasmSession, out int32) int32 { return s.M.Xemq_lease_keeper_phase(int32(h), out) })
}

func wasmLeaseKeeperRelease(h leaseKeeperHandle) status {
	return wasmStateStatus(func(s wasmSession) int32 { return s.M.Xemq_lease_keeper_release(int32(h)) })
}

func wasmLeaseRefusal(outcome int) status {
	return wasmStatus(func(s wasmSession) int32 { return s.M.Xemq_lease_refusal(i32(outcome)) })
}

func wasmLeaseRefusalDetail(outcome int) (string, bool) {
	return wasmStatic(func(s wasmSession, n int32) int32 { return s.M.Xemq_lease_refusal_detail(i32(outcome), n) })
}

func wasmLeaseRenewEveryMs(ttlMs, marginMs uint64) (uint64, status) {
	return wasmTermsMs(func(s wasmSession, ttl, margin int64, out int32) int32 {
		return s.M.Xemq_lease_renew_every_ms(ttl, margin, out)
	}, ttlMs, marginMs)
}

func wasmLeaseRetryMs(ttlMs, marginMs uint64) (uint64, status) {
	return wasmTermsMs(func(s wasmSession, ttl, margin int64, out int32) int32 {
		return s.M.Xemq_lease_retry_ms(ttl, margin, out)
	}, ttlMs, marginMs)
}
