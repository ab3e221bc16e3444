package emqid_test

import (
	"errors"
	"strings"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// The constants come from the core's header; these are SPEC.md's numbers,
// a second source the header must agree with.
func TestTheContractNumbersAreTheSpecs(t *testing.T) {
	for name, c := range map[string]struct{ got, want uint64 }{
		"IDLen":        {emqid.IDLen, 14},
		"NSLen":        {emqid.NSLen, 3},
		"EpochMs":      {emqid.EpochMs, 1704067200000},
		"MaxNode":      {emqid.MaxNode, 1<<10 - 1},
		"MaxSeq":       {emqid.MaxSeq, 1<<12 - 1},
		"MaxSnowflake": {emqid.MaxSnowflake, 1<<63 - 1},
		"Slots":        {emqid.Slots, 16384},
		"MaxQueueLen":  {emqid.MaxQueueLen, 128},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, SPEC.md says %d", name, c.got, c.want)
		}
	}
	// MaxKeyLen is a bound, not a spec number: the longest key must fit it.
	long, err := emqid.Key(strings.Repeat("q", emqid.MaxQueueLen), "job:JOB0KHTOWnGLuC:lock", nil)
	if err != nil || len(long) > emqid.MaxKeyLen {
		t.Errorf("a long key (%d bytes, %v) exceeds MaxKeyLen %d", len(long), err, emqid.MaxKeyLen)
	}
}

// The bounds are the refusals' edges: MaxNode mints, one more is ErrRange.
func TestTheConstantsAreTheGatesEdges(t *testing.T) {
	m, err := emqid.NewMinter(emqid.MaxNode)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := emqid.NewMinter(emqid.MaxNode + 1); !errors.Is(err, emqid.ErrRange) {
		t.Errorf("MaxNode+1: %v", err)
	}
	if _, err := emqid.Encode("MAX", emqid.MaxSnowflake); err != nil {
		t.Errorf("MaxSnowflake: %v", err)
	}
	if _, err := emqid.Encode("MAX", emqid.MaxSnowflake+1); !errors.Is(err, emqid.ErrRange) {
		t.Errorf("MaxSnowflake+1: %v", err)
	}
	if s, err := emqid.MinForUnixMs(emqid.EpochMs); err != nil || s != 0 {
		t.Errorf("EpochMs is snowflake time 0: %d %v", s, err)
	}
	if emqid.MustParse("ZZZAzL8n0Y58m7").Seq() != emqid.MaxSeq {
		t.Error("the highest snowflake's sequence is MaxSeq")
	}
}
