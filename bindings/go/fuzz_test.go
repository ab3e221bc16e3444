package emqid_test

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// Native fuzz targets. Each compares the package (through cgo, the Rust core)
// with a naive reference written here from SPEC.md alone, so a wrong answer
// is caught as surely as a crash. Plain `go test` runs the seed corpus in
// testdata/fuzz; `go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s`
// searches further. Only this package's Go code is coverage-instrumented: the
// core behind cgo is fuzzed by the cargo-fuzz targets, and here is checked
// against the reference on whatever the Go fuzzer sends it.

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// refParse is SPEC.md §3, byte by byte: the gates length, namespace, charset,
// range in that order, the first that fails answering. The value accumulates
// in 64 bits with every multiplication and addition checked for overflow, so
// 11 digits worth more than 2^64 cannot wrap to a small, valid-looking number.
func refParse(text []byte) (ns string, snowflake uint64, gate string) {
	if len(text) != 14 {
		return "", 0, "length"
	}
	for _, c := range text[:3] {
		if c < 'A' || c > 'Z' {
			return "", 0, "namespace"
		}
	}
	var digits [11]uint64
	for i, c := range text[3:] {
		d := bytes.IndexByte([]byte(base62), c)
		if d < 0 {
			return "", 0, "charset"
		}
		digits[i] = uint64(d)
	}
	var v uint64
	for _, d := range digits {
		hi, lo := bits.Mul64(v, 62)
		if hi != 0 {
			return "", 0, "range"
		}
		sum, carry := bits.Add64(lo, d, 0)
		if carry != 0 {
			return "", 0, "range"
		}
		v = sum
	}
	if v > math.MaxInt64 {
		return "", 0, "range"
	}
	return string(text[:3]), v, ""
}

// refEncode is the 11 base62 digits of s, most significant first, after ns.
func refEncode(ns string, s uint64) string {
	var out [11]byte
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = base62[s%62]
		s /= 62
	}
	return ns + string(out[:])
}

// refHashtag is SPEC.md §6: the bytes strictly between the first '{' and the
// first '}' after it when that span is not empty, else the whole key; as an
// offset and a length into the key.
func refHashtag(key []byte) (off, n int) {
	for i := 0; i < len(key); i++ {
		if key[i] != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j > i+1 {
					return i + 1, j - i - 1
				}
				return 0, len(key)
			}
		}
		return 0, len(key)
	}
	return 0, len(key)
}

// refSlot is CRC16-XMODEM (polynomial 0x1021, initial 0, no reflection, no
// final xor) of the hashtag, bit by bit, mod 16384.
func refSlot(key []byte) uint16 {
	off, n := refHashtag(key)
	var crc uint16
	for _, b := range key[off : off+n] {
		crc ^= uint16(b) << 8
		for k := 0; k < 8; k++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}

func gateOf(err error) string {
	var e *emqid.Error
	if errors.As(err, &e) {
		return e.Gate
	}
	if err != nil {
		return "not an *emqid.Error: " + err.Error()
	}
	return ""
}

// FuzzParse: any bytes through Parse, ParseBytes, IsValid, Compare and
// UnmarshalText answer the reference's value or gate; every accepted text
// encodes back to itself. The same bytes cut at every '\n' into texts give
// ParseMany each text's reference answer up to the first refused (its index
// and gate), and EncodeMany the accepted snowflakes' reference texts.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, text []byte) {
		checkParseMany(t, strings.Split(string(text), "\n"))
		ns, want, gate := refParse(text)
		str := string(text)
		id, err := emqid.ParseBytes(text)
		if got := gateOf(err); got != gate {
			t.Fatalf("ParseBytes(%q): gate %q, the reference says %q", text, got, gate)
		}
		byString, err := emqid.Parse(str)
		if got := gateOf(err); got != gate {
			t.Fatalf("Parse(%q): gate %q, the reference says %q", text, got, gate)
		}
		if emqid.IsValid(str) != (gate == "") {
			t.Fatalf("IsValid(%q) = %v, the reference's gate is %q", text, !(gate == ""), gate)
		}
		var un emqid.ID
		if got := gateOf(un.UnmarshalText(text)); got != gate {
			t.Fatalf("UnmarshalText(%q): gate %q, the reference says %q", text, got, gate)
		}
		order, err := emqid.Compare(str, str)
		if got := gateOf(err); got != gate || order != 0 {
			t.Fatalf("Compare(%q, itself) = %d, gate %q; the reference says gate %q", text, order, got, gate)
		}
		if gate != "" {
			return
		}
		if id != byString || id != un || id.NS() != ns || id.Snowflake() != want {
			t.Fatalf("%q: ParseBytes %v, Parse %v, UnmarshalText %v; the reference says %s %d", text, id, byString, un, ns, want)
		}
		if id.String() != str || refEncode(ns, want) != str {
			t.Fatalf("%q: String() is %q, the reference encodes %q", text, id.String(), refEncode(ns, want))
		}
		if enc, err := emqid.Encode(ns, want); err != nil || enc != str {
			t.Fatalf("Encode(Parse(%q)) = %q, %v", text, enc, err)
		}
		if rebuilt, err := emqid.NewID(ns, want); err != nil || rebuilt != id {
			t.Fatalf("NewID(%s, %d) = %v, %v; Parse gave %v", ns, want, rebuilt, err, id)
		}
	})
}

