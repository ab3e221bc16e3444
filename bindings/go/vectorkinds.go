package emqid

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// How the self-check reads each kind of line of the core's vectors: every
// answer comes from this package's public API, never from the library directly.

// vectorKind reads one kind of line: how many of its words are inputs, and
// the answer to them as the line writes it (words joined by single spaces,
// a refusal as its gate). A kind that expects a value and its `_reject`
// twin share the answer: only what is written differs.
type vectorKind struct {
	inputs int
	answer func(inputs []string) (string, error)
}

var vectorKinds = map[string]vectorKind{
	"decode":        {1, answerParse},
	"reject":        {1, answerParse},
	"encode":        {2, answerEncode},
	"encode_reject": {2, answerEncode},
	"min_for":       {1, answerMinFor},
	"mint":          {3, answerMint},
	"slot":          {1, answerSlot},
	"hashtag":       {1, answerHashtag},
	"key":           {3, answerKey},
	"key_reject":    {3, answerKey},
	"xadd_id":       {1, answerXaddID},
}

// answerParse: `<id>` → `<ns> <snowflake> <unix_ms> <node> <seq> <hash32>`,
// or its gate.
func answerParse(in []string) (string, error) {
	id, err := Parse(in[0])
	if err != nil {
		return gateOf(err), nil
	}
	return spaced(id.NS(), id.Snowflake(), id.UnixMs(), id.Node(), id.Seq(), id.Hash32()), nil
}

// answerEncode: `<ns> <snowflake>` → `<id>`.
func answerEncode(in []string) (string, error) {
	s, err := strconv.ParseUint(in[1], 10, 64)
	if err != nil {
		return "", err
	}
	id, err := NewID(in[0], s)
	if err != nil {
		return gateOf(err), nil
	}
	return id.String(), nil
}

// answerMinFor: `<unix_ms>` → `<snowflake>`.
func answerMinFor(in []string) (string, error) {
	ms, err := strconv.ParseInt(in[0], 10, 64)
	if err != nil {
		return "", err
	}
	s, err := MinForUnixMs(ms)
	if err != nil {
		return gateOf(err), nil
	}
	return spaced(s), nil
}

// answerMint: `<node> <now_ms> <now_ms>` → a new minter's first two snowflakes.
func answerMint(in []string) (string, error) {
	node, err := strconv.Atoi(in[0])
	if err != nil {
		return "", err
	}
	var clock [2]int64
	for i := range clock {
		if clock[i], err = strconv.ParseInt(in[1+i], 10, 64); err != nil {
			return "", err
		}
	}
	m, err := NewMinter(node)
	if err != nil {
		return gateOf(err), nil
	}
	defer m.Close()
	var minted []any
	for _, now := range clock {
		s, err := m.NextAt(now)
		if err != nil {
			return spaced(append(minted, gateOf(err))...), nil
		}
		minted = append(minted, s)
	}
	return spaced(minted...), nil
}

// answerSlot: `<key>` → `<slot>`.
func answerSlot(in []string) (string, error) { return spaced(SlotString(in[0])), nil }

// answerHashtag: `<key>` → `<hashtag>`.
func answerHashtag(in []string) (string, error) { return string(Hashtag([]byte(in[0]))), nil }

// answerKey: `<queue> <type> <id or ->` → `<key>`, through the builder a
// caller would pick for that shape.
func answerKey(in []string) (string, error) {
	queue, ty, id := in[0], in[1], in[2]
	var key string
	var err error
	switch {
	case id == "-":
		key, err = QueueKey(queue, ty)
	case ty == KindJob:
		key, err = JobKey(queue, id)
	default:
		key, err = Key(queue, ty, &id)
	}
	if err != nil {
		return gateOf(err), nil
	}
	return key, nil
}

// answerXaddID: `<id>` → `<entry id>`.
func answerXaddID(in []string) (string, error) {
	entry, err := XaddID(in[0])
	if err != nil {
		return gateOf(err), nil
	}
	return entry, nil
}

// gateOf is how a line writes a refusal: the gate of an *Error. Anything
// else is not a refusal of the contract, and no line expects its text.
func gateOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Gate
	}
	return "(not a gate: " + err.Error() + ")"
}

// spaced writes values as a vector line does: in decimal, single spaces.
func spaced(values ...any) string {
	return strings.TrimSuffix(fmt.Sprintln(values...), "\n")
}
