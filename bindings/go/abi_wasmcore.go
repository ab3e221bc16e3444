//go:build !(cgo && emqid_cgo) || emqid_diff

package emqid

// The layer (see abi.go) over the library compiled to WebAssembly
// (internal/wasmcore runs it with wazero): each function writes its inputs
// into the module's memory, calls the export of the same name, and reads its
// outputs back, in one session of the module (calls take turns). On the
// wasm32 ABI, pointers and size_t are 32-bit and the library's statuses,
// enums and 16-bit integers are i32; 64-bit integers are i64.
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

// wasmExports is the module and its exports, resolved once at load.
type wasmExports struct {
	core *wasmcore.Core

	statusName, gateCount, gateName, gateStatus, selfCheck, selfCheckVectors wasmcore.Func

	parseI64, encode, decodeMany, encodeMany, hash32, unixMs, node, seq, minFor, isValid, compare wasmcore.Func
	xaddID, fromXaddID, slotI32, slotMany, hashtag                                                wasmcore.Func

	key, parseKey, familyPattern, reserve, queuePrefix, jobPrefix, prefixBytes wasmcore.Func

	mintStep, minterNew, minterFree, minterNextI64, minterNextMany, mint, processNode, processSetNode wasmcore.Func

	leaseScriptCount, leaseScriptName, leaseScriptText, leaseScriptKey, leaseScriptArg, leaseProtocol wasmcore.Func
	leaseKey, parseAcquire, parseAcquireError, parseRenewal, parseWait                                wasmcore.Func
	leaseWaitMs, leaseTermsCheck                                                                      wasmcore.Func

	leasedStart, leasedFree, leasedNextI64, leasedNextMark, leasedRenewed, leasedStop, leasedHighWater wasmcore.Func
	leasedFenceMs                                                                                      wasmcore.Func

	outcomeName, nextName, actionName, phaseName, readLeaseError, outcomeOfWrite, parseRedirect wasmcore.Func
	keeperNew, keeperFree, keeperNext, keeperSettle, keeperPhase, keeperRelease                 wasmcore.Func
	refusal, refusalDetail, renewEveryMs, retryMs                                               wasmcore.Func
}

var wasm = loadWasm()

// loadWasm instantiates the module; a module that does not load leaves the
// package unusable, as a library that does not link does.
func loadWasm() *wasmExports {
	core, err := wasmcore.Load()
	if err != nil {
		panic(err)
	}
	f := core.Func
	return &wasmExports{
		core:       core,
		statusName: f("emq_status_name"), gateCount: f("emq_gate_count"), gateName: f("emq_gate_name"),
		gateStatus: f("emq_gate_status"), selfCheck: f("emq_self_check"), selfCheckVectors: f("emq_self_check_vectors"),

		parseI64: f("emq_parse_i64"), encode: f("branded_encode"), decodeMany: f("emq_decode_many"),
		encodeMany: f("emq_encode_many"), hash32: f("branded_hash32"), unixMs: f("branded_unix_ms"),
		node: f("emq_node"), seq: f("emq_seq"), minFor: f("emq_min_for"), isValid: f("emq_is_valid"),
		compare: f("emq_compare"), xaddID: f("emq_xadd_id"), fromXaddID: f("emq_from_xadd_id"),
		slotI32: f("emq_slot_i32"), slotMany: f("emq_slot_many"), hashtag: f("emq_hashtag"),

		key: f("emq_key"), parseKey: f("emq_parse_key"), familyPattern: f("emq_family_pattern"),
		reserve: f("emq_reserve"), queuePrefix: f("emq_queue_prefix"), jobPrefix: f("emq_job_prefix"),
		prefixBytes: f("emq_prefix_bytes"),

		mintStep: f("emq_mint_step"), minterNew: f("emq_minter_new"), minterFree: f("emq_minter_free"),
		minterNextI64: f("emq_minter_next_i64"), minterNextMany: f("emq_minter_next_many"), mint: f("emq_mint"),
		processNode: f("emq_process_node"), processSetNode: f("emq_process_set_node"),

		leaseScriptCount: f("emq_lease_script_count"), leaseScriptName: f("emq_lease_script_name"),
		leaseScriptText: f("emq_lease_script_text"), leaseScriptKey: f("emq_lease_script_key"),
		leaseScriptArg: f("emq_lease_script_arg"), leaseProtocol: f("emq_lease_protocol"), leaseKey: f("emq_lease_key"),
		parseAcquire: f("emq_parse_acquire"), parseAcquireError: f("emq_parse_acquire_error"),
		parseRenewal: f("emq_parse_renewal"), parseWait: f("emq_parse_wait"), leaseWaitMs: f("emq_lease_wait_ms"),
		leaseTermsCheck: f("emq_lease_terms_check"),

		leasedStart: f("emq_leased_minter_start"), leasedFree: f("emq_leased_minter_free"),
		leasedNextI64: f("emq_leased_minter_next_i64"), leasedNextMark: f("emq_leased_minter_next_mark"),
		leasedRenewed: f("emq_leased_minter_renewed"), leasedStop: f("emq_leased_minter_stop"),
		leasedHighWater: f("emq_leased_minter_high_water"), leasedFenceMs: f("emq_leased_minter_fence_ms"),

		outcomeName: f("emq_lease_outcome_name"), nextName: f("emq_lease_next_name"),
		actionName: f("emq_lease_action_name"), phaseName: f("emq_lease_phase_name"),
		readLeaseError: f("emq_read_lease_error"), outcomeOfWrite: f("emq_lease_outcome_of_write"),
		parseRedirect: f("emq_parse_redirect"), keeperNew: f("emq_lease_keeper_new"),
		keeperFree: f("emq_lease_keeper_free"), keeperNext: f("emq_lease_keeper_next"),
		keeperSettle: f("emq_lease_keeper_settle"), keeperPhase: f("emq_lease_keeper_phase"),
		keeperRelease: f("emq_lease_keeper_release"), refusal: f("emq_lease_refusal"),
		refusalDetail: f("emq_lease_refusal_detail"), renewEveryMs: f("emq_lease_renew_every_ms"),
		retryMs: f("emq_lease_retry_ms"),
	}
}

