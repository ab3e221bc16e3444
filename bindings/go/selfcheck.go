package emqid

import (
	"errors"
	"fmt"
	"strings"
)

// At load, the package checks the library and its own conversions against
// the contract, and refuses to start on any disagreement (SPEC.md §8).
func init() {
	if err := SelfCheck(); err != nil {
		panic(err.Error() + " (this package or the libemqid it links disagrees with " + Contract +
			"; rebuild the library with `cargo build -p emq-id-c --release`)")
	}
}

// SelfCheck checks the linked library against the contract's own vectors
// (emq_self_check), then runs every line of those vectors through this
// package's public API, so that a drift in Go's conversions is caught as
// surely as a mislinked library. The package runs it at init and refuses to
// start when it fails. The error matches ErrSelfCheck and names the line.
func SelfCheck() error {
	if err := check(abiSelfCheck()); err != nil {
		return err
	}
	return checkHost(selfCheckVectors())
}

// selfCheckVectors is the core's self-check vectors, as the ABI exports them.
func selfCheckVectors() string { return abiSelfCheckVectors() }

// checkHost runs every line of vectors through the public API: the first
// line whose answer differs from the one written is the error, naming the
// line and what this package answered.
func checkHost(vectors string) error {
	if strings.TrimSpace(vectors) == "" {
		return refusal(statusSelfCheck, "no self-check vectors: an empty check proves nothing")
	}
	for _, line := range strings.Split(strings.TrimSuffix(vectors, "\n"), "\n") {
		if err := checkLine(line); err != nil {
			return refusal(statusSelfCheck, fmt.Sprintf("failed at %q: %v", line, err))
		}
	}
	return nil
}

// checkLine answers one line `<kind> <inputs…> <answer…>` and compares.
func checkLine(line string) error {
	words := strings.Split(line, " ")
	kind, known := vectorKinds[words[0]]
	if !known {
		return errors.New("no such kind of check in this package")
	}
	if len(words) < 2+kind.inputs {
		return errors.New("the line is too short")
	}
	inputs, want := words[1:1+kind.inputs], strings.Join(words[1+kind.inputs:], " ")
	got, err := kind.answer(inputs)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("got %s", got)
	}
	return nil
}
