package emqid_test

import (
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// What the vector file cannot say: Go types, error identity, interfaces, concurrency.

func TestEveryGateIsAnErrorsIsSentinel(t *testing.T) {
	cases := []struct {
		err  error
		want error
	}{
		{second(emqid.Parse("USR0KHTOWnGLu")), emqid.ErrLength},
		{second(emqid.Parse("usr0KHTOWnGLuC")), emqid.ErrNamespace},
		{second(emqid.Parse("USR0KHTOWnGL!C")), emqid.ErrCharset},
		{second(emqid.Parse("USRzzzzzzzzzzz")), emqid.ErrRange},
		{second(emqid.Encode("USR", 1<<63)), emqid.ErrRange},
		{second(emqid.Encode("US", 0)), emqid.ErrRange},
		{second(emqid.NewMinter(1024)), emqid.ErrRange},
		{second(emqid.NewMinter(-1)), emqid.ErrRange},
		{second(emqid.MinForUnixMs(1704067200000 + 1<<41)), emqid.ErrRange},
		{second(emqid.QueueKey("a{b}", emqid.KindPending)), emqid.ErrQueue},
		{second(emqid.QueueKey("orders", "done")), emqid.ErrKind},
		{second(emqid.JobKey("orders", "USR0KHTOWnGLuC")), emqid.ErrKind}, // emq-keyspace/2: EMQKIND
	}
	for i, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("case %d: %v is not %v", i, c.err, c.want)
		}
		var e *emqid.Error
		if !errors.As(c.err, &e) || e.Gate != c.want.(*emqid.Error).Gate {
			t.Errorf("case %d: %v is not an *emqid.Error of gate %v", i, c.err, c.want)
		}
	}
	if errors.Is(cases[0].err, emqid.ErrRange) {
		t.Error("a length error must not match ErrRange")
	}
}

func second[T any](_ T, err error) error { return err }

func TestParseAndAccessors(t *testing.T) {
	id := emqid.MustParse("USR0KHTOWnGLuC")
	if id.NS() != "USR" || id.Snowflake() != 274557032793636864 || id.String() != "USR0KHTOWnGLuC" {
		t.Fatalf("unexpected %v %v %v", id.NS(), id.Snowflake(), id.String())
	}
	if id.Hash32() != 234878118 || id.UnixMs() != 1769526697641 || id.Node() != 0 || id.Seq() != 0 {
		t.Fatal("accessors disagree with the contract")
	}
	if !id.Time().Equal(time.UnixMilli(1769526697641)) {
		t.Fatal("Time")
	}
	raw, err := emqid.ParseBytes([]byte("USR0KHTOWnGLuC"))
	if err != nil || raw != id {
		t.Fatal("ParseBytes")
	}
	s, err := emqid.MinFor(time.UnixMilli(1769526697641))
	if err != nil || s != id.Snowflake() {
		t.Fatal("MinFor")
	}
	if s, _ := emqid.MinFor(time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)); s != 0 {
		t.Fatal("MinFor before the epoch is 0")
	}
}

func TestIDsDropIntoJSONAndSQL(t *testing.T) {
	type job struct {
		ID emqid.ID `json:"id"`
	}
	in := job{ID: emqid.MustParse("JOB0KHTOWnGLuC")}
	text, err := json.Marshal(in)
	if err != nil || string(text) != `{"id":"JOB0KHTOWnGLuC"}` {
		t.Fatalf("marshal: %s %v", text, err)
	}
	var out job
	if err := json.Unmarshal(text, &out); err != nil || out != in {
		t.Fatalf("unmarshal: %v %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"id":"JOB0KHTOWnGL!C"}`), &out); !errors.Is(err, emqid.ErrCharset) {
		t.Fatalf("bad id in JSON: %v", err)
	}
	v, err := in.ID.Value()
	if err != nil {
		t.Fatal(err)
	}
	var scanned emqid.ID
	if err := scanned.Scan(v); err != nil || scanned != in.ID {
		t.Fatal("Scan(Value())")
	}
}

func TestCompareIsByteOrder(t *testing.T) {
	m, _ := emqid.NewMinter(3)
	defer m.Close()
	var ids []emqid.ID
	for i := 0; i < 1000; i++ {
		s, err := m.NextAt(1769526697641 + int64(i%7))
		if err != nil {
			t.Fatal(err)
		}
		id, _ := emqid.NewID("JOB", s)
		ids = append(ids, id)
	}
	if !sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 }) {
		t.Fatal("mint order is not Compare order")
	}
	if !sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() }) {
		t.Fatal("mint order is not text order")
	}
}

