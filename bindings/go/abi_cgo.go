//go:build cgo && emqid_cgo

package emqid

/*
#cgo pkg-config: emqid
#include <stdint.h>
#include "emq_id.h"

// The minters cross as uintptr_t. cgo cannot see inside an opaque struct, so
// it checks every pointer to one as a possible Go pointer, with a closure and
// a _cgoCheckPointer call on each call, minting included; an integer it
// passes as it is. These casts compile into the calls they wrap.

static inline branded_status go_emq_minter_new(uint16_t node, uintptr_t *out) {
	emq_minter *m = NULL;
	branded_status st = emq_minter_new(node, &m);
	*out = (uintptr_t)m;
	return st;
}
static inline void go_emq_minter_free(uintptr_t m) { emq_minter_free((emq_minter *)m); }
static inline int64_t go_emq_minter_next_i64(uintptr_t m, int64_t now_ms) {
	return emq_minter_next_i64((const emq_minter *)m, now_ms);
}
static inline branded_status go_emq_minter_next_many(uintptr_t m, uint64_t *out, size_t count, size_t *count_out) {
	return emq_minter_next_many((const emq_minter *)m, out, count, count_out);
}

static inline branded_status go_emq_leased_minter_start(uint16_t node, int64_t previous_mark, int64_t now_ms,
		uint64_t sent_mono_ms, uint64_t ttl_ms, uint64_t margin_ms, uintptr_t *out) {
	emq_leased_minter *m = NULL;
	branded_status st = emq_leased_minter_start(node, previous_mark, now_ms, sent_mono_ms, ttl_ms, margin_ms, &m);
	*out = (uintptr_t)m;
	return st;
}
static inline void go_emq_leased_minter_free(uintptr_t m) { emq_leased_minter_free((emq_leased_minter *)m); }
static inline int64_t go_emq_leased_minter_next_i64(uintptr_t m, int64_t now_ms, uint64_t mono_ms) {
	return emq_leased_minter_next_i64((const emq_leased_minter *)m, now_ms, mono_ms);
}
static inline branded_status go_emq_leased_minter_next_mark(uintptr_t m, int64_t now_ms, uint64_t *mark_out) {
	return emq_leased_minter_next_mark((const emq_leased_minter *)m, now_ms, mark_out);
}
static inline branded_status go_emq_leased_minter_renewed(uintptr_t m, uint64_t sent_mono_ms, uint64_t mark) {
	return emq_leased_minter_renewed((const emq_leased_minter *)m, sent_mono_ms, mark);
}
static inline branded_status go_emq_leased_minter_stop(uintptr_t m) {
	return emq_leased_minter_stop((const emq_leased_minter *)m);
}
static inline branded_status go_emq_leased_minter_high_water(uintptr_t m, uint64_t *high_water_out) {
	return emq_leased_minter_high_water((const emq_leased_minter *)m, high_water_out);
}
static inline branded_status go_emq_leased_minter_fence_ms(uintptr_t m, uint64_t *fence_out) {
	return emq_leased_minter_fence_ms((const emq_leased_minter *)m, fence_out);
}

static inline branded_status go_emq_lease_keeper_new(uint64_t ttl_ms, uint64_t margin_ms, uint64_t since_mono_ms,
		uintptr_t *out) {
	emq_lease_keeper *k = NULL;
	branded_status st = emq_lease_keeper_new(ttl_ms, margin_ms, since_mono_ms, &k);
	*out = (uintptr_t)k;
	return st;
}
static inline void go_emq_lease_keeper_free(uintptr_t k) { emq_lease_keeper_free((emq_lease_keeper *)k); }
static inline branded_status go_emq_lease_keeper_next(uintptr_t k, uint64_t now_mono_ms, emq_lease_next *next_out) {
	return emq_lease_keeper_next((emq_lease_keeper *)k, now_mono_ms, next_out);
}
static inline branded_status go_emq_lease_keeper_settle(uintptr_t k, int outcome, uint64_t sent_mono_ms,
		uint64_t now_mono_ms, emq_lease_action *action_out, uint64_t *after_ms_out) {
	return emq_lease_keeper_settle((emq_lease_keeper *)k, outcome, sent_mono_ms, now_mono_ms, action_out, after_ms_out);
}
static inline branded_status go_emq_lease_keeper_phase(uintptr_t k, emq_lease_phase *phase_out) {
	return emq_lease_keeper_phase((const emq_lease_keeper *)k, phase_out);
}
static inline branded_status go_emq_lease_keeper_release(uintptr_t k) {
	return emq_lease_keeper_release((emq_lease_keeper *)k);
}
*/
import "C"

