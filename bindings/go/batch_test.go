package emqid_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// The batch calls answer what the one-by-one calls answer, item by item, up
// to the first item refused, whose index the *BatchError names.

// batchTexts is texts of every gate among good ones (the extremes, then
// several namespaces and snowflakes of every size), and the good ones alone.
func batchTexts(t *testing.T) (all, good []string) {
	all = []string{
		"USR0KHTOWnGLuC", "USR0KHTOWnGLu", "usr0KHTOWnGLuC", "USR0KHTOWnGL!C", "USRzzzzzzzzzzz",
		"USR0KHTOWnGL\x00C", "", "USR0KHTOWnGLuCC", "ZZZAzL8n0Y58m8", "JOB0KHTOWnGL€", "éOB0KHTOWnGLu",
	}
	good = []string{"ZZZAzL8n0Y58m7", "AAA00000000000"}
	x := uint64(0x2545F4914F6CDD1D)
	for i := 0; i < sized(500); i++ {
		x = x*6364136223846793005 + 1442695040888963407
		text, err := emqid.Encode([]string{"JOB", "USR", "EVT", "ZZZ"}[i%4], x>>(1+uint(i%64)))
		if err != nil {
			t.Fatal(err)
		}
		good = append(good, text)
	}
	return append(all, good...), good
}

// parsedOneByOne is what Parse says of texts: the ids before the first
// refused, and that one's index and error (-1 and nil when none is).
func parsedOneByOne(texts []string) ([]emqid.ID, int, error) {
	var ids []emqid.ID
	for i, text := range texts {
		id, err := emqid.Parse(text)
		if err != nil {
			return ids, i, err
		}
		ids = append(ids, id)
	}
	return ids, -1, nil
}

// batchProblem says how a batch's answer differs from the one-by-one answer,
// or "" when they agree.
func batchProblem[T comparable](got []T, err error, want []T, index int, wantErr error) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d items, one by one %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("item %d is %v, one by one %v", i, got[i], want[i])
		}
	}
	if wantErr == nil {
		if err != nil {
			return fmt.Sprintf("error %v, one by one none", err)
		}
		return ""
	}
	var batch *emqid.BatchError
	var gate, wantGate *emqid.Error
	if !errors.As(err, &batch) || batch.Index != index {
		return fmt.Sprintf("error %#v, want a *BatchError at index %d", err, index)
	}
	if !errors.As(err, &gate) || !errors.As(wantErr, &wantGate) || gate.Gate != wantGate.Gate || !errors.Is(err, wantGate) {
		return fmt.Sprintf("error %v, one by one %v", err, wantErr)
	}
	return ""
}

func TestParseManyAgreesWithParse(t *testing.T) {
	texts, good := batchTexts(t)
	// Each text alone, then every run of texts from each start: every gate at
	// index 0, in the middle and last, and batches with none refused.
	for i, text := range texts {
		ids, err := emqid.ParseMany([]string{text})
		want, index, wantErr := parsedOneByOne([]string{text})
		if p := batchProblem(ids, err, want, index, wantErr); p != "" {
			t.Errorf("ParseMany of text %d (%q) alone: %s", i, text, p)
		}
	}
	reused := make([]emqid.ID, len(texts))
	for start := range texts {
		ids, err := emqid.ParseMany(texts[start:])
		want, index, wantErr := parsedOneByOne(texts[start:])
		if p := batchProblem(ids, err, want, index, wantErr); p != "" {
			t.Errorf("ParseMany of texts[%d:]: %s", start, p)
		}
		ids, err = emqid.ParseManyInto(reused, texts[start:])
		if p := batchProblem(ids, err, want, index, wantErr); p != "" {
			t.Errorf("ParseManyInto of texts[%d:]: %s", start, p)
		}
	}
	ids, err := emqid.ParseMany(good)
	if err != nil || len(ids) != len(good) {
		t.Fatalf("ParseMany of %d good texts: %d ids, %v", len(good), len(ids), err)
	}
	for i, id := range ids {
		if id.String() != good[i] {
			t.Fatalf("id %d prints %q, its text is %q", i, id, good[i])
		}
	}
}

func TestEncodeManyAgreesWithEncode(t *testing.T) {
	var snowflakes []uint64
	_, good := batchTexts(t)
	for _, text := range good {
		snowflakes = append(snowflakes, emqid.MustParse(text).Snowflake())
	}
	snowflakes = append(snowflakes, 0, 1, emqid.MaxSnowflake, emqid.MaxSnowflake+1, 1<<64-1, 5)
	for _, ns := range []string{"JOB", "ZZZ", "job", "JO", "JOBS", "", "J\x00B"} {
		for start := range snowflakes {
			texts, err := emqid.EncodeMany(ns, snowflakes[start:])
			var want []string
			index, wantErr := -1, error(nil)
			for i, s := range snowflakes[start:] {
				text, err := emqid.Encode(ns, s)
				if err != nil {
					index, wantErr = i, err
					break
				}
				want = append(want, text)
			}
			if p := batchProblem(texts, err, want, index, wantErr); p != "" {
				t.Fatalf("EncodeMany(%q, snowflakes[%d:]): %s", ns, start, p)
			}
		}
	}
}

// The texts of one batch share its buffer: they stay what they were however
// many batches follow.
func TestEncodeManyTextsAreTheirOwn(t *testing.T) {
	first, err := emqid.EncodeMany("USR", []uint64{274557032793636864, 320636799581945856})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := emqid.EncodeMany("JOB", []uint64{uint64(i), emqid.MaxSnowflake}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(first, " ") != "USR0KHTOWnGLuC USR0NgWEfAEJfs" {
		t.Fatalf("the first batch now reads %q", first)
	}
}

func TestBatchErrorNamesTheIndexAndUnwrapsToTheGate(t *testing.T) {
	_, err := emqid.ParseMany([]string{"USR0KHTOWnGLuC", "USR0KHTOWnGLuC", "USR0KHTOWnGL!C", ""})
	var batch *emqid.BatchError
	if !errors.As(err, &batch) || batch.Index != 2 || !errors.Is(err, emqid.ErrCharset) || errors.Is(err, emqid.ErrLength) {
		t.Fatalf("%#v", err)
	}
	if want := "emqid: charset: the payload holds a byte outside base62 [0-9A-Za-z] (index 2)"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	if errors.Unwrap(err) != batch.Err {
		t.Fatal("Unwrap is Err")
	}
	_, err = emqid.EncodeMany("US", []uint64{1})
	if !errors.As(err, &batch) || batch.Index != 0 || !errors.Is(err, emqid.ErrRange) {
		t.Fatalf("a short namespace: %#v", err)
	}
}
