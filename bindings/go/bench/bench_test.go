package bench

import (
	"fmt"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/mediocregopher/radix/v3"
	"github.com/oklog/ulid/v2"
)

// Anchors: oklog/ulid for the text codec; radix's ClusterSlot for slots.
// (go-redis's slot routine lives in its internal/hashtag package, which the Go
// toolchain refuses to import from another module; radix's is the same
// table-driven CRC16 with the same {tag} rule.)

var (
	sinkU16     uint16
	sinkU32     uint32
	sinkStr     string
	sinkStrs    []string
	sinkID      emqid.ID
	sinkFloorID floorID
	sinkIDs     []emqid.ID
	sinkULID    ulid.ULID
)

var keys = func() [][]byte {
	out := make([][]byte, 1000)
	for i := range out {
		out[i] = []byte(fmt.Sprintf("emq:{orders-%03d}:job:JOB0KHTOWnGLuC", i))
	}
	return out
}()

// pseudoSnowflakes is n snowflakes (below 2^63) from a fixed LCG, the same
// ones every run.
func pseudoSnowflakes(n int) []uint64 {
	out := make([]uint64, n)
	x := uint64(0x2545F4914F6CDD1D)
	for i := range out {
		x = x*6364136223846793005 + 1442695040888963407
		out[i] = x >> 1
	}
	return out
}

var snowflakes = pseudoSnowflakes(64)

// idTexts are the snowflakes as ids, for Parse and its floor.
var idTexts = func() []string {
	out := make([]string, len(snowflakes))
	for i, s := range snowflakes {
		out[i], _ = emqid.Encode("JOB", s)
	}
	return out
}()

// A batch of 1,000 snowflakes, as ids and as ULIDs of the same bits, for the
// batch calls per id and their anchors over the same values one by one.
var (
	batchSnowflakes = pseudoSnowflakes(1000)
	batchTexts, _   = emqid.EncodeMany("JOB", batchSnowflakes)
	batchULIDs      = func() []ulid.ULID {
		out := make([]ulid.ULID, len(batchSnowflakes))
		for i, s := range batchSnowflakes {
			out[i] = ulid.MustNew(s>>20, nil)
		}
		return out
	}()
	batchULIDTexts = func() []string {
		out := make([]string, len(batchULIDs))
		for i, u := range batchULIDs {
			out[i] = u.String()
		}
		return out
	}()
)

func BenchmarkCgoFloor(b *testing.B) {
	for i := 0; i < b.N; i++ {
		cgoFloor()
	}
}

// The same-signature floors (floor.go), over the same inputs as the calls
// they are read beside.
func BenchmarkFloorHash32(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU32 = floorHash32(snowflakes[i&63])
	}
}

func BenchmarkFloorEncode(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkStr, _ = floorEncode("JOB", snowflakes[i&63])
	}
}

func BenchmarkFloorParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkFloorID, _ = floorParse(idTexts[i&63])
	}
}

func BenchmarkFloorSlot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = floorSlot(keys[i%len(keys)])
	}
}

func BenchmarkFloorMinterNext(b *testing.B) {
	m := newFloorMinter(1)
	defer m.close()
	for i := 0; i < b.N; i++ {
		_, _ = m.Next()
	}
}

func BenchmarkHash32(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU32 = emqid.Hash32(snowflakes[i&63])
	}
}

func BenchmarkEncode(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkStr, _ = emqid.Encode("JOB", snowflakes[i&63])
	}
}

func BenchmarkULIDString(b *testing.B) {
	ids := make([]ulid.ULID, 64)
	for i := range ids {
		ids[i] = ulid.MustNew(snowflakes[i]>>20, nil)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkStr = ids[i&63].String()
	}
}

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkID, _ = emqid.Parse(idTexts[i&63])
	}
}

func BenchmarkULIDParse(b *testing.B) {
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = ulid.MustNew(snowflakes[i]>>20, nil).String()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkULID, _ = ulid.Parse(texts[i&63])
	}
}

func BenchmarkSlot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = emqid.Slot(keys[i%len(keys)])
	}
}

func BenchmarkRadixClusterSlot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = radix.ClusterSlot(keys[i%len(keys)])
	}
}

// Per key, over 1,000 keys a call.
func BenchmarkSlotManyPerKey(b *testing.B) {
	for i := 0; i < b.N; i += len(keys) {
		sinkU16 = emqid.SlotMany(keys)[0]
	}
}

func BenchmarkRadixClusterSlotPerKey(b *testing.B) {
	for i := 0; i < b.N; i += len(keys) {
		for _, k := range keys {
			sinkU16 = radix.ClusterSlot(k)
		}
	}
}

func BenchmarkMinterNext(b *testing.B) {
	m, _ := emqid.NewMinter(1)
	defer m.Close()
	for i := 0; i < b.N; i++ {
		_, _ = m.Next()
	}
}

func BenchmarkMinterNextManyPerID(b *testing.B) {
	m, _ := emqid.NewMinter(2)
	defer m.Close()
	for i := 0; i < b.N; i += 1000 {
		_, _ = m.NextMany(1000)
	}
}

// Per id, over 1,000 ids a call.
func BenchmarkParseManyPerID(b *testing.B) {
	for i := 0; i < b.N; i += len(batchTexts) {
		sinkIDs, _ = emqid.ParseMany(batchTexts)
	}
}

// ParseMany into a slice reused across calls, as a caller's loop would.
func BenchmarkParseManyIntoPerID(b *testing.B) {
	dst := make([]emqid.ID, len(batchTexts))
	for i := 0; i < b.N; i += len(batchTexts) {
		sinkIDs, _ = emqid.ParseManyInto(dst, batchTexts)
	}
}

func BenchmarkULIDParsePerID(b *testing.B) {
	for i := 0; i < b.N; i += len(batchULIDTexts) {
		for _, t := range batchULIDTexts {
			sinkULID, _ = ulid.Parse(t)
		}
	}
}

// Per id, over 1,000 snowflakes a call.
func BenchmarkEncodeManyPerID(b *testing.B) {
	for i := 0; i < b.N; i += len(batchSnowflakes) {
		sinkStrs, _ = emqid.EncodeMany("JOB", batchSnowflakes)
	}
}

func BenchmarkULIDStringPerID(b *testing.B) {
	for i := 0; i < b.N; i += len(batchULIDs) {
		for _, u := range batchULIDs {
			sinkStr = u.String()
		}
	}
}