import "unsafe"

// The layer over cgo (see abi.go): the only file of the package that
// imports "C". Every function is one call of the library; the comments say
// why a shape is what it is where the hot paths depend on it.

// The header's numbers, which the core writes: Go never re-types them.
const (
	abiBrandedLen     = C.BRANDED_LEN
	abiBrandedNSLen   = C.BRANDED_NS_LEN
	abiBrandedEpochMs = C.BRANDED_EPOCH_MS
	abiMaxNode        = C.EMQ_MAX_NODE
	abiMaxSeq         = C.EMQ_MAX_SEQ
	abiMaxSnowflake   = C.EMQ_MAX_SNOWFLAKE
	abiSlots          = C.EMQ_SLOTS
	abiMaxQueueLen    = C.EMQ_MAX_QUEUE_LEN
	abiMaxKeyLen      = C.EMQ_MAX_KEY_LEN
	abiLeaseNodes     = C.EMQ_LEASE_NODES
	abiLeaseReplicas  = C.EMQ_LEASE_REPLICAS
	abiLeaseTTLMs     = C.EMQ_LEASE_TTL_MS
	abiLeaseMarginMs  = C.EMQ_LEASE_MARGIN_MS
	abiNoNode         = C.EMQ_NO_NODE
)

// The lease keeper's enumerations (emq_lease_outcome, emq_lease_next,
// emq_lease_action, emq_lease_phase), in the core's order.
const (
	abiOutcomeCounted        = C.EMQ_OUTCOME_COUNTED
	abiOutcomeUnacknowledged = C.EMQ_OUTCOME_UNACKNOWLEDGED
	abiOutcomeGone           = C.EMQ_OUTCOME_GONE
	abiOutcomeLeased         = C.EMQ_OUTCOME_LEASED
	abiOutcomeAsk            = C.EMQ_OUTCOME_ASK
	abiOutcomeMoved          = C.EMQ_OUTCOME_MOVED
	abiOutcomeNotRun         = C.EMQ_OUTCOME_NOT_RUN
	abiOutcomeFault          = C.EMQ_OUTCOME_FAULT
	abiNextAcquire           = C.EMQ_NEXT_ACQUIRE
	abiNextRenew             = C.EMQ_NEXT_RENEW
	abiNextExpired           = C.EMQ_NEXT_EXPIRED
	abiNextRelease           = C.EMQ_NEXT_RELEASE
	abiActionPublish         = C.EMQ_ACTION_PUBLISH
	abiActionRenewed         = C.EMQ_ACTION_RENEWED
	abiActionPend            = C.EMQ_ACTION_PEND
	abiActionWait            = C.EMQ_ACTION_WAIT
	abiActionLose            = C.EMQ_ACTION_LOSE
	abiActionFollow          = C.EMQ_ACTION_FOLLOW
	abiActionReroute         = C.EMQ_ACTION_REROUTE
	abiActionRetry           = C.EMQ_ACTION_RETRY
	abiActionReconnect       = C.EMQ_ACTION_RECONNECT
	abiActionGiveUp          = C.EMQ_ACTION_GIVE_UP
	abiActionReleased        = C.EMQ_ACTION_RELEASED
	abiPhaseStarting         = C.EMQ_PHASE_STARTING
	abiPhaseUnleased         = C.EMQ_PHASE_UNLEASED
	abiPhasePending          = C.EMQ_PHASE_PENDING
	abiPhaseHeld             = C.EMQ_PHASE_HELD
	abiPhaseReleasing        = C.EMQ_PHASE_RELEASING
)

// The library's statuses.
const (
	statusOK        = status(C.BRANDED_OK)
	statusLength    = status(C.BRANDED_ERR_LENGTH)
	statusNamespace = status(C.BRANDED_ERR_NAMESPACE)
	statusCharset   = status(C.BRANDED_ERR_CHARSET)
	statusRange     = status(C.BRANDED_ERR_RANGE)
	statusQueue     = status(C.EMQ_ERR_QUEUE)
	statusKind      = status(C.EMQ_ERR_KIND)
	statusNode      = status(C.EMQ_ERR_NODE)
	statusSelfCheck = status(C.EMQ_ERR_SELF_CHECK)
	statusValkey    = status(C.EMQ_ERR_VALKEY)
	statusPanic     = status(C.EMQ_ERR_PANIC)
)

