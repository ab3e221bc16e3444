package emqid

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The sentinel each gate of the contract must reach (SPEC.md §9), written
// here by hand on purpose: this is what the core's list is checked against.
var sentinelOfGate = map[string]*Error{
	"length":    ErrLength,
	"namespace": ErrNamespace,
	"charset":   ErrCharset,
	"range":     ErrRange,
	"queue":     ErrQueue,
	"kind":      ErrKind,
	"node":      ErrNode,
}

// Every gate of the core, as the ABI answers it, reaches its sentinel through
// the one helper; a gate the core gains fails here until Go maps it.
func TestEveryGateOfTheCoreReachesItsSentinel(t *testing.T) {
	for _, problem := range gateProblems(coreGates()) {
		t.Error(problem)
	}
}

// The negative controls: the judgment above does fail on a gate it does not
// know, on a missing gate, and on a status mapped to another gate's error.
func TestGateCoverageRefusesWhatItShould(t *testing.T) {
	gates := coreGates()
	unknown := append(append([]coreGate{}, gates...), coreGate{"quota", &Error{Gate: "quota", Detail: "a new rule"}})
	missing := gates[:len(gates)-1]
	crossed := append([]coreGate{}, gates...)
	crossed[0].err = crossed[1].err
	for name, c := range map[string]struct {
		gates []coreGate
		says  string
	}{
		"a gate the core gains": {unknown, `"quota" has no Go sentinel`},
		"a gate the core drops": {missing, fmt.Sprintf("%q names no gate", gates[len(gates)-1].name)},
		"a crossed status":      {crossed, fmt.Sprintf("gate %q: the error says %q", gates[0].name, gates[1].name)},
	} {
		problems := strings.Join(gateProblems(c.gates), "\n")
		if !strings.Contains(problems, c.says) {
			t.Errorf("%s: want a problem saying %s, got %q", name, c.says, problems)
		}
	}
}

// gateProblems judges a gate list against sentinelOfGate.
func gateProblems(gates []coreGate) []string {
	var problems []string
	seen := map[string]bool{}
	for _, g := range gates {
		seen[g.name] = true
		sentinel, mapped := sentinelOfGate[g.name]
		if !mapped {
			problems = append(problems, fmt.Sprintf("the core's gate %q has no Go sentinel: add one in errors.go and to this table", g.name))
			continue
		}
		var e *Error
		if !errors.As(g.err, &e) {
			problems = append(problems, fmt.Sprintf("gate %q: the ABI's status became %v, not an *Error", g.name, g.err))
			continue
		}
		if e.Gate != g.name || sentinel.Gate != g.name {
			problems = append(problems, fmt.Sprintf("gate %q: the error says %q and its sentinel %q", g.name, e.Gate, sentinel.Gate))
		}
		if !errors.Is(g.err, sentinel) {
			problems = append(problems, fmt.Sprintf("gate %q: %v is not errors.Is its sentinel %v", g.name, g.err, sentinel))
		}
		if e.Detail == "" {
			problems = append(problems, fmt.Sprintf("gate %q: the error says nothing of the rule (no detail)", g.name))
		}
	}
	for name := range sentinelOfGate {
		if !seen[name] {
			problems = append(problems, fmt.Sprintf("the sentinel of %q names no gate of the core's list (%d gates)", name, len(gates)))
		}
	}
	return problems
}

// A sentinel matches its own gate only: no two gates share a word.
func TestSentinelsAreDistinct(t *testing.T) {
	for name, a := range sentinelOfGate {
		for other, b := range sentinelOfGate {
			if name != other && errors.Is(a, b) {
				t.Errorf("%v matches the sentinel of %q", a, other)
			}
		}
		if errors.Is(a, ErrSelfCheck) {
			t.Errorf("%v matches ErrSelfCheck, which is not a gate", a)
		}
	}
}