func TestSlotsAndKeys(t *testing.T) {
	if emqid.SlotString("123456789") != 12739 || emqid.Slot(nil) != 0 {
		t.Fatal("slot")
	}
	if string(emqid.Hashtag([]byte("foo{{bar}}zap"))) != "{bar" {
		t.Fatal("hashtag")
	}
	keys := [][]byte{[]byte("emq:{orders}:pending"), {}, {0xff, 0x00, '{'}, []byte("orders")}
	many := emqid.SlotMany(keys)
	for i, k := range keys {
		if many[i] != emqid.Slot(k) {
			t.Fatalf("SlotMany[%d]", i)
		}
	}
	if len(emqid.SlotMany(nil)) != 0 {
		t.Fatal("SlotMany(nil)")
	}
	pending, _ := emqid.QueueKey("orders", emqid.KindPending)
	job, err := emqid.JobKey("orders", "JOB0KHTOWnGLuC")
	if err != nil || pending != "emq:{orders}:pending" || job != "emq:{orders}:job:JOB0KHTOWnGLuC" {
		t.Fatal("keys")
	}
	if emqid.SlotString(pending) != emqid.SlotString(job) {
		t.Fatal("a queue's keys must share a slot")
	}
	if _, err := emqid.JobKey("orders", ""); !errors.Is(err, emqid.ErrLength) {
		t.Fatal("an empty id is the length gate")
	}
}

// Concurrent use of one Minter: no duplicates, each goroutine's ids increase.
func TestMinterIsSafeForConcurrentUse(t *testing.T) {
	m, err := emqid.NewMinter(1023)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const workers, each = 4, 20000
	results := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				s, err := m.Next()
				if err != nil {
					t.Error(err)
					return
				}
				results[w] = append(results[w], s)
			}
		}(w)
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, r := range results {
		for i, s := range r {
			if i > 0 && s <= r[i-1] {
				t.Fatal("a goroutine's ids must increase")
			}
			if seen[s] {
				t.Fatal("duplicate id")
			}
			seen[s] = true
		}
	}
	batch, err := m.NextMany(5000)
	if err != nil || len(batch) != 5000 {
		t.Fatal("NextMany")
	}
}

func TestMintStepIsThePureStep(t *testing.T) {
	state, s, err := emqid.MintStep(0, 0, 1769526697641)
	if err != nil || s != 274557032793636864 {
		t.Fatal("first step")
	}
	_, s2, _ := emqid.MintStep(state, 0, 1769526697000)
	if s2 != s+1 {
		t.Fatal("a clock going back continues from state + 1")
	}
	if _, _, err := emqid.MintStep(0, 2000, 0); !errors.Is(err, emqid.ErrRange) {
		t.Fatal("node range")
	}
}

func TestSelfCheck(t *testing.T) {
	if err := emqid.SelfCheck(); err != nil {
		t.Fatal(err)
	}
}