// abiBackend is what Backend says.
const abiBackend = "cgo"

// size_t is uintptr wherever cgo builds, so the batch calls hand the library
// their []uintptr of lengths and *uintptr counts as they are, with no copy.
// This line fails to compile on a platform where it is not.
var _ [unsafe.Sizeof(uintptr(0))]byte = [unsafe.Sizeof(C.size_t(0))]byte{}

// emptyByte is what a non-NULL pointer to no bytes points at.
var emptyByte byte

// bytesOf is a string's bytes for C (never NULL, so "" is an empty input).
func bytesOf(s string) *C.uint8_t {
	if len(s) == 0 {
		return (*C.uint8_t)(unsafe.Pointer(&emptyByte))
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s)))
}

// charsOf is bytesOf for the ABI's char parameters.
func charsOf(s string) *C.char { return (*C.char)(unsafe.Pointer(bytesOf(s))) }

// written runs a function of the ABI that writes into a caller's buffer.
func written(write func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status) (string, status) {
	var out [C.EMQ_MAX_KEY_LEN]byte
	var n C.size_t
	if st := status(write((*C.uint8_t)(unsafe.Pointer(&out[0])), C.size_t(len(out)), &n)); st != statusOK {
		return "", st
	}
	return string(out[:n]), statusOK
}

// staticText is a static text of the library: its pointer, and its length
// read through n after the call that wrote it (Go does not order a plain
// variable's read against a call in the same expression).
func staticText(text *C.uint8_t, n *C.size_t) string {
	if text == nil {
		return ""
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(text)), C.int(*n))
}

// Status names, gates and the self-check.

func abiStatusName(st status) string { return C.GoString(C.emq_status_name(C.int(st))) }

// abiTrapDetail is "": the native library's guard reports a panic on standard error.
func abiTrapDetail() string { return "" }

func abiGateCount() int { return int(C.emq_gate_count()) }

func abiGateName(i int) string {
	var n C.size_t
	return staticText(C.emq_gate_name(C.size_t(i), &n), &n)
}

func abiGateStatus(i int) status { return status(C.emq_gate_status(C.size_t(i))) }

func abiSelfCheck() status { return status(C.emq_self_check()) }

func abiSelfCheckVectors() string {
	var n C.size_t
	return staticText(C.emq_self_check_vectors(&n), &n)
}

// Ids.

// abiParseI64 returns the snowflake, or minus the status: no out-parameter
// to escape to the heap. data holds n bytes (nil when n is 0).
func abiParseI64(data *byte, n int) int64 {
	return int64(C.emq_parse_i64((*C.char)(unsafe.Pointer(data)), C.size_t(n)))
}

// abiBrandedEncode writes the text of (ns, snowflake) into out; ns is NSLen bytes.
func abiBrandedEncode(ns string, snowflake uint64, out *[IDLen]byte) status {
	return status(C.branded_encode((*C.char)(unsafe.Pointer(unsafe.StringData(ns))), C.uint64_t(snowflake),
		(*C.char)(unsafe.Pointer(&out[0]))))
}

// abiDecodeMany decodes the len(lens) ids packed back to back in data into
// out (at least len(lens) long, len(lens) at least 1), and stores in done how
// many it decoded: a pointer into the caller's pooled struct, since a local
// passed to cgo would move to the heap.
func abiDecodeMany(data []byte, lens []uintptr, out []uint64, done *uintptr) status {
	return status(C.emq_decode_many((*C.char)(unsafe.Pointer(unsafe.SliceData(data))),
		(*C.size_t)(unsafe.Pointer(&lens[0])), C.size_t(len(lens)),
		(*C.uint64_t)(unsafe.Pointer(&out[0])), (*C.size_t)(unsafe.Pointer(done))))
}

// abiEncodeMany writes the texts of snowflakes (at least one) into out,
// IDLen bytes each, and stores in done how many it wrote (as abiDecodeMany).
func abiEncodeMany(ns string, snowflakes []uint64, out []byte, done *uintptr) status {
	return status(C.emq_encode_many(charsOf(ns), (*C.uint64_t)(unsafe.Pointer(&snowflakes[0])),
		C.size_t(len(snowflakes)), (*C.char)(unsafe.Pointer(&out[0])), (*C.size_t)(unsafe.Pointer(done))))
}

