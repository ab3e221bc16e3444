package emqid_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// Node leases (emq-lease/3) without a server: the scripts, key and replies
// as the library gives them, and the leased minter's arithmetic.

const t1 = int64(1769526697641)

var terms30s = emqid.LeaseTerms{TTL: 30 * time.Second, Margin: 5 * time.Second}

func TestLeaseScriptsComeFromTheLibrary(t *testing.T) {
	scripts := emqid.LeaseScripts()
	want := []struct {
		script     emqid.LeaseScript
		name       string
		keys, args int
	}{{emqid.LeaseAcquire, "acquire", 1, 5}, {emqid.LeaseRenew, "renew", 1, 4}, {emqid.LeaseRelease, "release", 1, 3}}
	if len(scripts) != len(want) {
		t.Fatalf("%d scripts", len(scripts))
	}
	for i, w := range want {
		s := scripts[i]
		if s.Name != w.name || len(s.Keys) != w.keys || len(s.Args) != w.args || !strings.HasSuffix(s.Text, "\n") {
			t.Errorf("script %d: %q with %d keys, %d args", i, s.Name, len(s.Keys), len(s.Args))
		}
		if w.script.Name != s.Name || w.script.Text != s.Text {
			t.Errorf("the named script %q is not the library's %q", w.script.Name, s.Name)
		}
	}
	if !strings.HasPrefix(emqid.LeaseAcquire.Text, "local leases, token, ttl = KEYS[1], ARGV[1]") {
		t.Errorf("acquire: %q", emqid.LeaseAcquire.Text)
	}
	if emqid.LeaseRenew.Keys[0] != "the lease key {emq}:leases" || emqid.LeaseAcquire.Args[3] != "nodes (1024)" ||
		emqid.LeaseRenew.Args[3] != "node" || emqid.LeaseRelease.Args[2] != "node" {
		t.Errorf("words: %q %q %q %q", emqid.LeaseRenew.Keys, emqid.LeaseAcquire.Args, emqid.LeaseRenew.Args, emqid.LeaseRelease.Args)
	}
	if emqid.LeaseProtocol != "emq-lease/3" || emqid.LeaseNodes != emqid.MaxNode+1 || emqid.LeaseReplicas != 1 {
		t.Errorf("%q %d %d", emqid.LeaseProtocol, emqid.LeaseNodes, emqid.LeaseReplicas)
	}
}

func TestLeaseKeyIsInTheReservesSlot(t *testing.T) {
	if emqid.LeaseKey != "{emq}:leases" {
		t.Fatalf("lease key %q", emqid.LeaseKey)
	}
	for _, s := range emqid.LeaseScripts() {
		if len(s.Keys) != 1 || !strings.HasSuffix(s.Keys[0], " "+emqid.LeaseKey) {
			t.Errorf("script %q: keys %q", s.Name, s.Keys)
		}
	}
	version, err := emqid.Reserve("version")
	if err != nil || emqid.SlotString(emqid.LeaseKey) != emqid.SlotString(version) {
		t.Errorf("the lease key's slot %d, the reserve's %q %d %v",
			emqid.SlotString(emqid.LeaseKey), version, emqid.SlotString(version), err)
	}
}