// checkParseMany judges ParseMany of texts by the reference, then
// EncodeMany of the snowflakes it accepted, in the first text's namespace.
func checkParseMany(t *testing.T, texts []string) {
	ids, err := emqid.ParseMany(texts)
	refused, gate := len(texts), ""
	for i, text := range texts {
		if _, _, g := refParse([]byte(text)); g != "" {
			refused, gate = i, g
			break
		}
	}
	var batch *emqid.BatchError
	if got := gateOf(err); got != gate || len(ids) != refused || (gate != "" && (!errors.As(err, &batch) || batch.Index != refused)) {
		t.Fatalf("ParseMany(%q): %d ids, %v; the reference refuses text %d with gate %q", texts, len(ids), err, refused, gate)
	}
	snowflakes := make([]uint64, len(ids))
	for i, id := range ids {
		ns, s, _ := refParse([]byte(texts[i]))
		if id.NS() != ns || id.Snowflake() != s {
			t.Fatalf("ParseMany(%q)[%d] = %v; the reference says %s %d", texts, i, id, ns, s)
		}
		snowflakes[i] = s
	}
	ns := "JOB"
	if len(ids) > 0 {
		ns = ids[0].NS()
	}
	encoded, err := emqid.EncodeMany(ns, snowflakes)
	if err != nil || len(encoded) != len(snowflakes) {
		t.Fatalf("EncodeMany(%q, %v) = %q, %v", ns, snowflakes, encoded, err)
	}
	for i, s := range snowflakes {
		if encoded[i] != refEncode(ns, s) {
			t.Fatalf("EncodeMany(%q, %v)[%d] = %q; the reference encodes %q", ns, snowflakes, i, encoded[i], refEncode(ns, s))
		}
	}
}

// FuzzSlot: any bytes through Slot, SlotString and Hashtag answer the
// reference; the same bytes cut at every '\n' into keys give SlotMany,
// SlotManyInto and SlotManyStrings each key's reference slot.
func FuzzSlot(f *testing.F) {
	var reused []uint16
	f.Fuzz(func(t *testing.T, key []byte) {
		want := refSlot(key)
		if got := emqid.Slot(key); got != want {
			t.Fatalf("Slot(%q) = %d, the reference says %d", key, got, want)
		}
		if got := emqid.SlotString(string(key)); got != want {
			t.Fatalf("SlotString(%q) = %d, the reference says %d", key, got, want)
		}
		off, n := refHashtag(key)
		tag := emqid.Hashtag(key)
		if !bytes.Equal(tag, key[off:off+n]) {
			t.Fatalf("Hashtag(%q) = %q, the reference says %q", key, tag, key[off:off+n])
		}
		if n > 0 && &tag[0] != &key[off] {
			t.Fatalf("Hashtag(%q) is not the span of the key at %d", key, off)
		}

		keys := bytes.Split(key, []byte("\n"))
		strs := make([]string, len(keys))
		for i, k := range keys {
			strs[i] = string(k)
		}
		many := emqid.SlotMany(keys)
		if cap(reused) < len(keys) {
			reused = make([]uint16, len(keys))
		}
		into := emqid.SlotManyInto(reused[:len(keys)], keys)
		manyStrings := emqid.SlotManyStrings(strs)
		if len(many) != len(keys) || len(into) != len(keys) || len(manyStrings) != len(keys) {
			t.Fatalf("%d keys: SlotMany %d slots, SlotManyInto %d, SlotManyStrings %d", len(keys), len(many), len(into), len(manyStrings))
		}
		for i, k := range keys {
			if w := refSlot(k); many[i] != w || into[i] != w || manyStrings[i] != w {
				t.Fatalf("key %d of %q (%q): SlotMany %d, SlotManyInto %d, SlotManyStrings %d; the reference says %d",
					i, key, k, many[i], into[i], manyStrings[i], w)
			}
		}
	})
}