func abiBrandedHash32(snowflake uint64) uint32 {
	return uint32(C.branded_hash32(C.uint64_t(snowflake)))
}

func abiBrandedUnixMs(snowflake uint64) uint64 {
	return uint64(C.branded_unix_ms(C.uint64_t(snowflake)))
}

func abiNode(snowflake uint64) uint16 { return uint16(C.emq_node(C.uint64_t(snowflake))) }

func abiSeq(snowflake uint64) uint16 { return uint16(C.emq_seq(C.uint64_t(snowflake))) }

func abiMinFor(unixMs int64) (uint64, status) {
	var s C.uint64_t
	st := status(C.emq_min_for(C.int64_t(unixMs), &s))
	return uint64(s), st
}

func abiIsValid(text string) bool {
	return C.emq_is_valid(charsOf(text), C.size_t(len(text))) != 0
}

func abiCompare(a, b string) (int, status) {
	var order C.int
	st := status(C.emq_compare(charsOf(a), C.size_t(len(a)), charsOf(b), C.size_t(len(b)), &order))
	return int(order), st
}

func abiXaddID(id string) (string, status) {
	return written(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_xadd_id(bytesOf(id), C.size_t(len(id)), out, cap, n)
	})
}

func abiFromXaddID(entry, ns string, out *[IDLen]byte) status {
	return status(C.emq_from_xadd_id(bytesOf(entry), C.size_t(len(entry)),
		charsOf(ns), C.size_t(len(ns)), (*C.char)(unsafe.Pointer(&out[0]))))
}

// Slots.

// abiSlotI32 returns the slot, or minus the status (no out-parameter).
func abiSlotI32(data *byte, n int) int32 {
	return int32(C.emq_slot_i32((*C.uint8_t)(unsafe.Pointer(data)), C.size_t(n)))
}

// abiSlotMany writes the slots of the len(lens) keys packed in data (at least
// one) into out (at least len(lens) long).
func abiSlotMany(data []byte, lens []uintptr, out []uint16) status {
	return status(C.emq_slot_many((*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(data))),
		(*C.size_t)(unsafe.Pointer(&lens[0])), C.size_t(len(lens)), (*C.uint16_t)(unsafe.Pointer(&out[0]))))
}

// abiHashtag is where the key's hashtag lies in it.
func abiHashtag(key []byte) (offset, n int) {
	var off, length C.size_t
	C.emq_hashtag((*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(key))), C.size_t(len(key)), &off, &length)
	return int(off), int(length)
}

// The keyspace.

// abiKey is emq_key with id nil for no id: "" is an empty id, not none.
func abiKey(queue, kind string, id *string) (string, status) {
	var out [C.EMQ_MAX_KEY_LEN]byte
	var n C.size_t
	var idPtr *C.uint8_t
	var idLen C.size_t
	if id != nil {
		// A non-NULL pointer even for "", so the library sees an empty id, not no id.
		idPtr = bytesOf(*id)
		idLen = C.size_t(len(*id))
	}
	st := status(C.emq_key(
		(*C.uint8_t)(unsafe.Pointer(unsafe.StringData(queue))), C.size_t(len(queue)),
		(*C.uint8_t)(unsafe.Pointer(unsafe.StringData(kind))), C.size_t(len(kind)),
		idPtr, idLen,
		(*C.uint8_t)(unsafe.Pointer(&out[0])), C.size_t(len(out)), &n))
	if st != statusOK {
		return "", st
	}
	return string(out[:n]), statusOK
}

func abiParseKey(key string) (keyParts, status) {
	var parts C.emq_parsed_key
	if st := status(C.emq_parse_key(bytesOf(key), C.size_t(len(key)), &parts)); st != statusOK {
		return keyParts{}, st
	}
	return keyParts{
		queueOffset: int(parts.queue_offset), queueLen: int(parts.queue_len),
		family:      uint32(parts.family),
		paramOffset: int(parts.param_offset), paramLen: int(parts.param_len),
	}, statusOK
}

func abiFamilyPattern(family uint32) (string, status) {
	return written(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_family_pattern(C.uint32_t(family), out, cap, n)
	})
}