func TestKeyspaceTwo(t *testing.T) {
	if k, err := emqid.Type("orders", "g:vip:pending"); err != nil || k != "emq:{orders}:g:vip:pending" {
		t.Fatalf("Type: %q %v", k, err)
	}
	if _, err := emqid.Type("orders", "g:a:b:pending"); !errors.Is(err, emqid.ErrKind) {
		t.Fatalf("a : in a name: %v", err)
	}
	p, err := emqid.ParseKey("emq:{orders}:job:JOB0KHTOWnGLuC:lock")
	if err != nil || p != (emqid.ParsedKey{Queue: "orders", Family: "job:<id>:lock", Param: "JOB0KHTOWnGLuC"}) {
		t.Fatalf("ParseKey: %+v %v", p, err)
	}
	if _, err := emqid.ParseKey("{emq}:version"); !errors.Is(err, emqid.ErrQueue) {
		t.Fatalf("ParseKey of the reserve: %v", err)
	}
	if k, err := emqid.Reserve("version"); err != nil || k != "{emq}:version" {
		t.Fatalf("Reserve: %q %v", k, err)
	}
	if k, err := emqid.QueuePrefix("orders"); err != nil || k != "emq:{orders}:" {
		t.Fatalf("QueuePrefix: %q %v", k, err)
	}
	if k, err := emqid.JobPrefix("orders"); err != nil || k != "emq:{orders}:job:" {
		t.Fatalf("JobPrefix: %q %v", k, err)
	}
	if n, err := emqid.PrefixBytes("orders", "job:"); err != nil || n != 17 {
		t.Fatalf("PrefixBytes: %d %v", n, err)
	}
	entry, err := emqid.XaddID("EVT000xY9Wvvcd")
	if err != nil || entry != "1704117200000-1620567" {
		t.Fatalf("XaddID: %q %v", entry, err)
	}
	if _, err := emqid.XaddID("ORD000xY9Wvvcd"); !errors.Is(err, emqid.ErrKind) {
		t.Fatalf("XaddID of ORD: %v", err)
	}
	if id, err := emqid.FromXaddID(entry, "EVT"); err != nil || id.String() != "EVT000xY9Wvvcd" {
		t.Fatalf("FromXaddID: %v %v", id, err)
	}
	if _, err := emqid.FromXaddID("1704117200000-x", "EVT"); !errors.Is(err, emqid.ErrCharset) {
		t.Fatalf("FromXaddID charset: %v", err)
	}
}

func TestIsValidAgreesWithParse(t *testing.T) {
	for _, text := range []string{"USR0KHTOWnGLuC", "USR0KHTOWnGLu", "usr0KHTOWnGLuC", "USR0KHTOWnGL!C", "USRzzzzzzzzzzz", "", "ZZZAzL8n0Y58m7"} {
		_, err := emqid.Parse(text)
		if emqid.IsValid(text) != (err == nil) {
			t.Errorf("IsValid(%q) = %v, Parse says %v", text, emqid.IsValid(text), err)
		}
	}
}

func TestCompareOrdersTextsLikeIDs(t *testing.T) {
	texts := []string{"JOB0KHTOWnGLuC", "JOB0NgWEfAEJfs", "USR0KHTOWnGLuC", "JOB0KHTOWnGLuC"}
	for _, a := range texts {
		for _, b := range texts {
			got, err := emqid.Compare(a, b)
			if want := emqid.MustParse(a).Compare(emqid.MustParse(b)); err != nil || got != want {
				t.Errorf("Compare(%q, %q) = %d %v, ID.Compare says %d", a, b, got, err, want)
			}
		}
	}
	if _, err := emqid.Compare("USR0KHTOWnGLu", "USR0KHTOWnGL!C"); !errors.Is(err, emqid.ErrLength) {
		t.Errorf("a's gate comes first: %v", err)
	}
	if _, err := emqid.Compare("USR0KHTOWnGLuC", ""); !errors.Is(err, emqid.ErrLength) {
		t.Errorf("then b's: %v", err)
	}
}

// A column that does not hold text is a Go type error, not a contract gate.
func TestScanOfAnotherTypeIsNotAGate(t *testing.T) {
	var id emqid.ID
	for _, src := range []any{nil, int64(14), 3.5} {
		err := id.Scan(src)
		var gate *emqid.Error
		if err == nil || errors.As(err, &gate) {
			t.Errorf("Scan(%T): want a plain error, got %#v", src, err)
		}
	}
}