// The fuzzers' edge, said once by name: empty and nil inputs in every call
// that takes bytes or a count. An empty Go slice may have a nil data pointer,
// which the C ABI takes only with length 0.
func TestEmptyInputs(t *testing.T) {
	slots := []struct {
		name string
		got  uint16
	}{
		{"Slot(nil)", emqid.Slot(nil)},
		{"Slot([]byte{})", emqid.Slot([]byte{})},
		{"Slot(make([]byte, 0, 8))", emqid.Slot(make([]byte, 0, 8))},
		{`SlotString("")`, emqid.SlotString("")},
	}
	for _, s := range slots {
		if s.got != 0 {
			t.Errorf("%s = %d; the empty key is slot 0", s.name, s.got)
		}
	}
	for _, c := range []struct {
		name string
		got  []uint16
		want []uint16
	}{
		{"SlotMany(nil)", emqid.SlotMany(nil), []uint16{}},
		{"SlotMany([][]byte{})", emqid.SlotMany([][]byte{}), []uint16{}},
		{"SlotMany([][]byte{nil, {}})", emqid.SlotMany([][]byte{nil, {}}), []uint16{0, 0}},
		{"SlotManyInto(nil, nil)", emqid.SlotManyInto(nil, nil), []uint16{}},
		{"SlotManyStrings(nil)", emqid.SlotManyStrings(nil), []uint16{}},
		{`SlotManyStrings([]string{"", ""})`, emqid.SlotManyStrings([]string{"", ""}), []uint16{0, 0}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if tag := emqid.Hashtag(nil); len(tag) != 0 {
		t.Errorf("Hashtag(nil) = %q", tag)
	}
	if tag := emqid.Hashtag([]byte{}); len(tag) != 0 {
		t.Errorf("Hashtag([]byte{}) = %q", tag)
	}

	var un emqid.ID
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"ParseBytes(nil)", second(emqid.ParseBytes(nil)), emqid.ErrLength},
		{"ParseBytes([]byte{})", second(emqid.ParseBytes([]byte{})), emqid.ErrLength},
		{`Parse("")`, second(emqid.Parse("")), emqid.ErrLength},
		{"UnmarshalText(nil)", un.UnmarshalText(nil), emqid.ErrLength},
		{`Compare("", "")`, second(emqid.Compare("", "")), emqid.ErrLength},
		{`Encode("", 0)`, second(emqid.Encode("", 0)), emqid.ErrRange},
		{`NewID("", 0)`, second(emqid.NewID("", 0)), emqid.ErrRange},
		{`QueueKey("", KindPending)`, second(emqid.QueueKey("", emqid.KindPending)), emqid.ErrQueue},
		{`JobKey("orders", "")`, second(emqid.JobKey("orders", "")), emqid.ErrLength},
		{`QueuePrefix("")`, second(emqid.QueuePrefix("")), emqid.ErrQueue},
		{`JobPrefix("")`, second(emqid.JobPrefix("")), emqid.ErrQueue},
		{`ParseKey("")`, second(emqid.ParseKey("")), emqid.ErrQueue},
		{`Reserve("")`, second(emqid.Reserve("")), emqid.ErrKind},
		{`PrefixBytes("", "")`, second(emqid.PrefixBytes("", "")), emqid.ErrQueue},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if emqid.IsValid("") {
		t.Error(`IsValid("")`)
	}
	for _, c := range []struct {
		name string
		n    int
		err  error
	}{
		{"ParseMany(nil)", len(first(emqid.ParseMany(nil))), second(emqid.ParseMany(nil))},
		{"ParseMany([]string{})", len(first(emqid.ParseMany([]string{}))), second(emqid.ParseMany([]string{}))},
		{"ParseManyInto(nil, nil)", len(first(emqid.ParseManyInto(nil, nil))), second(emqid.ParseManyInto(nil, nil))},
		{`EncodeMany("JOB", nil)`, len(first(emqid.EncodeMany("JOB", nil))), second(emqid.EncodeMany("JOB", nil))},
		// An empty batch is no call: not even its namespace is judged.
		{`EncodeMany("", []uint64{})`, len(first(emqid.EncodeMany("", []uint64{}))), second(emqid.EncodeMany("", []uint64{}))},
	} {
		if c.n != 0 || c.err != nil {
			t.Errorf("%s: %d items, %v; want none and no error", c.name, c.n, c.err)
		}
	}
	if ids, err := emqid.ParseMany([]string{"", ""}); len(ids) != 0 || !errors.Is(err, emqid.ErrLength) {
		t.Errorf(`ParseMany([]string{"", ""}) = %v, %v; want the length gate at index 0`, ids, err)
	}
	if texts, err := emqid.EncodeMany("", []uint64{0}); len(texts) != 0 || !errors.Is(err, emqid.ErrRange) {
		t.Errorf(`EncodeMany("", []uint64{0}) = %q, %v; want the range gate at index 0`, texts, err)
	}
	if err := emqid.ParseAcquireError(""); err != nil {
		t.Errorf(`ParseAcquireError(""): %v; an empty message is not the protocol's refusal`, err)
	}

	m, err := emqid.NewMinter(5)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if ids, err := m.NextMany(0); err != nil || ids == nil || len(ids) != 0 {
		t.Errorf("NextMany(0) = %v (nil: %v), %v", ids, ids == nil, err)
	}
	// The minter is untouched by an empty batch: its next id is its first.
	first, err := m.NextAt(1769526697641)
	if err != nil || first != 274557032793636864|5<<12 {
		t.Errorf("NextAt after NextMany(0) = %d, %v", first, err)
	}
}

func first[T any](v T, _ error) T { return v }