func abiReserve(name string) (string, status) {
	return written(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_reserve(bytesOf(name), C.size_t(len(name)), out, cap, n)
	})
}

func abiQueuePrefix(queue string) (string, status) {
	return written(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_queue_prefix(bytesOf(queue), C.size_t(len(queue)), out, cap, n)
	})
}

func abiJobPrefix(queue string) (string, status) {
	return written(func(out *C.uint8_t, cap C.size_t, n *C.size_t) C.branded_status {
		return C.emq_job_prefix(bytesOf(queue), C.size_t(len(queue)), out, cap, n)
	})
}

func abiPrefixBytes(queue, ty string) (int, status) {
	var n C.size_t
	st := status(C.emq_prefix_bytes(bytesOf(queue), C.size_t(len(queue)), bytesOf(ty), C.size_t(len(ty)), &n))
	return int(n), st
}

// Minters.

func abiMintStep(state uint64, node uint16, nowMs int64) (next, snowflake uint64, st status) {
	var nx, s C.uint64_t
	st = status(C.emq_mint_step(C.uint64_t(state), C.uint16_t(node), C.int64_t(nowMs), &nx, &s))
	return uint64(nx), uint64(s), st
}

// abiMinterNew stores the new minter in out, a field of the caller's
// heap-allocated minter (a local passed to cgo would move to the heap).
func abiMinterNew(node uint16, out *minterHandle) status {
	return status(C.go_emq_minter_new(C.uint16_t(node), (*C.uintptr_t)(unsafe.Pointer(out))))
}

func abiMinterFree(h minterHandle) { C.go_emq_minter_free(C.uintptr_t(h)) }

// abiMinterNextI64 returns the snowflake, or minus the status (no
// out-parameter); nowMs INT64_MIN reads the library's clock.
func abiMinterNextI64(h minterHandle, nowMs int64) int64 {
	return int64(C.go_emq_minter_next_i64(C.uintptr_t(h), C.int64_t(nowMs)))
}

// abiMinterNextMany mints len(out) snowflakes (at least one) into out and
// returns how many it made.
func abiMinterNextMany(h minterHandle, out []uint64) (int, status) {
	var made C.size_t
	st := status(C.go_emq_minter_next_many(C.uintptr_t(h), (*C.uint64_t)(unsafe.Pointer(&out[0])), C.size_t(len(out)), &made))
	return int(made), st
}

// The process-wide minter.

func abiMint(ns string, out *[IDLen]byte) status {
	return status(C.emq_mint((*C.char)(unsafe.Pointer(unsafe.StringData(ns))), (*C.char)(unsafe.Pointer(&out[0]))))
}

// abiProcessNode is the node, its emq_node_source and, when another process
// holds it, that process's id.
func abiProcessNode() (node uint16, source int, holder uint32, st status) {
	var n C.uint16_t
	var src C.emq_node_source
	var pid C.uint32_t
	st = status(C.emq_process_node(&n, &src, &pid))
	return uint16(n), int(src), uint32(pid), st
}

func abiProcessSetNode(node uint16) status { return status(C.emq_process_set_node(C.uint16_t(node))) }

// Leases.

func abiLeaseScriptCount() int { return int(C.emq_lease_script_count()) }

func abiLeaseScriptName(i int) string {
	var n C.size_t
	return staticText(C.emq_lease_script_name(C.size_t(i), &n), &n)
}

func abiLeaseScriptText(i int) string {
	var n C.size_t
	return staticText(C.emq_lease_script_text(C.size_t(i), &n), &n)
}

// abiLeaseScriptKey is script i's key k, false past its last.
func abiLeaseScriptKey(i, k int) (string, bool) {
	var n C.size_t
	key := C.emq_lease_script_key(C.size_t(i), C.size_t(k), &n)
	return staticText(key, &n), key != nil
}

// abiLeaseScriptArg is script i's argument a, false past its last.
func abiLeaseScriptArg(i, a int) (string, bool) {
	var n C.size_t
	arg := C.emq_lease_script_arg(C.size_t(i), C.size_t(a), &n)
	return staticText(arg, &n), arg != nil
}

func abiLeaseProtocol() string {
	var n C.size_t
	return staticText(C.emq_lease_protocol(&n), &n)
}

func abiLeaseKey() string {
	var n C.size_t
	return staticText(C.emq_lease_key(&n), &n)
}

