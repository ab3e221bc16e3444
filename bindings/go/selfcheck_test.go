package emqid

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestTheHostCheckHoldsOnTheCoreVectors(t *testing.T) {
	vectors := selfCheckVectors()
	if err := checkHost(vectors); err != nil {
		t.Fatal(err)
	}
	// Every kind this package reads is one the core writes: no dead reader.
	for kind := range vectorKinds {
		if !strings.Contains("\n"+vectors, "\n"+kind+" ") {
			t.Errorf("the core's vectors have no %q line", kind)
		}
	}
}

// The fake that proves the load refusal path: a copy of the core's vectors
// with one wrong answer word, for every answer word of every line, is refused
// with that line named.
func TestEveryWrongAnswerIsRefusedNamingItsLine(t *testing.T) {
	vectors := selfCheckVectors()
	lines := strings.Split(strings.TrimSuffix(vectors, "\n"), "\n")
	refused := map[string]int{}
	for i, line := range lines {
		words := strings.Split(line, " ")
		for w := 1 + vectorKinds[words[0]].inputs; w < len(words); w++ {
			wrong := append([]string{}, words...)
			wrong[w] = mutated(words[w])
			wrongLine := strings.Join(wrong, " ")
			corrupted := append(append(append([]string{}, lines[:i]...), wrongLine), lines[i+1:]...)
			err := checkHost(strings.Join(corrupted, "\n") + "\n")
			if !errors.Is(err, ErrSelfCheck) || !strings.Contains(err.Error(), fmt.Sprintf("failed at %q", wrongLine)) {
				t.Errorf("%q: want a self_check error naming the line, got %v", wrongLine, err)
				continue
			}
			refused[words[0]]++
		}
	}
	for _, kind := range []string{"decode", "reject", "slot", "encode", "encode_reject", "min_for", "mint", "hashtag", "key", "key_reject", "xadd_id"} {
		if refused[kind] == 0 {
			t.Errorf("no corrupted %q line was tried", kind)
		}
	}
}

// mutated is a word of an answer made wrong: a number off by one, a gate
// turned into another gate, any other word lengthened.
func mutated(word string) string {
	if n, err := strconv.ParseUint(word, 10, 64); err == nil {
		return strconv.FormatUint(n^1, 10)
	}
	if _, gate := sentinelOfGate[word]; gate {
		if word == "range" {
			return "length"
		}
		return "range"
	}
	return word + "x"
}

// The message a refusal at load carries: the line as written, and what Go answered.
func TestTheRefusalSaysWhichLineAndWhatGoAnswered(t *testing.T) {
	err := checkHost("slot 123456789 12739\nslot {fills} 4166\n")
	want := `emqid: self_check: failed at "slot {fills} 4166": got 4165`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	err = checkHost("reject USR0KHTOWnGLuC length\n")
	if err == nil || !strings.HasSuffix(err.Error(), "got USR 274557032793636864 1769526697641 0 0 234878118") {
		t.Fatalf("an accepted id where a refusal is written: %v", err)
	}
}

// A line the package cannot read is a failure, never a skip.
func TestAnUnreadableVectorIsRefused(t *testing.T) {
	for _, vectors := range []string{
		"",
		"\n",
		"frobnicate 1 2\n",
		"slot\n",
		"mint 0 soon 1769526697000 274557032793636864 274557032793636865\n",
		"encode USR 18446744073709551616 range\n",
		"slot 123456789 12739\n\nslot 123456789 12739\n",
	} {
		if err := checkHost(vectors); !errors.Is(err, ErrSelfCheck) {
			t.Errorf("%q: want a self_check error, got %v", vectors, err)
		}
	}
}