// wasmSession is one locked use of the module. The first failure of the
// transport (memory exhausted, a trap) sticks: the call then answers
// statusPanic, as the native library answers a panic.
type wasmSession struct {
	s   *wasmcore.Session
	err error
}

func wasmOpen() wasmSession { return wasmSession{s: wasm.core.Lock()} }

func (s *wasmSession) close() { s.s.Unlock() }

// in is b copied into the module's memory (a pointer, never 0).
func (s *wasmSession) in(b []byte) uint64 { return wasmPut(s, b) }

// str is in for a string.
func (s *wasmSession) str(text string) uint64 { return wasmPut(s, text) }

func wasmPut[T string | []byte](s *wasmSession, b T) uint64 {
	if s.err != nil {
		return 0
	}
	p, err := wasmcore.Put(s.s, b)
	s.err = err
	return uint64(p)
}

// out is n bytes of the module's memory for an output, zeroed: what an
// output the library leaves unwritten (on a refusal) reads, as the native
// layer's zero-initialised variables do.
func (s *wasmSession) out(n int) uint64 {
	p := s.buffer(n)
	if s.err == nil {
		clear(s.bytes(p, n))
	}
	return p
}

// buffer is n bytes of the module's memory for an output read only as far
// as the library says it wrote (a batch's items, a key's bytes).
func (s *wasmSession) buffer(n int) uint64 {
	if s.err != nil {
		return 0
	}
	p, err := s.s.Reserve(n)
	s.err = err
	return uint64(p)
}

// call calls f; its result (0 after a failure).
func (s *wasmSession) call(f wasmcore.Func, args ...uint64) uint64 {
	if s.err != nil {
		return 0
	}
	r, err := s.s.Call(f, args...)
	s.err = err
	return r
}

// value calls f for a result that has no status to carry a failure (a
// hash, a count, a text): after a trap the instance cannot answer, and a
// zero would pass for an answer, so it panics, as an aborting native library
// would end the process.
func (s *wasmSession) value(f wasmcore.Func, args ...uint64) uint64 {
	r := s.call(f, args...)
	if s.err != nil {
		panic(s.err)
	}
	return r
}