func TestLeaseRepliesAreReadOrRefused(t *testing.T) {
	if a, err := emqid.ParseAcquire(1023, t1); err != nil || a != (emqid.Acquired{Node: 1023, PreviousMark: t1}) {
		t.Errorf("ParseAcquire: %+v %v", a, err)
	}
	if a, err := emqid.ParseAcquire(4, -1); err != nil || a != (emqid.Acquired{Node: 4, PreviousMark: -1}) {
		t.Errorf("ParseAcquire, never leased: %+v %v", a, err)
	}
	for _, c := range [][2]int64{{1024, -1}, {-1, -1}, {0, -2}, {0, 1704067200000 + 1<<41}} {
		if _, err := emqid.ParseAcquire(c[0], c[1]); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("ParseAcquire%v: %v", c, err)
		}
	}

	if err := emqid.ParseRenewal(1); err != nil {
		t.Error(err)
	}
	if err := emqid.ParseRenewal(0); !errors.Is(err, emqid.ErrNode) {
		t.Errorf("renewal 0: %v", err)
	}
	if err := emqid.ParseRenewal(2); !errors.Is(err, emqid.ErrRange) {
		t.Errorf("renewal 2: %v", err)
	}

	for _, c := range [][2]int64{{1, emqid.LeaseReplicas}, {2, 1}, {0, 0}, {3, 2}} {
		if err := emqid.ParseWait(c[0], int(c[1])); err != nil {
			t.Errorf("ParseWait%v: %v", c, err)
		}
	}
	if err := emqid.ParseWait(1, 2); !errors.Is(err, emqid.ErrNode) || !strings.Contains(err.Error(), "acknowledged by 1 of 2 replica") {
		t.Errorf("wait 1 of 2: %v", err)
	}
	for _, c := range [][2]int64{{-1, 1}, {-1, 0}, {1, -1}, {1, 1 << 32}} {
		if err := emqid.ParseWait(c[0], int(c[1])); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("ParseWait%v: %v", c, err)
		}
	}

	for _, refusal := range []string{"EMQLEASE every node is leased", "ERR EMQLEASE every node is leased"} {
		if err := emqid.ParseAcquireError(refusal); !errors.Is(err, emqid.ErrNode) || !strings.Contains(err.Error(), "every node") {
			t.Errorf("%q: %v", refusal, err)
		}
	}
	for _, other := range []string{"NOSCRIPT No matching script. Please use EVAL.", "EMQLEASE every node is lease", "", "\xff"} {
		if err := emqid.ParseAcquireError(other); err != nil {
			t.Errorf("%q is not the script's refusal, yet: %v", other, err)
		}
	}
}

func TestLeaseTerms(t *testing.T) {
	if emqid.DefaultLeaseTerms != terms30s {
		t.Errorf("defaults %+v", emqid.DefaultLeaseTerms)
	}
	if terms, err := emqid.NewLeaseTerms(3*time.Millisecond, time.Millisecond); err != nil || terms.TTL != 3*time.Millisecond {
		t.Errorf("%+v %v", terms, err)
	}
	for _, c := range [][2]time.Duration{{10 * time.Millisecond, 10 * time.Millisecond}, {0, 0},
		{25 * time.Hour, 0}, {1500 * time.Microsecond, 0}, {time.Second, -time.Millisecond}} {
		if _, err := emqid.NewLeaseTerms(c[0], c[1]); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("NewLeaseTerms%v: %v", c, err)
		}
	}
	for _, c := range []struct {
		terms emqid.LeaseTerms
		wait  time.Duration
	}{{emqid.DefaultLeaseTerms, 2500 * time.Millisecond}, {emqid.LeaseTerms{TTL: 3 * time.Second, Margin: 500 * time.Millisecond}, 250 * time.Millisecond},
		{emqid.LeaseTerms{TTL: 3 * time.Millisecond, Margin: time.Millisecond}, time.Millisecond}} {
		if wait, err := c.terms.WaitTimeout(); err != nil || wait != c.wait {
			t.Errorf("%+v.WaitTimeout(): %v %v", c.terms, wait, err)
		}
	}
	for _, terms := range []emqid.LeaseTerms{{TTL: 10 * time.Millisecond, Margin: 10 * time.Millisecond}, {TTL: time.Second + time.Microsecond}} {
		if _, err := terms.WaitTimeout(); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("%+v.WaitTimeout(): %v", terms, err)
		}
	}
}

// jobID is the JOB id of a snowflake a minter gave.
func jobID(s uint64) emqid.ID {
	id, err := emqid.NewID("JOB", s)
	if err != nil {
		panic(err)
	}
	return id
}

