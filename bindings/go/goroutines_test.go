package emqid_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// Eight goroutines mint 1,000,000 ids from the one process-wide state: no
// id twice, and each goroutine's ids rising (the one-node rule, SPEC.md
// §5.1, holds across goroutines as across threads).
func TestEightGoroutinesMintFromTheProcessState(t *testing.T) {
	goroutines, each := 8, sized(125_000)
	minted := make([][]uint64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := make([]uint64, 0, each)
			for range each {
				id, err := emqid.Mint("JOB")
				if err != nil {
					t.Error(err)
					return
				}
				ids = append(ids, id.Snowflake())
			}
			minted[g] = ids
		}()
	}
	wg.Wait()
	seen := make(map[uint64]struct{}, goroutines*each)
	for g, ids := range minted {
		if len(ids) != each || !slices.IsSorted(ids) || slices.Contains(ids[1:], 0) {
			t.Fatalf("goroutine %d: %d ids, rising: %v", g, len(ids), slices.IsSorted(ids))
		}
		for i, s := range ids {
			if i > 0 && s == ids[i-1] {
				t.Fatalf("goroutine %d minted %d twice", g, s)
			}
			if _, dup := seen[s]; dup {
				t.Fatalf("%d minted by two goroutines", s)
			}
			seen[s] = struct{}{}
		}
	}
	t.Logf("go: %d goroutines x %d mints: %d ids, 0 duplicates, each goroutine's ids rising", goroutines, each, len(seen))
}

// answers is what the stateless calls say of a set of inputs, as one text.
func answers() string {
	texts := []string{"USR0KHTOWnGLuC", "JOB0SXXvlICq6S", "JOB00000000000", "bad", "USR0KHTOWnGLu!"}
	keys := [][]byte{[]byte("emq:{orders}:job:JOB0SXXvlICq6S"), []byte("{}"), []byte("plain"), nil}
	var out []any
	for _, text := range texts {
		id, err := emqid.Parse(text)
		out = append(out, id.Snowflake(), err, emqid.IsValid(text))
		enc, err := emqid.Encode("JOB", id.Snowflake())
		out = append(out, enc, err, emqid.Hash32(id.Snowflake()))
	}
	ids, err := emqid.ParseMany(texts[:3])
	out = append(out, ids, err)
	for _, key := range keys {
		out = append(out, emqid.Slot(key))
	}
	out = append(out, emqid.SlotMany(keys))
	key, err := emqid.Key("orders", "pending", nil)
	out = append(out, key, err)
	parsed, err := emqid.ParseKey("emq:{orders}:job:JOB0SXXvlICq6S")
	out = append(out, parsed, err)
	return fmt.Sprint(out...)
}

// Stateless calls from 8 goroutines at once agree with the answers of one:
// each call has an instance of the core to itself.
func TestStatelessCallsFromGoroutinesAgreeWithOne(t *testing.T) {
	want := answers()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range sized(500) {
				if got := answers(); got != want {
					t.Errorf("a goroutine's answers differ:\n%s\n%s", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
