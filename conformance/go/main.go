// Command conformance-go is the Go adapter of `cargo xtask conformance`: it
// reads protocol requests (JSON lines, see conformance/PROTOCOL.md) on stdin
// and answers each through the emqid package's public API. It translates;
// the runner judges.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
)

type request struct {
	Req       json.RawMessage `json:"req"`
	Op        string          `json:"op"`
	TextHex   *string         `json:"text_hex"`
	Text      *string         `json:"text"`
	NS        string          `json:"ns"`
	Snowflake string          `json:"snowflake"`
	UnixMs    string          `json:"unix_ms"`
	Node      int             `json:"node"`
	NowMs     json.RawMessage `json:"now_ms"` // mint: an array of decimals; lease_start: a number
	KeyHex    *string         `json:"key_hex"`
	Key       *string         `json:"key"`
	Queue     string          `json:"queue"`
	Kind      string          `json:"kind"`
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Type      string          `json:"type"`
	Entry     string          `json:"entry"`
	// The lease ops (emq-lease/3).
	Previous     int64  `json:"previous"`
	PreviousMark *int64 `json:"previous_mark"`
	Message      string `json:"message"`
	Reply        int64  `json:"reply"`
	TTLMs        int64  `json:"ttl_ms"`
	MarginMs     int64  `json:"margin_ms"`
	Replicas     int64  `json:"replicas"`
	// The lease keeper's ops.
	Error string       `json:"error"`
	Asked bool         `json:"asked"`
	Since int64        `json:"since"`
	Steps []keeperStep `json:"steps"`
}

// keeperStep is one step of lease_keeper: the write due at At, (with an
// Outcome) a write sent at Sent settled at At, or (Release) the lease handed
// back from then on.
type keeperStep struct {
	Outcome *string `json:"outcome"`
	Sent    int64   `json:"sent"`
	At      int64   `json:"at"`
	Release bool    `json:"release"`
}

type object = map[string]any

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "conformance-go: bad request:", err)
			os.Exit(1)
		}
		answer := translate(&r)
		answer["req"] = r.Req
		if err := enc.Encode(answer); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-go:", err)
		os.Exit(1)
	}
}

// answer wraps a value or an *emqid.Error in the protocol's shape.
func answer(value object, err error) object {
	var e *emqid.Error
	switch {
	case err == nil:
		return object{"ok": value}
	case errors.As(err, &e):
		return object{"error": object{"gate": e.Gate, "message": e.Error()}}
	default:
		return object{"unsupported": err.Error()}
	}
}

func bytesOf(hexField, textField *string) ([]byte, bool, error) {
	if hexField != nil {
		b, err := hex.DecodeString(*hexField)
		return b, false, err
	}
	if textField != nil {
		return []byte(*textField), true, nil
	}
	return nil, false, errors.New("request has neither text nor hex bytes")
}