func start(t *testing.T, a emqid.Acquired, terms emqid.LeaseTerms) *emqid.LeasedMinter {
	t.Helper()
	m, err := emqid.StartLeasedMinter(a, t1, 0, terms)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func TestLeasedMinterStartRefusesWhatTheProtocolCannotGive(t *testing.T) {
	for _, c := range []struct {
		a     emqid.Acquired
		terms emqid.LeaseTerms
	}{
		{emqid.Acquired{Node: 1024, PreviousMark: -1}, terms30s},
		{emqid.Acquired{Node: 65536 + 3, PreviousMark: -1}, terms30s}, // not node 3 by a wrap
		{emqid.Acquired{Node: 1, PreviousMark: -2}, terms30s},
		{emqid.Acquired{Node: 1, PreviousMark: 1704067200000 + 1<<41 - 1}, terms30s}, // its mark is past the time limit
		{emqid.Acquired{Node: 1, PreviousMark: -1}, emqid.LeaseTerms{TTL: time.Second, Margin: time.Second}},
		{emqid.Acquired{Node: 1, PreviousMark: -1}, emqid.LeaseTerms{TTL: time.Second + time.Microsecond}},
	} {
		if m, err := emqid.StartLeasedMinter(c.a, t1, 0, c.terms); !errors.Is(err, emqid.ErrRange) || m != nil {
			t.Errorf("%+v %+v: %v", c.a, c.terms, err)
		}
	}
}

// The hand-over: the previous owner's clock ran 5 s ahead, so its mark is in
// our future; the first id still sorts after it, whatever our clock says.
func TestLeasedMinterStartsAfterThePreviousMark(t *testing.T) {
	previous := t1 + 5_000 + 30_000
	m := start(t, emqid.Acquired{Node: 3, PreviousMark: previous}, terms30s)
	if hw, err := m.HighWater(); err != nil || hw != uint64(previous) {
		t.Errorf("high water before the first id: %d %v", hw, err)
	}
	s, err := m.NextAt(t1, 0)
	id := jobID(s)
	if err != nil || id.UnixMs() != uint64(previous)+1 || id.Node() != 3 || id.Seq() != 0 || m.Node() != 3 {
		t.Fatalf("first id %v (%d ms, node %d, seq %d): %v", id, id.UnixMs(), id.Node(), id.Seq(), err)
	}
	if s2, err := m.NextAt(t1-60_000, 0); err != nil || s2 != s+1 {
		t.Errorf("an earlier clock: %d %v", s2, err)
	}
	fresh := start(t, emqid.Acquired{Node: 4, PreviousMark: -1}, terms30s)
	if s, err := fresh.NextAt(t1, 0); err != nil || jobID(s).UnixMs() != uint64(t1) {
		t.Errorf("a node never leased starts now: %d %v", s, err)
	}
}

// The fence: sent + TTL - margin on the monotonic clock decides, whatever
// the wall clock says; an accepted renewal moves it, Stop closes it.
func TestLeasedMinterFence(t *testing.T) {
	m := start(t, emqid.Acquired{Node: 1, PreviousMark: -1}, terms30s)
	if fence, err := m.FenceMs(); err != nil || fence != 25_000 {
		t.Errorf("fence %d %v", fence, err)
	}
	if _, err := m.NextAt(t1, 24_999); err != nil {
		t.Error(err)
	}
	for _, now := range []int64{t1, t1 - 60_000} {
		if _, err := m.NextAt(now, 25_000); !errors.Is(err, emqid.ErrNode) || !strings.Contains(err.Error(), "fence") {
			t.Errorf("at the fence: %v", err)
		}
	}
	mark, err := m.NextMark(t1 + 20_000)
	if err != nil || mark != uint64(t1)+20_000+30_000 {
		t.Fatalf("mark %d %v", mark, err)
	}
	if err := m.Renewed(20_000, mark); err != nil {
		t.Fatal(err)
	}
	if _, err := m.NextAt(t1+20_000, 44_999); err != nil {
		t.Error(err)
	}
	if _, err := m.NextAt(t1+20_000, 45_000); !errors.Is(err, emqid.ErrNode) {
		t.Errorf("at the moved fence: %v", err)
	}
	if err := m.Renewed(10_000, mark); err != nil {
		t.Fatal(err)
	}
	if fence, _ := m.FenceMs(); fence != 45_000 {
		t.Errorf("an older renewal moved the fence back to %d", fence)
	}
	m.Stop()
	if fence, _ := m.FenceMs(); fence != 0 {
		t.Errorf("stopped, fence %d", fence)
	}
	if _, err := m.NextAt(t1+21_000, 21_000); !errors.Is(err, emqid.ErrNode) {
		t.Errorf("stopped: %v", err)
	}
	if hw, err := m.HighWater(); err != nil || hw != uint64(t1)+20_000 {
		t.Errorf("high water %d %v", hw, err)
	}
}

// The mark: a burst at one clock reading borrows milliseconds up to the mark
// and stops there until a renewal raises it.
func TestLeasedMinterStopsAtTheMark(t *testing.T) {
	m := start(t, emqid.Acquired{Node: 1, PreviousMark: -1}, emqid.LeaseTerms{TTL: 3 * time.Millisecond, Margin: time.Millisecond})
	n, last := 0, uint64(0)
	for {
		s, err := m.NextAt(t1, 0)
		if err != nil {
			if !errors.Is(err, emqid.ErrNode) {
				t.Fatal(err)
			}
			break
		}
		n, last = n+1, s
	}
	if id := jobID(last); n != 4*4096 || id.UnixMs() != uint64(t1)+3 || id.Seq() != 4095 {
		t.Errorf("%d ids, the last at %d seq %d", n, id.UnixMs(), id.Seq())
	}
	if hw, _ := m.HighWater(); hw != uint64(t1)+3 {
		t.Errorf("high water %d", hw)
	}
	mark, err := m.NextMark(t1)
	if err != nil || mark != uint64(t1)+6 {
		t.Fatalf("mark %d %v", mark, err)
	}
	if err := m.Renewed(0, mark); err != nil {
		t.Fatal(err)
	}
	if s, err := m.NextAt(t1, 0); err != nil || jobID(s).UnixMs() != uint64(t1)+4 {
		t.Errorf("after the renewal: %d %v", s, err)
	}
}

// Next reads one time.Now for both clocks; a renewer and minters share the
// minter (run with -race); a closed minter refuses with gate "null".
func TestLeasedMinterOnTheSystemClocks(t *testing.T) {
	now := time.Now()
	m, err := emqid.StartLeasedMinter(emqid.Acquired{Node: 9, PreviousMark: -1}, now.UnixMilli(), emqid.MonotonicMs(), terms30s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ids := make([][]uint64, 4)
	for g := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				s, err := m.Next()
				if err != nil {
					t.Error(err)
					return
				}
				ids[g] = append(ids[g], s)
			}
		}()
	}
	wg.Add(1)
	go func() { // the renewer's calls, as a lease runs them
		defer wg.Done()
		for i := 0; i < 100; i++ {
			sent := emqid.MonotonicMs()
			mark, err := m.NextMark(time.Now().UnixMilli())
			if err == nil {
				err = m.Renewed(sent, mark)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	seen := map[uint64]bool{}
	for _, list := range ids {
		for i, s := range list {
			if seen[s] || (i > 0 && s <= list[i-1]) || jobID(s).Node() != 9 {
				t.Fatalf("id %d repeated, out of order or off node 9", s)
			}
			seen[s] = true
		}
	}
	if fence, _ := m.FenceMs(); fence <= emqid.MonotonicMs() {
		t.Errorf("renewed, yet the fence %d is behind the clock", fence)
	}

	m.Close()
	m.Close()
	m.Stop()
	var e *emqid.Error
	if _, err := m.Next(); !errors.As(err, &e) || e.Gate != "null" {
		t.Errorf("closed Next: %v", err)
	}
	if _, err := m.HighWater(); !errors.As(err, &e) || e.Gate != "null" {
		t.Errorf("closed HighWater: %v", err)
	}
	if err := m.Renewed(0, 0); !errors.As(err, &e) || e.Gate != "null" {
		t.Errorf("closed Renewed: %v", err)
	}
}
