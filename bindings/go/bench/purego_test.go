package bench

import (
	"errors"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// The pure-Go floor is an anchor only if it does the same work: it must give
// emqid's answers and refuse what emqid refuses, for the same reason.
func TestPureFloorMatchesEmqid(t *testing.T) {
	for _, s := range append(pseudoSnowflakes(1000), 0, 1, 61, 62, 1<<62, 1<<63-1) {
		want, err := emqid.Encode("JOB", s)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := pureEncode("JOB", s); got != want || err != nil {
			t.Fatalf("pureEncode(%d) = %q, %v; emqid.Encode %q", s, got, err, want)
		}
		id, err := pureParse(want)
		if err != nil || id.snowflake != s || string(id.ns[:]) != "JOB" {
			t.Fatalf("pureParse(%q) = %v, %v; want JOB %d", want, id, err, s)
		}
	}
	for _, bad := range []struct{ ns string }{{"JO"}, {"JOBS"}, {"JoB"}, {"J0B"}} {
		if _, err := emqid.Encode(bad.ns, 1); err == nil {
			t.Fatalf("emqid.Encode(%q) accepted", bad.ns)
		}
		if _, err := pureEncode(bad.ns, 1); err == nil {
			t.Fatalf("pureEncode(%q) accepted", bad.ns)
		}
	}
	if _, err := pureEncode("JOB", 1<<63); err == nil {
		t.Fatal("pureEncode(2^63) accepted")
	}
	refused := []struct {
		text      string
		emqid     error
		pureFloor error
	}{
		{"", emqid.ErrLength, errPureLength},
		{"JOB0000000000", emqid.ErrLength, errPureLength},
		{"JOB000000000000", emqid.ErrLength, errPureLength},
		{"JoB00000000000", emqid.ErrNamespace, errPureNamespace},
		{"J0B00000000000", emqid.ErrNamespace, errPureNamespace},
		{"jOBzzzzzzzzzz-", emqid.ErrNamespace, errPureNamespace},
		{"JOB0000000000-", emqid.ErrCharset, errPureCharset},
		{"JOB-0000000000", emqid.ErrCharset, errPureCharset},
		{"JOBzzzzzzzzzz-", emqid.ErrCharset, errPureCharset},
		{"JOB0000000000\xff", emqid.ErrCharset, errPureCharset},
		{"JOBzzzzzzzzzzz", emqid.ErrRange, errPureRange},
		{"JOBAzL8n0Y58m8", emqid.ErrRange, errPureRange}, // 2^63, one past the largest
	}
	for _, r := range refused {
		if _, err := emqid.Parse(r.text); !errors.Is(err, r.emqid) {
			t.Fatalf("emqid.Parse(%q) = %v; want %v", r.text, err, r.emqid)
		}
		if _, err := pureParse(r.text); err != r.pureFloor {
			t.Fatalf("pureParse(%q) = %v; want %v", r.text, err, r.pureFloor)
		}
	}
	if h, want := pureHash32(0x0123456789ABCDEF), emqid.Hash32(0x0123456789ABCDEF); h != want {
		t.Fatalf("pureHash32 = %#x; emqid.Hash32 %#x", h, want)
	}
	for _, s := range pseudoSnowflakes(1000) {
		if pureHash32(s) != emqid.Hash32(s) {
			t.Fatalf("pureHash32(%d) differs from emqid.Hash32", s)
		}
	}
}