// status calls f for a branded_status.
func (s *wasmSession) status(f wasmcore.Func, args ...uint64) status {
	r := s.call(f, args...)
	if s.err != nil {
		return statusPanic
	}
	return status(int32(uint32(r)))
}

func (s *wasmSession) bytes(p uint64, n int) []byte { return s.s.Bytes(uint32(p), n) }

// u16, u32 and u64 read a little-endian output (0 after a failure).
func (s *wasmSession) u16(p uint64) uint16 {
	if b := s.bytes(p, 2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (s *wasmSession) u32(p uint64) uint32 {
	if b := s.bytes(p, 4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (s *wasmSession) u64(p uint64) uint64 {
	if b := s.bytes(p, 8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// text is the n bytes at p as a string (a copy), "" for a NULL p.
func (s *wasmSession) text(p uint64, n int) string {
	if p == 0 || s.err != nil {
		return ""
	}
	return string(s.bytes(p, n))
}

// wasmStatic calls f, which returns a static text and writes its length
// through its last argument.
func wasmStatic(f wasmcore.Func, args ...uint64) (string, bool) {
	s := wasmOpen()
	defer s.close()
	n := s.out(4)
	p := s.value(f, append(args, n)...)
	return s.text(p, int(s.u32(n))), p != 0
}

// wasmWritten calls f, which writes at most abiMaxKeyLen bytes into (out, cap)
// and their count through its last argument, after args.
func wasmWritten(f wasmcore.Func, s *wasmSession, args ...uint64) (string, status) {
	out, n := s.buffer(abiMaxKeyLen), s.out(4)
	if st := s.status(f, append(args, out, abiMaxKeyLen, n)...); st != statusOK {
		return "", st
	}
	return s.text(out, int(s.u32(n))), statusOK
}

// Status names, gates and the self-check.

func wasmStatusName(st status) string {
	s := wasmOpen()
	defer s.close()
	p := s.call(wasm.statusName, uint64(uint32(st)))
	if p == 0 || s.err != nil {
		return "panic"
	}
	name := s.bytes(p, 32)
	for i, c := range name {
		if c == 0 {
			return string(name[:i])
		}
	}
	return string(name)
}

func wasmGateCount() int {
	s := wasmOpen()
	defer s.close()
	return int(s.value(wasm.gateCount))
}

func wasmGateName(i int) string { text, _ := wasmStatic(wasm.gateName, uint64(i)); return text }

func wasmGateStatus(i int) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.gateStatus, uint64(i))
}

func wasmSelfCheck() status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.selfCheck)
}

func wasmSelfCheckVectors() string { text, _ := wasmStatic(wasm.selfCheckVectors); return text }

// Ids.

func wasmParseI64(data *byte, n int) int64 {
	s := wasmOpen()
	defer s.close()
	r := s.call(wasm.parseI64, s.in(unsafe.Slice(data, n)), uint64(n))
	if s.err != nil {
		return -int64(statusPanic)
	}
	return int64(r)
}

func wasmBrandedEncode(ns string, snowflake uint64, out *[IDLen]byte) status {
	s := wasmOpen()
	defer s.close()
	p := s.out(IDLen)
	st := s.status(wasm.encode, s.str(ns), snowflake, p)
	if st == statusOK {
		copy(out[:], s.bytes(p, IDLen))
	}
	return st
}

// lengths32 is lens as the wasm32 ABI's size_t array.
func (s *wasmSession) lengths32(lens []uintptr) uint64 {
	p := s.buffer(4 * len(lens))
	if s.err != nil {
		return 0
	}
	b := s.bytes(p, 4*len(lens))
	for i, n := range lens {
		if uint64(n) > math.MaxUint32 {
			s.err = wasmcore.ErrTrap
			return 0
		}
		binary.LittleEndian.PutUint32(b[4*i:], uint32(n))
	}
	return p
}

func wasmDecodeMany(data []byte, lens []uintptr, out []uint64, done *uintptr) status {
	s := wasmOpen()
	defer s.close()
	count := len(lens)
	dst, n := s.buffer(8*count), s.out(4)
	st := s.status(wasm.decodeMany, s.in(data), s.lengths32(lens), uint64(count), dst, n)
	if s.err == nil {
		*done = uintptr(s.u32(n))
		decoded := s.bytes(dst, 8*count)
		for i := range int(*done) {
			out[i] = binary.LittleEndian.Uint64(decoded[8*i:])
		}
	}
	return st
}

func wasmEncodeMany(ns string, snowflakes []uint64, out []byte, done *uintptr) status {
	s := wasmOpen()
	defer s.close()
	count := len(snowflakes)
	src := s.buffer(8 * count)
	if s.err == nil {
		b := s.bytes(src, 8*count)
		for i, v := range snowflakes {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
	}
	dst, n := s.buffer(IDLen*count), s.out(4)
	st := s.status(wasm.encodeMany, s.str(ns), src, uint64(count), dst, n)
	if s.err == nil {
		*done = uintptr(s.u32(n))
		copy(out, s.bytes(dst, IDLen*int(*done)))
	}
	return st
}

func wasmBrandedHash32(snowflake uint64) uint32 {
	s := wasmOpen()
	defer s.close()
	return uint32(s.value(wasm.hash32, snowflake))
}

func wasmBrandedUnixMs(snowflake uint64) uint64 {
	s := wasmOpen()
	defer s.close()
	return s.value(wasm.unixMs, snowflake)
}

func wasmNode(snowflake uint64) uint16 {
	s := wasmOpen()
	defer s.close()
	return uint16(s.value(wasm.node, snowflake))
}

func wasmSeq(snowflake uint64) uint16 {
	s := wasmOpen()
	defer s.close()
	return uint16(s.value(wasm.seq, snowflake))
}

func wasmMinFor(unixMs int64) (uint64, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(8)
	st := s.status(wasm.minFor, uint64(unixMs), p)
	return s.u64(p), st
}

func wasmIsValid(text string) bool {
	s := wasmOpen()
	defer s.close()
	return s.value(wasm.isValid, s.str(text), uint64(len(text))) != 0
}

func wasmCompare(a, b string) (int, status) {
	s := wasmOpen()
	defer s.close()
	order := s.out(4)
	st := s.status(wasm.compare, s.str(a), uint64(len(a)), s.str(b), uint64(len(b)), order)
	return int(int32(s.u32(order))), st
}

func wasmXaddID(id string) (string, status) {
	s := wasmOpen()
	defer s.close()
	return wasmWritten(wasm.xaddID, &s, s.str(id), uint64(len(id)))
}

func wasmFromXaddID(entry, ns string, out *[IDLen]byte) status {
	s := wasmOpen()
	defer s.close()
	p := s.out(IDLen)
	st := s.status(wasm.fromXaddID, s.str(entry), uint64(len(entry)), s.str(ns), uint64(len(ns)), p)
	if st == statusOK {
		copy(out[:], s.bytes(p, IDLen))
	}
	return st
}

// Slots.

func wasmSlotI32(data *byte, n int) int32 {
	s := wasmOpen()
	defer s.close()
	r := s.call(wasm.slotI32, s.in(unsafe.Slice(data, n)), uint64(n))
	if s.err != nil {
		return -int32(statusPanic)
	}
	return int32(uint32(r))
}

func wasmSlotMany(data []byte, lens []uintptr, out []uint16) status {
	s := wasmOpen()
	defer s.close()
	count := len(lens)
	dst := s.buffer(2 * count)
	st := s.status(wasm.slotMany, s.in(data), s.lengths32(lens), uint64(count), dst)
	if st == statusOK {
		slots := s.bytes(dst, 2*count)
		for i := range count {
			out[i] = binary.LittleEndian.Uint16(slots[2*i:])
		}
	}
	return st
}

func wasmHashtag(key []byte) (offset, n int) {
	s := wasmOpen()
	defer s.close()
	off, length := s.out(4), s.out(4)
	s.value(wasm.hashtag, s.in(key), uint64(len(key)), off, length)
	return int(s.u32(off)), int(s.u32(length))
}

// The keyspace.

func wasmKey(queue, kind string, id *string) (string, status) {
	s := wasmOpen()
	defer s.close()
	var idPtr, idLen uint64 // NULL: no id; "" is an empty id at a real address
	if id != nil {
		idPtr, idLen = s.str(*id), uint64(len(*id))
	}
	return wasmWritten(wasm.key, &s, s.str(queue), uint64(len(queue)), s.str(kind), uint64(len(kind)), idPtr, idLen)
}

func wasmParseKey(key string) (keyParts, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(20) // five 32-bit fields on wasm32
	if st := s.status(wasm.parseKey, s.str(key), uint64(len(key)), p); st != statusOK {
		return keyParts{}, st
	}
	return keyParts{
		queueOffset: int(s.u32(p)), queueLen: int(s.u32(p + 4)),
		family:      s.u32(p + 8),
		paramOffset: int(s.u32(p + 12)), paramLen: int(s.u32(p + 16)),
	}, statusOK
}

func wasmFamilyPattern(family uint32) (string, status) {
	s := wasmOpen()
	defer s.close()
	return wasmWritten(wasm.familyPattern, &s, uint64(family))
}

func wasmReserve(name string) (string, status) {
	s := wasmOpen()
	defer s.close()
	return wasmWritten(wasm.reserve, &s, s.str(name), uint64(len(name)))
}

func wasmQueuePrefix(queue string) (string, status) {
	s := wasmOpen()
	defer s.close()
	return wasmWritten(wasm.queuePrefix, &s, s.str(queue), uint64(len(queue)))
}

func wasmJobPrefix(queue string) (string, status) {
	s := wasmOpen()
	defer s.close()
	return wasmWritten(wasm.jobPrefix, &s, s.str(queue), uint64(len(queue)))
}

func wasmPrefixBytes(queue, ty string) (int, status) {
	s := wasmOpen()
	defer s.close()
	n := s.out(4)
	st := s.status(wasm.prefixBytes, s.str(queue), uint64(len(queue)), s.str(ty), uint64(len(ty)), n)
	return int(s.u32(n)), st
}

// Minters.

func wasmMintStep(state uint64, node uint16, nowMs int64) (next, snowflake uint64, st status) {
	s := wasmOpen()
	defer s.close()
	nx, sf := s.out(8), s.out(8)
	st = s.status(wasm.mintStep, state, uint64(node), uint64(nowMs), nx, sf)
	return s.u64(nx), s.u64(sf), st
}

func wasmMinterNew(node uint16, out *minterHandle) status {
	s := wasmOpen()
	defer s.close()
	p := s.out(4)
	st := s.status(wasm.minterNew, uint64(node), p)
	*out = minterHandle(s.u32(p))
	return st
}

func wasmMinterFree(h minterHandle) {
	s := wasmOpen()
	defer s.close()
	s.call(wasm.minterFree, uint64(h))
}

func wasmMinterNextI64(h minterHandle, nowMs int64) int64 {
	if nowMs == math.MinInt64 {
		// The library's clock is the host's: read here, it costs no call out of the module.
		nowMs = time.Now().UnixMilli()
	}
	s := wasmOpen()
	defer s.close()
	r := s.call(wasm.minterNextI64, uint64(h), uint64(nowMs))
	if s.err != nil {
		return -int64(statusPanic)
	}
	return int64(r)
}

func wasmMinterNextMany(h minterHandle, out []uint64) (int, status) {
	s := wasmOpen()
	defer s.close()
	dst, made := s.buffer(8*len(out)), s.out(4)
	st := s.status(wasm.minterNextMany, uint64(h), dst, uint64(len(out)), made)
	n := int(s.u32(made))
	if s.err == nil {
		minted := s.bytes(dst, 8*n)
		for i := range n {
			out[i] = binary.LittleEndian.Uint64(minted[8*i:])
		}
	}
	return n, st
}

// The process-wide minter.

func wasmMint(ns string, out *[IDLen]byte) status {
	s := wasmOpen()
	defer s.close()
	p := s.out(IDLen)
	st := s.status(wasm.mint, s.str(ns), p)
	if st == statusOK {
		copy(out[:], s.bytes(p, IDLen))
	}
	return st
}

func wasmProcessNode() (node uint16, source int, holder uint32, st status) {
	s := wasmOpen()
	defer s.close()
	n, src, pid := s.out(2), s.out(4), s.out(4)
	st = s.status(wasm.processNode, n, src, pid)
	return s.u16(n), int(s.u32(src)), s.u32(pid), st
}

func wasmProcessSetNode(node uint16) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.processSetNode, uint64(node))
}

// Leases.

func wasmLeaseScriptCount() int {
	s := wasmOpen()
	defer s.close()
	return int(s.value(wasm.leaseScriptCount))
}

func wasmLeaseScriptName(i int) string {
	text, _ := wasmStatic(wasm.leaseScriptName, uint64(i))
	return text
}

func wasmLeaseScriptText(i int) string {
	text, _ := wasmStatic(wasm.leaseScriptText, uint64(i))
	return text
}

func wasmLeaseScriptKey(i, k int) (string, bool) {
	return wasmStatic(wasm.leaseScriptKey, uint64(i), uint64(k))
}

func wasmLeaseScriptArg(i, a int) (string, bool) {
	return wasmStatic(wasm.leaseScriptArg, uint64(i), uint64(a))
}

func wasmLeaseProtocol() string { text, _ := wasmStatic(wasm.leaseProtocol); return text }

func wasmLeaseKey() string { text, _ := wasmStatic(wasm.leaseKey); return text }

func wasmParseAcquire(node, previous int64) (uint16, int64, status) {
	s := wasmOpen()
	defer s.close()
	n, mark := s.out(2), s.out(8)
	st := s.status(wasm.parseAcquire, uint64(node), uint64(previous), n, mark)
	return s.u16(n), int64(s.u64(mark)), st
}

func wasmParseAcquireError(msg string) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.parseAcquireError, s.str(msg), uint64(len(msg)))
}

