//go:build cgo && emqid_cgo && emqid_diff

package emqid

// The two backends side by side (a cgo build tagged emqid_diff holds both):
// the same random inputs through every stateless call of the layer, native
// (abi*) and WebAssembly (wasm*), must give the same answers, errors
// included. `cargo xtask test` runs it; the vector file checks each backend
// against the contract, this checks them against each other far from it.

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

const differentialRounds = 20_000

// bytesFrom is n random bytes, mostly of alphabet (the inputs the gates
// look at), sometimes any byte.
func bytesFrom(r *rand.Rand, alphabet string, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		if r.IntN(16) == 0 {
			b[i] = byte(r.IntN(256))
		} else {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return b
}

const (
	base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	queue  = "abcdefghijklmnopqrstuvwxyz0123456789_.:-{}"
)

// randomText is an id-like, key-like or queue-like text of a random length.
func randomText(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return string(bytesFrom(r, upper, 3)) + string(bytesFrom(r, base62, 11))
	case 1:
		return string(bytesFrom(r, base62, r.IntN(20)))
	case 2:
		return string(bytesFrom(r, queue, r.IntN(140)))
	default:
		return "emq:{" + string(bytesFrom(r, queue, r.IntN(12))) + "}:" + string(bytesFrom(r, queue, r.IntN(30)))
	}
}

func randomU64(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return r.Uint64()
	case 1:
		return r.Uint64() >> 1
	case 2:
		return uint64(r.IntN(1 << 20))
	default:
		return abiMaxSnowflake - uint64(r.IntN(3)) + 1
	}
}

func TestBackendsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 2026))
	differ := func(what string, in any, native, wasm any) {
		t.Helper()
		t.Fatalf("%s(%q): native %v, wasm %v", what, in, native, wasm)
	}
	for range differentialRounds {
		text := randomText(r)
		data := unsafe.StringData(text)
		if a, b := abiParseI64(data, len(text)), wasmParseI64(data, len(text)); a != b {
			differ("ParseI64", text, a, b)
		}
		if a, b := abiSlotI32(data, len(text)), wasmSlotI32(data, len(text)); a != b {
			differ("SlotI32", text, a, b)
		}
		if ao, an := abiHashtag([]byte(text)); true {
			if bo, bn := wasmHashtag([]byte(text)); ao != bo || an != bn {
				differ("Hashtag", text, [2]int{ao, an}, [2]int{bo, bn})
			}
		}
		if a, b := abiIsValid(text), wasmIsValid(text); a != b {
			differ("IsValid", text, a, b)
		}
		other := randomText(r)
		if a, as := abiCompare(text, other); true {
			if b, bs := wasmCompare(text, other); a != b || as != bs {
				differ("Compare", text+" "+other, [2]any{a, as}, [2]any{b, bs})
			}
		}
		ns := string(bytesFrom(r, upper, 3))
		s := randomU64(r)
		var ea, eb [IDLen]byte
		if a, b := abiBrandedEncode(ns, s, &ea), wasmBrandedEncode(ns, s, &eb); a != b || ea != eb {
			differ("BrandedEncode", ns, [2]any{a, ea}, [2]any{b, eb})
		}
		if abiBrandedHash32(s) != wasmBrandedHash32(s) || abiBrandedUnixMs(s) != wasmBrandedUnixMs(s) ||
			abiNode(s) != wasmNode(s) || abiSeq(s) != wasmSeq(s) {
			differ("Hash32/UnixMs/Node/Seq", s, "", "")
		}
		ms := int64(randomU64(r)) >> r.IntN(30)
		if a, as := abiMinFor(ms); true {
			if b, bs := wasmMinFor(ms); a != b || as != bs {
				differ("MinFor", ms, [2]any{a, as}, [2]any{b, bs})
			}
		}
		node := uint16(r.IntN(1100))
		if an, as, ast := abiMintStep(s, node, ms); true {
			if bn, bs, bst := wasmMintStep(s, node, ms); an != bn || as != bs || ast != bst {
				differ("MintStep", s, [3]any{an, as, ast}, [3]any{bn, bs, bst})
			}
		}
		q, kind := string(bytesFrom(r, queue, r.IntN(20))), []string{"pending", "job", "g:x:pending", "nope", ""}[r.IntN(5)]
		var id *string
		if r.IntN(2) == 0 {
			id = &text
		}
		if a, as := abiKey(q, kind, id); true {
			if b, bs := wasmKey(q, kind, id); a != b || as != bs {
				differ("Key", q+" "+kind, [2]any{a, as}, [2]any{b, bs})
			}
		}
		if a, as := abiParseKey(text); true {
			if b, bs := wasmParseKey(text); a != b || as != bs {
				differ("ParseKey", text, [2]any{a, as}, [2]any{b, bs})
			}
		}
		for _, f := range []struct {
			name       string
			native, wa func(string) (string, status)
		}{
			{"Reserve", abiReserve, wasmReserve}, {"QueuePrefix", abiQueuePrefix, wasmQueuePrefix},
			{"JobPrefix", abiJobPrefix, wasmJobPrefix}, {"XaddID", abiXaddID, wasmXaddID},
		} {
			if a, as := f.native(text); true {
				if b, bs := f.wa(text); a != b || as != bs {
					differ(f.name, text, [2]any{a, as}, [2]any{b, bs})
				}
			}
		}
		if a, as := abiPrefixBytes(q, kind); true {
			if b, bs := wasmPrefixBytes(q, kind); a != b || as != bs {
				differ("PrefixBytes", q+" "+kind, [2]any{a, as}, [2]any{b, bs})
			}
		}
		entry := strings.ReplaceAll(text, "}", "-")
		if a, b := abiFromXaddID(entry, ns, &ea), wasmFromXaddID(entry, ns, &eb); a != b || (a == statusOK && ea != eb) {
			differ("FromXaddID", entry, a, b)
		}
		acked, replicas := int64(r.IntN(5))-1, uint32(r.IntN(4))
		if abiParseWait(acked, replicas) != wasmParseWait(acked, replicas) {
			differ("ParseWait", acked, replicas, "")
		}
		prev := int64(randomU64(r)) >> r.IntN(40)
		if an, am, as := abiParseAcquire(int64(node), prev); true {
			if bn, bm, bs := wasmParseAcquire(int64(node), prev); an != bn || am != bm || as != bs {
				differ("ParseAcquire", prev, [3]any{an, am, as}, [3]any{bn, bm, bs})
			}
		}
		ttl, margin := uint64(r.IntN(100_000)), uint64(r.IntN(70_000))
		if abiLeaseTermsCheck(ttl, margin) != wasmLeaseTermsCheck(ttl, margin) {
			differ("LeaseTermsCheck", ttl, margin, "")
		}
		if a, as := abiLeaseWaitMs(ttl, margin); true {
			if b, bs := wasmLeaseWaitMs(ttl, margin); a != b || as != bs {
				differ("LeaseWaitMs", ttl, [2]any{a, as}, [2]any{b, bs})
			}
		}
		for _, f := range []struct {
			name       string
			native, wa func(ttl, margin uint64) (uint64, status)
		}{{"LeaseRenewEveryMs", abiLeaseRenewEveryMs, wasmLeaseRenewEveryMs}, {"LeaseRetryMs", abiLeaseRetryMs, wasmLeaseRetryMs}} {
			if a, as := f.native(ttl, margin); true {
				if b, bs := f.wa(ttl, margin); a != b || as != bs {
					differ(f.name, ttl, [2]any{a, as}, [2]any{b, bs})
				}
			}
		}
		reply, asked := randomReply(r), r.IntN(2) == 0
		if a, as := abiReadLeaseError(reply, asked); true {
			if b, bs := wasmReadLeaseError(reply, asked); a != b || as != bs {
				differ("ReadLeaseError", reply, [2]any{a, as}, [2]any{b, bs})
			}
		}
		if a, as := abiParseRedirect(reply); true {
			if b, bs := wasmParseRedirect(reply); a != b || as != bs {
				differ("ParseRedirect", reply, [2]any{a, as}, [2]any{b, bs})
			}
		}
	}
}

// randomReply is an error reply a lease write may get, or one like it.
func randomReply(r *rand.Rand) string {
	codes := []string{"ASK", "MOVED", "TRYAGAIN", "CLUSTERDOWN", "READONLY", "NOREPLICAS", "ERR", "EMQLEASE", ""}
	host := []string{"10.0.0.2", "[2001:db8::1]", "2001:db8::1", "", "?", string(bytesFrom(r, queue, r.IntN(9)))}
	return codes[r.IntN(len(codes))] + " " + strconv.Itoa(r.IntN(17000)-100) + " " + host[r.IntN(len(host))] + ":" +
		strconv.Itoa(r.IntN(70000)) + string(bytesFrom(r, queue, r.IntN(3)))
}