func translate(r *request) object {
	switch r.Op {
	case "decode":
		raw, isText, err := bytesOf(r.TextHex, r.Text)
		if err != nil {
			return object{"unsupported": err.Error()}
		}
		var id emqid.ID
		if isText {
			id, err = emqid.Parse(*r.Text) // the string API
		} else {
			id, err = emqid.ParseBytes(raw) // the bytes API
		}
		if err != nil {
			return answer(nil, err)
		}
		return answer(object{
			"ns":        id.NS(),
			"snowflake": strconv.FormatUint(id.Snowflake(), 10),
			"unix_ms":   strconv.FormatUint(id.UnixMs(), 10),
			"node":      id.Node(),
			"seq":       id.Seq(),
			"hash32":    emqid.Hash32(id.Snowflake()),
		}, nil)
	case "encode":
		s, err := strconv.ParseUint(r.Snowflake, 10, 64)
		if err != nil {
			return object{"unsupported": "snowflake is not a uint64: " + r.Snowflake}
		}
		text, err := emqid.Encode(r.NS, s)
		return answer(object{"text": text}, err)
	case "min_for":
		ms, err := strconv.ParseInt(r.UnixMs, 10, 64)
		if err != nil {
			return object{"unsupported": "unix_ms is not an int64: " + r.UnixMs}
		}
		s, err := emqid.MinForUnixMs(ms)
		return answer(object{"snowflake": strconv.FormatUint(s, 10)}, err)
	case "mint":
		m, err := emqid.NewMinter(r.Node)
		if err != nil {
			return answer(nil, err)
		}
		defer m.Close()
		var nowMs []string
		if err := json.Unmarshal(r.NowMs, &nowMs); err != nil {
			return object{"unsupported": "now_ms is not an array of decimals: " + err.Error()}
		}
		steps := make([]object, 0, len(nowMs))
		for _, now := range nowMs {
			ms, err := strconv.ParseInt(now, 10, 64)
			if err != nil {
				return object{"unsupported": "now_ms is not an int64: " + now}
			}
			s, err := m.NextAt(ms)
			var e *emqid.Error
			if errors.As(err, &e) {
				steps = append(steps, object{"gate": e.Gate})
			} else {
				steps = append(steps, object{"snowflake": strconv.FormatUint(s, 10)})
			}
		}
		return answer(object{"steps": steps}, nil)
	case "slot":
		key, isText, err := bytesOf(r.KeyHex, r.Key)
		if err != nil {
			return object{"unsupported": err.Error()}
		}
		slot := emqid.Slot(key)
		if isText {
			slot = emqid.SlotString(*r.Key)
		}
		return answer(object{"slot": slot, "hashtag_hex": hex.EncodeToString(emqid.Hashtag(key))}, nil)
	case "key":
		key, err := emqid.Key(r.Queue, r.Kind, r.ID)
		return answer(object{"key": key}, err)
	case "parse_key":
		if r.Key == nil {
			break
		}
		p, err := emqid.ParseKey(*r.Key)
		parsed := object{"queue": p.Queue, "family": p.Family}
		if p.Param != "" {
			parsed["param"] = p.Param
		}
		return answer(parsed, err)
	case "reserve":
		key, err := emqid.Reserve(r.Name)
		return answer(object{"key": key}, err)
	case "prefix_bytes":
		n, err := emqid.PrefixBytes(r.Queue, r.Type)
		return answer(object{"bytes": n}, err)
	case "queue_prefix":
		key, err := emqid.QueuePrefix(r.Queue)
		return answer(object{"key": key}, err)
	case "job_prefix":
		key, err := emqid.JobPrefix(r.Queue)
		return answer(object{"key": key}, err)
	case "xadd_id":
		if r.ID == nil {
			break
		}
		entry, err := emqid.XaddID(*r.ID)
		return answer(object{"entry": entry}, err)
	case "from_xadd_id":
		id, err := emqid.FromXaddID(r.Entry, r.NS)
		return answer(object{"id": id.String()}, err)
	case "lease_script":
		for _, script := range emqid.LeaseScripts() {
			if script.Name == r.Name {
				return answer(object{"text": script.Text}, nil)
			}
		}
		return object{"unsupported": "no lease script named " + r.Name}
	case "lease_keys":
		return answer(object{"lease_key": emqid.LeaseKey}, nil)
	case "parse_acquire":
		a, err := emqid.ParseAcquire(int64(r.Node), r.Previous)
		return answer(object{"node": a.Node, "previous_mark": previousMark(a.PreviousMark)}, err)
	case "parse_acquire_error":
		if err := emqid.ParseAcquireError(r.Message); err != nil {
			return answer(nil, err)
		}
		return answer(object{"refusal": false}, nil)
	case "parse_renewal":
		return answer(object{}, emqid.ParseRenewal(r.Reply))
	case "lease_start":
		return leaseStart(r)
	case "lease_wait":
		return leaseWait(r)
	case "lease_reply":
		return leaseReply(r)
	case "lease_keeper":
		return leaseKeeper(r)
	}
	return object{"unsupported": "unknown op " + r.Op}
}

// previousMark is a previous mark as the protocol writes it: null for the
// binding's -1 (a node never leased).
func previousMark(mark int64) any {
	if mark < 0 {
		return nil
	}
	return mark
}

// millis is ms as a time.Duration, exactly, when a Duration can hold it.
func millis(ms int64) (time.Duration, bool) {
	const limit = int64(1<<63-1) / int64(time.Millisecond)
	return time.Duration(ms) * time.Millisecond, -limit <= ms && ms <= limit
}

// leaseTerms reads ttl_ms and margin_ms: the terms, or the answer to give instead.
func leaseTerms(r *request) (emqid.LeaseTerms, object) {
	ttl, ok := millis(r.TTLMs)
	margin, ok2 := millis(r.MarginMs)
	if !ok || !ok2 {
		return emqid.LeaseTerms{}, object{"unsupported": "ttl_ms or margin_ms does not fit a time.Duration"}
	}
	terms, err := emqid.NewLeaseTerms(ttl, margin)
	if err != nil {
		return emqid.LeaseTerms{}, answer(nil, err)
	}
	return terms, nil
}