func wasmParseRenewal(reply int64) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.parseRenewal, uint64(reply))
}

func wasmParseWait(acknowledged int64, replicas uint32) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.parseWait, uint64(acknowledged), uint64(replicas))
}

// wasmTermsMs calls f on the terms for the ms it writes.
func wasmTermsMs(f wasmcore.Func, ttlMs, marginMs uint64) (uint64, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(8)
	st := s.status(f, ttlMs, marginMs, p)
	return s.u64(p), st
}

func wasmLeaseWaitMs(ttlMs, marginMs uint64) (uint64, status) {
	return wasmTermsMs(wasm.leaseWaitMs, ttlMs, marginMs)
}

func wasmLeaseTermsCheck(ttlMs, marginMs uint64) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.leaseTermsCheck, ttlMs, marginMs)
}

func wasmLeasedMinterStart(node uint16, previousMark, nowMs int64, sentMonoMs, ttlMs, marginMs uint64,
	out *leasedMinterHandle) status {
	s := wasmOpen()
	defer s.close()
	p := s.out(4)
	st := s.status(wasm.leasedStart, uint64(node), uint64(previousMark), uint64(nowMs), sentMonoMs, ttlMs, marginMs, p)
	*out = leasedMinterHandle(s.u32(p))
	return st
}

