package emqid_test

import (
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// scriptedClock is a wall clock that does what real ones do on a bad day:
// it runs, jumps back by seconds (an NTP step, a VM restored from a
// snapshot), stands still there, and runs forward again past where it was.
// Every reading advances the script by one tick, whichever goroutine reads.
type scriptedClock struct {
	tick   atomic.Int64
	phases []clockPhase
}

type clockPhase struct {
	startMs int64 // the reading at the phase's first tick
	ticks   int64 // how many readings the phase lasts
	perMs   int64 // readings per millisecond; 0 for a clock that stands still
}

// read is the next reading and the tick it was taken at.
func (c *scriptedClock) read() int64 {
	i := c.tick.Add(1) - 1
	for _, p := range c.phases {
		if i < p.ticks {
			if p.perMs == 0 {
				return p.startMs
			}
			return p.startMs + i/p.perMs
		}
		i -= p.ticks
	}
	last := c.phases[len(c.phases)-1]
	return last.startMs + last.ticks/max(last.perMs, 1)
}

func (c *scriptedClock) totalTicks() (n int64) {
	for _, p := range c.phases {
		n += p.ticks
	}
	return n
}

// Two goroutines mint through one Minter with NextAt while the clock jumps
// back by seconds and forward again: no id repeats, each goroutine's ids
// increase, and the ids never run further ahead of the clock than its
// standing still forces (one millisecond per 4096 ids minted behind it).
func TestMinterSurvivesAClockThatJumpsBackAndForth(t *testing.T) {
	const t0 = 1769526697641
	clock := &scriptedClock{phases: []clockPhase{
		{t0, 16000, 16},              // runs: 1000 ms
		{t0 + 1000 - 3000, 8000, 16}, // back 3 s, runs 500 ms (still behind)
		{t0 - 5000, 8000, 0},         // back 5 s more, stands still
		{t0 + 1500, 8000, 16},        // forward past the high water, runs
		{t0 - 60000, 8000, 4},        // back a minute, runs
		{t0 + 4000, 8000, 16},        // forward again
		{t0 + 4500 - 2000, 8000, 0},  // back 2 s, stands still
		{t0 + 10000, 8000, 16},       // forward, runs
	}}
	const node, workers = 777, 2
	each := int(clock.totalTicks()) / workers
	m, err := emqid.NewMinter(node)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	results := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range results {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ids := make([]uint64, 0, each)
			for i := 0; i < each; i++ {
				s, err := m.NextAt(clock.read())
				if err != nil {
					t.Error(err)
					return
				}
				ids = append(ids, s)
			}
			results[w] = ids
		}(w)
	}
	wg.Wait()

	var all []uint64
	for w, ids := range results {
		if len(ids) != each {
			t.Fatalf("goroutine %d minted %d ids of %d", w, len(ids), each)
		}
		for i, s := range ids {
			if i > 0 && s <= ids[i-1] {
				t.Fatalf("goroutine %d: id %d (%d) is not above the one before it (%d)", w, i, s, ids[i-1])
			}
			if id, _ := emqid.NewID("JOB", s); id.Node() != node {
				t.Fatalf("goroutine %d: id %d carries node %d", w, i, id.Node())
			}
		}
		all = append(all, ids...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	if dups != 0 {
		t.Fatalf("%d duplicate ids among %d", dups, len(all))
	}

	// Ahead of the clock only as far as the ids minted behind it demand.
	highest := int64(t0 + 10000 + (8000-1)/16) // the last phase's last reading
	ahead := int64(emqid.UnixMs(all[len(all)-1])) - highest
	if limit := clock.totalTicks()/4096 + 1; ahead > limit {
		t.Fatalf("the last id is %d ms ahead of the clock's highest reading; at most %d ms can be forced", ahead, limit)
	}
	// Forward again, the ids follow the clock: the last id is of the last phase.
	if last := int64(emqid.UnixMs(all[len(all)-1])); last < t0+10000 {
		t.Fatalf("the last id is of %d, before the clock's last phase (from %d)", last, t0+10000)
	}
	t.Logf("%d ids from %d goroutines through one Minter, the clock stepping back 3 s, 5 s, 1 min and 2 s: 0 duplicates, each goroutine's ids increasing",
		len(all), workers)
}
