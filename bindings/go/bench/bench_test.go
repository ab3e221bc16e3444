package bench

import (
	"fmt"
	"sync/atomic"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/mediocregopher/radix/v3"
	"github.com/oklog/ulid/v2"
)

// Anchors: oklog/ulid and the pure-Go floor (purego.go) for the text codec
// and the hash; radix's ClusterSlot for slots. (go-redis's slot routine lives
// in its internal/hashtag package, which the Go toolchain refuses to import
// from another module; radix's is the same table-driven CRC16 with the same
// {tag} rule.)
//
// Every benchmark goes over the same 64 inputs, one call per item, so ns/op
// is ns per item: a single call cycles through them (i&63), a batch call
// takes all 64 at once and counts as 64 operations.

var (
	sinkU16      uint16
	sinkU32      uint32
	sinkStr      string
	sinkStrs     []string
	sinkU16s     []uint16
	sinkID       emqid.ID
	sinkFloorID  floorID
	sinkPureID   pureID
	sinkIDs      []emqid.ID
	sinkULID     ulid.ULID
	sinkParallel atomic.Uint64
)

// inputs is how many different inputs every benchmark loops over.
const inputs = 64

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

var snowflakes = pseudoSnowflakes(inputs)

// idTexts are the snowflakes as ids, for Parse and its anchors.
var idTexts = func() []string {
	out, err := emqid.EncodeMany("JOB", snowflakes)
	if err != nil {
		panic(err)
	}
	return out
}()

// keys are emq keys with a hashtag, as a caller routes them.
var keys = func() [][]byte {
	out := make([][]byte, inputs)
	for i := range out {
		out[i] = []byte(fmt.Sprintf("emq:{orders-%03d}:job:%s", i, idTexts[i]))
	}
	return out
}()

// The ULIDs of the same snowflakes (their top 48 bits as the time, no
// entropy), as ULIDs and as text.
var (
	ulids = func() []ulid.ULID {
		out := make([]ulid.ULID, inputs)
		for i, s := range snowflakes {
			out[i] = ulid.MustNew(s>>15, nil)
		}
		return out
	}()
	ulidTexts = func() []string {
		out := make([]string, inputs)
		for i, u := range ulids {
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
		sinkU16 = floorSlot(keys[i&63])
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

func BenchmarkPureGoHash32(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU32 = pureHash32(snowflakes[i&63])
	}
}

func BenchmarkEncode(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkStr, _ = emqid.Encode("JOB", snowflakes[i&63])
	}
}

func BenchmarkPureGoEncode(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkStr, _ = pureEncode("JOB", snowflakes[i&63])
	}
}

func BenchmarkULIDString(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkStr = ulids[i&63].String()
	}
}

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkID, _ = emqid.Parse(idTexts[i&63])
	}
}

func BenchmarkPureGoParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkPureID, _ = pureParse(idTexts[i&63])
	}
}

func BenchmarkULIDParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkULID, _ = ulid.Parse(ulidTexts[i&63])
	}
}

func BenchmarkSlot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = emqid.Slot(keys[i&63])
	}
}

func BenchmarkRadixClusterSlot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sinkU16 = radix.ClusterSlot(keys[i&63])
	}
}

func BenchmarkMinterNext(b *testing.B) {
	m, _ := emqid.NewMinter(1)
	defer m.Close()
	for i := 0; i < b.N; i++ {
		_, _ = m.Next()
	}
}

// The batch calls, per item: one call takes all 64 inputs and counts as 64
// operations, so ns/op is comparable with the single calls' and anchors'.

func BenchmarkEncodeManyPerID(b *testing.B) {
	for i := 0; i < b.N; i += inputs {
		sinkStrs, _ = emqid.EncodeMany("JOB", snowflakes)
	}
}

func BenchmarkParseManyPerID(b *testing.B) {
	for i := 0; i < b.N; i += inputs {
		sinkIDs, _ = emqid.ParseMany(idTexts)
	}
}

// ParseMany into a slice reused across calls, as a caller's loop would.
func BenchmarkParseManyIntoPerID(b *testing.B) {
	dst := make([]emqid.ID, inputs)
	for i := 0; i < b.N; i += inputs {
		sinkIDs, _ = emqid.ParseManyInto(dst, idTexts)
	}
}

func BenchmarkSlotManyPerKey(b *testing.B) {
	for i := 0; i < b.N; i += inputs {
		sinkU16s = emqid.SlotMany(keys)
	}
}

func BenchmarkMinterNextManyPerID(b *testing.B) {
	m, _ := emqid.NewMinter(2)
	defer m.Close()
	for i := 0; i < b.N; i += inputs {
		_, _ = m.NextMany(inputs)
	}
}

// On every core at once (GOMAXPROCS goroutines, b.RunParallel): ns/op is
// wall time per call over all of them, so a single-goroutine row's ns/op over
// its parallel row's is how much more work the cores get through together.
// Each goroutine keeps its results in a local and publishes them once, so
// the goroutines share no cache line while they run.

func BenchmarkParseParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var sum uint64
		for i := 0; pb.Next(); i++ {
			id, _ := emqid.Parse(idTexts[i&63])
			sum += id.Snowflake()
		}
		sinkParallel.Add(sum)
	})
}

func BenchmarkPureGoParseParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var sum uint64
		for i := 0; pb.Next(); i++ {
			id, _ := pureParse(idTexts[i&63])
			sum += id.snowflake
		}
		sinkParallel.Add(sum)
	})
}

func BenchmarkSlotParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var sum uint64
		for i := 0; pb.Next(); i++ {
			sum += uint64(emqid.Slot(keys[i&63]))
		}
		sinkParallel.Add(sum)
	})
}

func BenchmarkRadixClusterSlotParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var sum uint64
		for i := 0; pb.Next(); i++ {
			sum += uint64(radix.ClusterSlot(keys[i&63]))
		}
		sinkParallel.Add(sum)
	})
}