func wasmLeasedMinterFree(h leasedMinterHandle) {
	s := wasmOpen()
	defer s.close()
	s.call(wasm.leasedFree, uint64(h))
}

func wasmLeasedMinterNextI64(h leasedMinterHandle, nowMs int64, monoMs uint64) int64 {
	s := wasmOpen()
	defer s.close()
	r := s.call(wasm.leasedNextI64, uint64(h), uint64(nowMs), monoMs)
	if s.err != nil {
		return -int64(statusPanic)
	}
	return int64(r)
}

func wasmLeasedMinterNextMark(h leasedMinterHandle, nowMs int64) (uint64, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(8)
	st := s.status(wasm.leasedNextMark, uint64(h), uint64(nowMs), p)
	return s.u64(p), st
}

func wasmLeasedMinterRenewed(h leasedMinterHandle, sentMonoMs, mark uint64) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.leasedRenewed, uint64(h), sentMonoMs, mark)
}

func wasmLeasedMinterStop(h leasedMinterHandle) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.leasedStop, uint64(h))
}

func wasmLeasedMinterHighWater(h leasedMinterHandle) (uint64, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(8)
	st := s.status(wasm.leasedHighWater, uint64(h), p)
	return s.u64(p), st
}

func wasmLeasedMinterFenceMs(h leasedMinterHandle) (uint64, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(8)
	st := s.status(wasm.leasedFenceMs, uint64(h), p)
	return s.u64(p), st
}