// leaseWait checks the terms, then reads WAIT's reply against the replicas
// wanted, and answers the terms' WAIT timeout in ms.
func leaseWait(r *request) object {
	terms, refused := leaseTerms(r)
	if refused != nil {
		return refused
	}
	if err := emqid.ParseWait(r.Reply, int(r.Replicas)); err != nil {
		return answer(nil, err)
	}
	wait, err := terms.WaitTimeout()
	return answer(object{"wait_ms": wait.Milliseconds()}, err)
}

// leaseStart starts a leased minter on the acquired {node, previous_mark}
// at wall clock now_ms, the acquire sent at monotonic 0, and mints one id at
// (now_ms, monotonic 0).
func leaseStart(r *request) object {
	var nowMs int64
	if err := json.Unmarshal(r.NowMs, &nowMs); err != nil {
		return object{"unsupported": "now_ms is not an int64: " + err.Error()}
	}
	terms, refused := leaseTerms(r)
	if refused != nil {
		return refused
	}
	previous := int64(-1)
	if r.PreviousMark != nil {
		previous = *r.PreviousMark
	}
	m, err := emqid.StartLeasedMinter(emqid.Acquired{Node: r.Node, PreviousMark: previous}, nowMs, 0, terms)
	if err != nil {
		return answer(nil, err)
	}
	defer m.Close()
	s, err := m.NextAt(nowMs, 0)
	if err != nil {
		return answer(nil, err)
	}
	fence, err := m.FenceMs()
	if err != nil {
		return answer(nil, err)
	}
	mark, err := m.NextMark(nowMs)
	return answer(object{"snowflake": strconv.FormatUint(s, 10), "fence_ms": fence, "next_mark": mark}, err)
}

// leaseReply reads an error reply to a lease write: what the write came to,
// and the node a MOVED or ASK names (null for none; its host null when the
// reply names none).
func leaseReply(r *request) object {
	var redirect any
	if to, ok := emqid.ParseRedirect(r.Error); ok {
		var host any
		if to.Host != "" {
			host = to.Host
		}
		redirect = object{"ask": to.Ask, "slot": to.Slot, "host": host, "port": to.Port}
	}
	return answer(object{"outcome": emqid.ReadLeaseError(r.Error, r.Asked).String(), "redirect": redirect}, nil)
}

// monotonic is a step's time as the keeper takes it (negative: 0).
func monotonic(ms int64) uint64 { return uint64(max(ms, 0)) }

// leaseKeeper runs a keeper through the request's steps: the write due at
// "at", a write's outcome settled, or a release begun; answers what the
// keeper said at each (for a release, its phase).
func leaseKeeper(r *request) object {
	terms, refused := leaseTerms(r)
	if refused != nil {
		return refused
	}
	k, err := emqid.NewLeaseKeeper(terms, monotonic(r.Since))
	if err != nil {
		return answer(nil, err)
	}
	defer k.Close()
	steps := make([]object, 0, len(r.Steps))
	for _, step := range r.Steps {
		var said object
		if step.Release {
			if err := k.Release(); err != nil {
				return answer(nil, err)
			}
			said = object{}
		} else if step.Outcome == nil {
			next, err := k.Next(monotonic(step.At))
			if err != nil {
				return answer(nil, err)
			}
			said = object{"next": next.String()}
		} else {
			outcome, err := emqid.ParseOutcome(*step.Outcome)
			if err != nil {
				return object{"unsupported": err.Error()}
			}
			done, err := k.Settle(outcome, monotonic(step.Sent), monotonic(step.At))
			if err != nil {
				return answer(nil, err)
			}
			said = object{"action": done.Action.String(), "after_ms": done.After.Milliseconds()}
			if done.Action == emqid.ActionGiveUp {
				var gate any
				var e *emqid.Error
				if errors.As(emqid.LeaseRefusal(outcome), &e) {
					gate = e.Gate
				}
				said["refusal"] = gate
			}
		}
		phase, err := k.Phase()
		if err != nil {
			return answer(nil, err)
		}
		said["phase"] = phase.String()
		steps = append(steps, said)
	}
	every, err := terms.RenewEvery()
	if err != nil {
		return answer(nil, err)
	}
	retry, err := terms.Retry()
	return answer(object{"renew_every_ms": every.Milliseconds(), "retry_ms": retry.Milliseconds(), "steps": steps}, err)
}