func abiParseAcquire(node, previous int64) (uint16, int64, status) {
	var n C.uint16_t
	var mark C.int64_t
	st := status(C.emq_parse_acquire(C.int64_t(node), C.int64_t(previous), &n, &mark))
	return uint16(n), int64(mark), st
}

func abiParseAcquireError(msg string) status {
	return status(C.emq_parse_acquire_error(bytesOf(msg), C.size_t(len(msg))))
}

func abiParseRenewal(reply int64) status { return status(C.emq_parse_renewal(C.int64_t(reply))) }

func abiParseWait(acknowledged int64, replicas uint32) status {
	return status(C.emq_parse_wait(C.int64_t(acknowledged), C.uint32_t(replicas)))
}

// termsMs is ms of the terms, as a function of the library writes it.
type termsMs = func(ttlMs, marginMs C.uint64_t, out *C.uint64_t) C.branded_status

// abiTermsMs calls f on the terms for the ms it writes.
func abiTermsMs(f termsMs, ttlMs, marginMs uint64) (uint64, status) {
	var ms C.uint64_t
	st := status(f(C.uint64_t(ttlMs), C.uint64_t(marginMs), &ms))
	return uint64(ms), st
}

func abiLeaseWaitMs(ttlMs, marginMs uint64) (uint64, status) {
	return abiTermsMs(func(t, m C.uint64_t, out *C.uint64_t) C.branded_status { return C.emq_lease_wait_ms(t, m, out) },
		ttlMs, marginMs)
}

func abiLeaseTermsCheck(ttlMs, marginMs uint64) status {
	return status(C.emq_lease_terms_check(C.uint64_t(ttlMs), C.uint64_t(marginMs)))
}

// abiLeasedMinterStart stores the new minter in out, as abiMinterNew.
func abiLeasedMinterStart(node uint16, previousMark, nowMs int64, sentMonoMs, ttlMs, marginMs uint64,
	out *leasedMinterHandle) status {
	return status(C.go_emq_leased_minter_start(C.uint16_t(node), C.int64_t(previousMark), C.int64_t(nowMs),
		C.uint64_t(sentMonoMs), C.uint64_t(ttlMs), C.uint64_t(marginMs), (*C.uintptr_t)(unsafe.Pointer(out))))
}

func abiLeasedMinterFree(h leasedMinterHandle) { C.go_emq_leased_minter_free(C.uintptr_t(h)) }

// abiLeasedMinterNextI64 returns the snowflake, or minus the status.
func abiLeasedMinterNextI64(h leasedMinterHandle, nowMs int64, monoMs uint64) int64 {
	return int64(C.go_emq_leased_minter_next_i64(C.uintptr_t(h), C.int64_t(nowMs), C.uint64_t(monoMs)))
}

func abiLeasedMinterNextMark(h leasedMinterHandle, nowMs int64) (uint64, status) {
	var mark C.uint64_t
	st := status(C.go_emq_leased_minter_next_mark(C.uintptr_t(h), C.int64_t(nowMs), &mark))
	return uint64(mark), st
}

func abiLeasedMinterRenewed(h leasedMinterHandle, sentMonoMs, mark uint64) status {
	return status(C.go_emq_leased_minter_renewed(C.uintptr_t(h), C.uint64_t(sentMonoMs), C.uint64_t(mark)))
}

func abiLeasedMinterStop(h leasedMinterHandle) status {
	return status(C.go_emq_leased_minter_stop(C.uintptr_t(h)))
}

func abiLeasedMinterHighWater(h leasedMinterHandle) (uint64, status) {
	var hw C.uint64_t
	st := status(C.go_emq_leased_minter_high_water(C.uintptr_t(h), &hw))
	return uint64(hw), st
}

func abiLeasedMinterFenceMs(h leasedMinterHandle) (uint64, status) {
	var fence C.uint64_t
	st := status(C.go_emq_leased_minter_fence_ms(C.uintptr_t(h), &fence))
	return uint64(fence), st
}

// The lease keeper.

// abiName is a static name of the library by value, false past the last.
func abiName(name func(C.int, *C.size_t) *C.uint8_t, value int) (string, bool) {
	var n C.size_t
	text := name(C.int(value), &n)
	return staticText(text, &n), text != nil
}