// The lease keeper.

// wasmInt is a Go int as the wasm32 ABI's int argument.
func wasmInt(v int) uint64 { return uint64(uint32(int32(v))) }

// wasmBool is a Go bool as the ABI's int.
func wasmBool(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func wasmLeaseOutcomeName(outcome int) (string, bool) {
	return wasmStatic(wasm.outcomeName, wasmInt(outcome))
}

func wasmLeaseNextName(next int) (string, bool) { return wasmStatic(wasm.nextName, wasmInt(next)) }

func wasmLeaseActionName(action int) (string, bool) {
	return wasmStatic(wasm.actionName, wasmInt(action))
}

func wasmLeasePhaseName(phase int) (string, bool) { return wasmStatic(wasm.phaseName, wasmInt(phase)) }

func wasmReadLeaseError(text string, asked bool) (int, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(4)
	st := s.status(wasm.readLeaseError, s.str(text), uint64(len(text)), wasmBool(asked), p)
	return int(int32(s.u32(p))), st
}

func wasmLeaseOutcomeOfWrite(held, acknowledged bool) int {
	s := wasmOpen()
	defer s.close()
	return int(int32(uint32(s.value(wasm.outcomeOfWrite, wasmBool(held), wasmBool(acknowledged)))))
}

func wasmParseRedirect(text string) (redirectParts, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(16) // two 32-bit size_t, two u16, an int on wasm32
	if st := s.status(wasm.parseRedirect, s.str(text), uint64(len(text)), p); st != statusOK {
		return redirectParts{}, st
	}
	return redirectParts{
		hostOffset: int(s.u32(p)), hostLen: int(s.u32(p + 4)),
		slot: s.u16(p + 8), port: s.u16(p + 10), ask: s.u32(p+12) != 0,
	}, statusOK
}

func wasmLeaseKeeperNew(ttlMs, marginMs, sinceMonoMs uint64, out *leaseKeeperHandle) status {
	s := wasmOpen()
	defer s.close()
	p := s.out(4)
	st := s.status(wasm.keeperNew, ttlMs, marginMs, sinceMonoMs, p)
	*out = leaseKeeperHandle(s.u32(p))
	return st
}

func wasmLeaseKeeperFree(h leaseKeeperHandle) {
	s := wasmOpen()
	defer s.close()
	s.call(wasm.keeperFree, uint64(h))
}

func wasmLeaseKeeperNext(h leaseKeeperHandle, nowMonoMs uint64) (int, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(4)
	st := s.status(wasm.keeperNext, uint64(h), nowMonoMs, p)
	return int(int32(s.u32(p))), st
}

func wasmLeaseKeeperSettle(h leaseKeeperHandle, outcome int, sentMonoMs, nowMonoMs uint64) (int, uint64, status) {
	s := wasmOpen()
	defer s.close()
	action, after := s.out(4), s.out(8)
	st := s.status(wasm.keeperSettle, uint64(h), wasmInt(outcome), sentMonoMs, nowMonoMs, action, after)
	return int(int32(s.u32(action))), s.u64(after), st
}

func wasmLeaseKeeperPhase(h leaseKeeperHandle) (int, status) {
	s := wasmOpen()
	defer s.close()
	p := s.out(4)
	st := s.status(wasm.keeperPhase, uint64(h), p)
	return int(int32(s.u32(p))), st
}

func wasmLeaseKeeperRelease(h leaseKeeperHandle) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.keeperRelease, uint64(h))
}

func wasmLeaseRefusal(outcome int) status {
	s := wasmOpen()
	defer s.close()
	return s.status(wasm.refusal, wasmInt(outcome))
}

func wasmLeaseRefusalDetail(outcome int) (string, bool) {
	return wasmStatic(wasm.refusalDetail, wasmInt(outcome))
}

func wasmLeaseRenewEveryMs(ttlMs, marginMs uint64) (uint64, status) {
	return wasmTermsMs(wasm.renewEveryMs, ttlMs, marginMs)
}

func wasmLeaseRetryMs(ttlMs, marginMs uint64) (uint64, status) {
	return wasmTermsMs(wasm.retryMs, ttlMs, marginMs)
}