// Two keepers, one per backend, through the same random writes, say the same at each.
func TestBackendsAgreeOnKeepers(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 42))
	for range 200 {
		ttl, margin := uint64(1+r.IntN(5000)), uint64(r.IntN(3000))
		var a, b leaseKeeperHandle
		if sa, sb := abiLeaseKeeperNew(ttl, margin, 0, &a), wasmLeaseKeeperNew(ttl, margin, 0, &b); sa != sb {
			t.Fatalf("LeaseKeeperNew(%d, %d): %v %v", ttl, margin, sa, sb)
		} else if sa != statusOK {
			continue
		}
		var now uint64
		for range 50 {
			now += uint64(r.IntN(int(ttl)))
			if r.IntN(12) == 0 {
				if sa, sb := abiLeaseKeeperRelease(a), wasmLeaseKeeperRelease(b); sa != sb {
					t.Fatalf("Release: %v %v", sa, sb)
				}
			}
			if r.IntN(3) == 0 {
				na, sa := abiLeaseKeeperNext(a, now)
				nb, sb := wasmLeaseKeeperNext(b, now)
				if na != nb || sa != sb {
					t.Fatalf("Next(%d): %v %v, %v %v", now, na, sa, nb, sb)
				}
				continue
			}
			outcome, sent := r.IntN(10)-1, now-uint64(r.IntN(int(now)+1))
			aa, aft, sa := abiLeaseKeeperSettle(a, outcome, sent, now)
			ba, bft, sb := wasmLeaseKeeperSettle(b, outcome, sent, now)
			pa, _ := abiLeaseKeeperPhase(a)
			pb, _ := wasmLeaseKeeperPhase(b)
			if aa != ba || aft != bft || sa != sb || pa != pb {
				t.Fatalf("Settle(%d, %d, %d): %v %v %v %v, %v %v %v %v", outcome, sent, now, aa, aft, sa, pa, ba, bft, sb, pb)
			}
			if abiLeaseRefusal(outcome) != wasmLeaseRefusal(outcome) {
				t.Fatalf("LeaseRefusal(%d)", outcome)
			}
		}
		abiLeaseKeeperFree(a)
		wasmLeaseKeeperFree(b)
	}
}

func TestBackendsAgreeOnBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 7))
	for range 500 {
		n := 1 + r.IntN(64)
		var data []byte
		lens := make([]uintptr, n)
		for i := range lens {
			text := randomText(r)
			data = append(data, text...)
			lens[i] = uintptr(len(text))
		}
		sa, sb := make([]uint16, n), make([]uint16, n)
		if a, b := abiSlotMany(data, lens, sa), wasmSlotMany(data, lens, sb); a != b || (a == statusOK && string(unsafe.Slice((*byte)(unsafe.Pointer(&sa[0])), 2*n)) != string(unsafe.Slice((*byte)(unsafe.Pointer(&sb[0])), 2*n))) {
			t.Fatalf("SlotMany: %v %v", a, b)
		}
		da, db := make([]uint64, n), make([]uint64, n)
		var doneA, doneB uintptr
		if a, b := abiDecodeMany(data, lens, da, &doneA), wasmDecodeMany(data, lens, db, &doneB); a != b || doneA != doneB {
			t.Fatalf("DecodeMany: %v %v, %d %d", a, b, doneA, doneB)
		}
		for i := range doneA {
			if da[i] != db[i] {
				t.Fatalf("DecodeMany item %d: %d %d", i, da[i], db[i])
			}
		}
		snowflakes := make([]uint64, n)
		for i := range snowflakes {
			snowflakes[i] = randomU64(r)
		}
		ns := string(bytesFrom(r, upper, 3))
		oa, ob := make([]byte, IDLen*n), make([]byte, IDLen*n)
		if a, b := abiEncodeMany(ns, snowflakes, oa, &doneA), wasmEncodeMany(ns, snowflakes, ob, &doneB); a != b || doneA != doneB || string(oa[:IDLen*doneA]) != string(ob[:IDLen*doneB]) {
			t.Fatalf("EncodeMany: %v %v, %d %d", a, b, doneA, doneB)
		}
	}
}