func abiLeaseOutcomeName(outcome int) (string, bool) {
	return abiName(func(v C.int, n *C.size_t) *C.uint8_t { return C.emq_lease_outcome_name(v, n) }, outcome)
}

func abiLeaseNextName(next int) (string, bool) {
	return abiName(func(v C.int, n *C.size_t) *C.uint8_t { return C.emq_lease_next_name(v, n) }, next)
}

func abiLeaseActionName(action int) (string, bool) {
	return abiName(func(v C.int, n *C.size_t) *C.uint8_t { return C.emq_lease_action_name(v, n) }, action)
}

func abiLeasePhaseName(phase int) (string, bool) {
	return abiName(func(v C.int, n *C.size_t) *C.uint8_t { return C.emq_lease_phase_name(v, n) }, phase)
}

// cBool is a Go bool as the ABI's int.
func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func abiReadLeaseError(text string, asked bool) (int, status) {
	var outcome C.emq_lease_outcome
	st := status(C.emq_read_lease_error(bytesOf(text), C.size_t(len(text)), cBool(asked), &outcome))
	return int(outcome), st
}

func abiLeaseOutcomeOfWrite(held, acknowledged bool) int {
	return int(C.emq_lease_outcome_of_write(cBool(held), cBool(acknowledged)))
}

func abiParseRedirect(text string) (redirectParts, status) {
	var r C.emq_redirect
	if st := status(C.emq_parse_redirect(bytesOf(text), C.size_t(len(text)), &r)); st != statusOK {
		return redirectParts{}, st
	}
	return redirectParts{
		hostOffset: int(r.host_offset), hostLen: int(r.host_len),
		slot: uint16(r.slot), port: uint16(r.port), ask: r.ask != 0,
	}, statusOK
}

// abiLeaseKeeperNew stores the new keeper in out, as abiMinterNew.
func abiLeaseKeeperNew(ttlMs, marginMs, sinceMonoMs uint64, out *leaseKeeperHandle) status {
	return status(C.go_emq_lease_keeper_new(C.uint64_t(ttlMs), C.uint64_t(marginMs), C.uint64_t(sinceMonoMs),
		(*C.uintptr_t)(unsafe.Pointer(out))))
}

func abiLeaseKeeperFree(h leaseKeeperHandle) { C.go_emq_lease_keeper_free(C.uintptr_t(h)) }

func abiLeaseKeeperNext(h leaseKeeperHandle, nowMonoMs uint64) (int, status) {
	var next C.emq_lease_next
	st := status(C.go_emq_lease_keeper_next(C.uintptr_t(h), C.uint64_t(nowMonoMs), &next))
	return int(next), st
}

func abiLeaseKeeperSettle(h leaseKeeperHandle, outcome int, sentMonoMs, nowMonoMs uint64) (int, uint64, status) {
	var action C.emq_lease_action
	var after C.uint64_t
	st := status(C.go_emq_lease_keeper_settle(C.uintptr_t(h), C.int(outcome), C.uint64_t(sentMonoMs),
		C.uint64_t(nowMonoMs), &action, &after))
	return int(action), uint64(after), st
}

func abiLeaseKeeperPhase(h leaseKeeperHandle) (int, status) {
	var phase C.emq_lease_phase
	st := status(C.go_emq_lease_keeper_phase(C.uintptr_t(h), &phase))
	return int(phase), st
}

func abiLeaseKeeperRelease(h leaseKeeperHandle) status {
	return status(C.go_emq_lease_keeper_release(C.uintptr_t(h)))
}

func abiLeaseRefusal(outcome int) status { return status(C.emq_lease_refusal(C.int(outcome))) }

func abiLeaseRefusalDetail(outcome int) (string, bool) {
	return abiName(func(v C.int, n *C.size_t) *C.uint8_t { return C.emq_lease_refusal_detail(v, n) }, outcome)
}

func abiLeaseRenewEveryMs(ttlMs, marginMs uint64) (uint64, status) {
	return abiTermsMs(func(t, m C.uint64_t, out *C.uint64_t) C.branded_status {
		return C.emq_lease_renew_every_ms(t, m, out)
	}, ttlMs, marginMs)
}

func abiLeaseRetryMs(ttlMs, marginMs uint64) (uint64, status) {
	return abiTermsMs(func(t, m C.uint64_t, out *C.uint64_t) C.branded_status { return C.emq_lease_retry_ms(t, m, out) },
		ttlMs, marginMs)
}
