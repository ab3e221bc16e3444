package holder

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// The holder's state machine against a scripted server on loopback: what it
// does with each answer the protocol allows (a live cluster cannot be made
// to answer WAIT 0 or "gone" on cue). The live behaviour is `cargo xtask
// chaos`'s fleet.

// answer is what the scripted server replies to a command: raw RESP.
type answer func(cmd []string) string

// server answers every connection with a, and logs the lease scripts it was
// sent (by name) and their EVAL commands, in order, and every command as
// "<connection> <COMMAND>[ <script>]".
type server struct {
	addr  string
	conns atomic.Int32
	// asking answers ASKING (nil: +OK).
	asking func() string
	mu     sync.Mutex
	seen   []string
	evals  [][]string
	log    []string
}

func (s *server) commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *server) scripts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *server) sent() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.evals...)
}

func serve(t *testing.T, a answer) *server {
	t.Helper()
	return serveAsking(t, nil, a)
}

// serveAsking is serve, answering ASKING with asking().
func serveAsking(t *testing.T, asking func() string, a answer) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &server{addr: ln.Addr().String(), asking: asking}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.conn(conn, a)
		}
	}()
	return s
}

func (s *server) conn(conn net.Conn, a answer) {
	defer conn.Close()
	id := s.conns.Add(1)
	r := bufio.NewReader(conn)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			return
		}
		name := scriptOf(cmd)
		s.mu.Lock()
		if name != "" {
			s.seen = append(s.seen, name)
			s.evals = append(s.evals, cmd)
		}
		s.log = append(s.log, strings.TrimSpace(fmt.Sprintf("%d %s %s", id, strings.ToUpper(cmd[0]), name)))
		s.mu.Unlock()
		var reply string
		switch strings.ToUpper(cmd[0]) {
		case "HELLO":
			reply = "-ERR unknown command 'HELLO'\r\n" // RESP2, as an older server
		case "EVAL", "WAIT":
			reply = a(cmd)
		case "ASKING":
			reply = "+OK\r\n"
			if s.asking != nil {
				reply = s.asking()
			}
		default:
			reply = "+OK\r\n" // CLIENT SETINFO, PING...
		}
		if _, err := io.WriteString(conn, reply); err != nil {
			return
		}
	}
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, errors.New("not a command")
	}
	cmd := make([]string, n)
	for i := range cmd {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(header, "$")))
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		cmd[i] = string(buf[:size])
	}
	return cmd, nil
}

// scriptOf is the name of the lease script an EVAL runs ("" for any other command).
func scriptOf(cmd []string) string {
	if len(cmd) < 2 || !strings.EqualFold(cmd[0], "EVAL") {
		return ""
	}
	for _, s := range emqid.LeaseScripts() {
		if s.Text == cmd[1] {
			return s.Name
		}
	}
	return "?"
}

func isWait(cmd []string) bool { return strings.EqualFold(cmd[0], "WAIT") }

func dial(t *testing.T, s *server) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// 300 ms leases fenced 50 ms early: renewals every 100 ms, WAIT's timeout 25 ms.
var short = Options{Terms: emqid.LeaseTerms{TTL: 300 * time.Millisecond, Margin: 50 * time.Millisecond}}

// 600 ms leases: a write not run is retried every 30 ms for 600 ms.
var clusterDown = Options{Terms: emqid.LeaseTerms{TTL: 600 * time.Millisecond, Margin: 100 * time.Millisecond}}

// awaitScript waits (3 s at most) until s has been sent the script of this name.
func awaitScript(t *testing.T, s *server, name string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !slices.Contains(s.scripts(), name) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 3 s: %v", name, s.scripts())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// nextWithin is Next, tried every millisecond while refused, for at most wait.
func nextWithin(l *Lease, wait time.Duration) (Minted, error) {
	deadline := time.Now().Add(wait)
	for {
		m, err := l.Next()
		if err == nil || !errors.Is(err, emqid.ErrNode) || time.Now().After(deadline) {
			return m, err
		}
		time.Sleep(time.Millisecond)
	}
}

func TestOptionsDefaults(t *testing.T) {
	cases := []struct {
		opts     Options
		replicas int
		retry    time.Duration
	}{
		{Options{}, emqid.LeaseReplicas, 250 * time.Millisecond},
		{Options{Replicas: NoReplicas}, 0, 250 * time.Millisecond},
		{Options{Replicas: 2}, 2, 250 * time.Millisecond},
		{short, emqid.LeaseReplicas, 15 * time.Millisecond},
		{Options{Terms: emqid.LeaseTerms{TTL: 100 * time.Millisecond, Margin: 10 * time.Millisecond}}, 1, 10 * time.Millisecond},
	}
	for _, c := range cases {
		if got := c.opts.replicas(); got != c.replicas {
			t.Errorf("%+v: replicas %d, want %d", c.opts, got, c.replicas)
		}
		if got := c.opts.Retry(); got != c.retry {
			t.Errorf("%+v: retry %v, want %v", c.opts, got, c.retry)
		}
	}
	if terms, err := (Options{}).terms(); err != nil || terms != emqid.DefaultLeaseTerms {
		t.Errorf("the zero terms: %v %v", terms, err)
	}
}

// Refusals that need no server: nothing is sent (the client's address does not answer).
func TestRefusedBeforeAnythingIsSent(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	slow := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ReadTimeout: 20 * time.Millisecond})
	defer slow.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	ctx := context.Background()
	cases := []struct {
		name string
		rdb  redis.UniversalClient
		opts Options
		gate error
	}{
		{"a margin past the TTL", rdb, Options{Terms: emqid.LeaseTerms{TTL: time.Second, Margin: 2 * time.Second}}, emqid.ErrRange},
		{"a TTL not in whole ms", rdb, Options{Terms: emqid.LeaseTerms{TTL: time.Second + 1, Margin: 100 * time.Millisecond}}, emqid.ErrRange},
		{"replicas below NoReplicas", rdb, Options{Replicas: -2}, emqid.ErrRange},
		{"a read timeout within WAIT's", slow, short, emqid.ErrRange},
		{"a ring", ring, short, nil},
	}
	for _, c := range cases {
		_, err := Acquire(ctx, c.rdb, c.opts)
		switch {
		case err == nil:
			t.Errorf("%s: acquired", c.name)
		case c.gate != nil && !errors.Is(err, c.gate):
			t.Errorf("%s: %v, not %v", c.name, err, c.gate)
		case c.gate == nil && !strings.Contains(err.Error(), "*redis.Ring"):
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestAnUnacknowledgedAcquireMintsNothingAndIsReleased(t *testing.T) {
	s := serve(t, func(cmd []string) string {
		switch {
		case scriptOf(cmd) == "acquire":
			return "*2\r\n:7\r\n:-1\r\n"
		case isWait(cmd):
			return ":0\r\n"
		default:
			return ":1\r\n"
		}
	})
	l, err := Acquire(context.Background(), dial(t, s), short)
	if l != nil || !errors.Is(err, emqid.ErrNode) || !strings.Contains(err.Error(), "acknowledged by 0 of 1") {
		t.Fatalf("an unacknowledged acquire: %v, %v", l, err)
	}
	if got := strings.Join(s.scripts(), ","); got != "acquire,release" {
		t.Fatalf("scripts sent: %s", got)
	}
}

// Every script is sent as emq-lease/3 has it: KEYS is the one lease key;
// renew and release name the node in their last argument.
func TestScriptsAreSentWithTheLeaseKeyAndTheNode(t *testing.T) {
	s := serve(t, func(cmd []string) string {
		if scriptOf(cmd) == "acquire" {
			return "*2\r\n:7\r\n:-1\r\n"
		}
		return ":1\r\n" // renew, release and WAIT: done, acknowledged
	})
	l, err := Acquire(context.Background(), dial(t, s), short)
	if err != nil {
		t.Fatal(err)
	}
	awaitScript(t, s, "renew")
	if ok, err := l.Release(context.Background()); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
	evals := s.sent()
	token := evals[0][4]
	ttl := strconv.FormatInt(short.Terms.TTL.Milliseconds(), 10)
	for _, cmd := range evals {
		name := scriptOf(cmd)
		// EVAL text numkeys key... arg...
		if len(cmd) < 4 || cmd[2] != "1" || cmd[3] != emqid.LeaseKey {
			t.Fatalf("%s: keys %q, not [%q]", name, cmd[2:min(len(cmd), 4)], emqid.LeaseKey)
		}
		args := cmd[4:]
		var want []string
		switch name {
		case "acquire":
			want = []string{token, ttl, args[2], strconv.Itoa(emqid.LeaseNodes), args[4]}
		case "renew":
			want = []string{token, ttl, args[2], "7"}
		case "release":
			want = []string{token, args[1], "7"}
		default:
			t.Fatalf("an EVAL of no lease script: %q", cmd)
		}
		if !slices.Equal(args, want) {
			t.Errorf("%s: ARGV %q, want %q", name, args, want)
		}
	}
	if got := s.scripts(); got[0] != "acquire" || got[len(got)-1] != "release" || len(evals) != len(got) {
		t.Errorf("scripts sent: %v", got)
	}
}

// A write the server did not run is tried again for a TTL, then the first
// acquire is refused with the node gate naming the server's reply: never an
// I/O error. Nothing was taken, so nothing is released.
func TestAWriteNotRunIsRetriedForATTLThenRefusedByName(t *testing.T) {
	for _, reply := range []string{"CLUSTERDOWN The cluster is down", "NOREPLICAS Not enough good replicas to write.",
		"TRYAGAIN Multiple keys request during rehashing of slot"} {
		s := serve(t, func(cmd []string) string {
			if isWait(cmd) {
				return ":0\r\n"
			}
			return "-" + reply + "\r\n"
		})
		started := time.Now()
		_, err := Acquire(context.Background(), dial(t, s), clusterDown)
		took := time.Since(started)
		if !errors.Is(err, emqid.ErrNode) || !strings.HasSuffix(err.Error(), ": "+reply) {
			t.Fatalf("%s: %v", reply, err)
		}
		if took < clusterDown.Terms.TTL || took > 5*clusterDown.Terms.TTL {
			t.Errorf("%s: refused after %v, not a TTL (%v)", reply, took, clusterDown.Terms.TTL)
		}
		scripts := s.scripts()
		if len(scripts) < 5 || slices.ContainsFunc(scripts, func(name string) bool { return name != "acquire" }) {
			t.Errorf("%s: scripts sent: %v (retried every 30 ms; nothing taken, no release)", reply, scripts)
		}
	}
}

// An ASK is followed at once to the node it names (here by port alone: the
// host is the one the ASK came from), with ASKING, the script and its WAIT on
// one connection; the lease taken there is published, and its renewals go
// to the reserve's primary again.
func TestAnAskIsFollowedWithAskingOnOneConnection(t *testing.T) {
	importing := serve(t, func(cmd []string) string {
		if scriptOf(cmd) == "acquire" {
			return "*2\r\n:7\r\n:-1\r\n"
		}
		return ":1\r\n"
	})
	_, port, _ := net.SplitHostPort(importing.addr)
	slot := emqid.SlotString(emqid.LeaseKey)
	primary := serve(t, func(cmd []string) string {
		if scriptOf(cmd) == "acquire" {
			return fmt.Sprintf("-ASK %d :%s\r\n", slot, port)
		}
		return ":1\r\n" // renew, release and WAIT: done, acknowledged
	})
	l, err := Acquire(context.Background(), dial(t, primary), short)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := l.Held(); !ok || h.Node != 7 {
		t.Fatalf("held %+v %v", h, ok)
	}
	want := []string{"ASKING", "EVAL acquire", "WAIT"}
	var got []string
	conn := ""
	for _, line := range importing.commands() {
		id, command, _ := strings.Cut(line, " ")
		if command == "ASKING" {
			conn = id
		}
		if id == conn {
			got = append(got, command)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the importing node's connection saw %q, want %q (all: %q)", got, want, importing.commands())
	}
	awaitScript(t, primary, "renew")
	if ok, err := l.Release(context.Background()); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
}

// A node that redirects a followed write again is not followed twice: the
// first acquire gives up with the reply, not an I/O error.
func TestASecondAskIsAFault(t *testing.T) {
	var ask string
	s := serve(t, func(cmd []string) string {
		if isWait(cmd) {
			return ":1\r\n"
		}
		return "-" + ask + "\r\n"
	})
	_, port, _ := net.SplitHostPort(s.addr)
	ask = fmt.Sprintf("ASK %d 127.0.0.1:%s", emqid.SlotString(emqid.LeaseKey), port)
	_, err := Acquire(context.Background(), dial(t, s), short)
	if err == nil || errors.Is(err, emqid.ErrNode) || !strings.HasSuffix(err.Error(), ": "+ask) {
		t.Fatalf("an ASK answered with an ASK: %v", err)
	}
	if got := strings.Join(s.scripts(), ","); got != "acquire,acquire" {
		t.Fatalf("scripts sent: %s", got)
	}
}

// The node an ASK names refuses ASKING (and the script) with LOADING for
// 150 ms: the write did not run there (the core's reading of the refusal
// after ASKING), and is tried again until it does; not a fault.
func TestAnAskTargetStillLoadingIsTriedAgain(t *testing.T) {
	up := time.Now().Add(150 * time.Millisecond)
	const loading = "-LOADING Valkey is loading the dataset in memory\r\n"
	target := serveAsking(t, func() string {
		if time.Now().Before(up) {
			return loading
		}
		return "+OK\r\n"
	}, func(cmd []string) string {
		switch {
		case time.Now().Before(up):
			return loading
		case scriptOf(cmd) == "acquire":
			return "*2\r\n:7\r\n:-1\r\n"
		}
		return ":1\r\n"
	})
	_, port, _ := net.SplitHostPort(target.addr)
	primary := serve(t, func(cmd []string) string {
		if scriptOf(cmd) == "acquire" {
			return fmt.Sprintf("-ASK %d 127.0.0.1:%s\r\n", emqid.SlotString(emqid.LeaseKey), port)
		}
		return ":1\r\n"
	})
	l, err := Acquire(context.Background(), dial(t, primary), short)
	if err != nil {
		t.Fatalf("an ASK target loading: %v", err)
	}
	if h, ok := l.Held(); !ok || h.Node != 7 {
		t.Fatalf("held %+v %v", h, ok)
	}
	if n := count(primary, "acquire"); n < 2 {
		t.Fatalf("the acquire was not tried again: %d sent", n)
	}
	if ok, err := l.Release(context.Background()); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
}

// A refusal of ASKING read as not run is given up on, as any, once the
// reserve has not run the first acquire for a TTL: by name, with the reply.
func TestAnAskTargetLoadingForATTLIsRefusedByName(t *testing.T) {
	const loading = "LOADING Valkey is loading the dataset in memory"
	target := serveAsking(t, func() string { return "-" + loading + "\r\n" },
		func([]string) string { return "-" + loading + "\r\n" })
	_, port, _ := net.SplitHostPort(target.addr)
	primary := serve(t, func(cmd []string) string {
		if isWait(cmd) {
			return ":1\r\n"
		}
		return fmt.Sprintf("-ASK %d 127.0.0.1:%s\r\n", emqid.SlotString(emqid.LeaseKey), port)
	})
	_, err := Acquire(context.Background(), dial(t, primary), clusterDown)
	if !errors.Is(err, emqid.ErrNode) || !strings.HasSuffix(err.Error(), ": "+loading) {
		t.Fatalf("an ASK target loading for a TTL: %v", err)
	}
}

// Release's ctx bounds it though the client waits for a reply without end
// (ReadTimeout -1): a renewal the server never answers is cut when ctx ends.
func TestReleaseEndsWithItsContext(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	var renewals atomic.Int32
	s := serve(t, func(cmd []string) string {
		switch {
		case scriptOf(cmd) == "acquire":
			return "*2\r\n:7\r\n:-1\r\n"
		case scriptOf(cmd) == "renew" && renewals.Add(1) > 1:
			<-hang // the second renewal is never answered
		}
		return ":1\r\n"
	})
	for _, read := range []time.Duration{-1, -2} {
		rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, ReadTimeout: read})
		t.Cleanup(func() { rdb.Close() })
		renewals.Store(0)
		l, err := Acquire(context.Background(), rdb, short)
		if err != nil {
			t.Fatal(err)
		}
		for renewals.Load() < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		started := time.Now()
		ok, err := l.Release(ctx)
		cancel()
		if took := time.Since(started); ok || !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
			t.Fatalf("read timeout %v: release: %v %v after %v", read, ok, err, took)
		}
		if _, err := l.Next(); !errors.Is(err, emqid.ErrNode) {
			t.Fatalf("minting after the release: %v", err)
		}
	}
}

func TestAcquireEndsWithItsContext(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	s := serve(t, func(cmd []string) string {
		if scriptOf(cmd) == "acquire" {
			<-hang // never answered
		}
		return ":1\r\n"
	})
	for _, read := range []time.Duration{-1, -2} {
		rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, ReadTimeout: read})
		t.Cleanup(func() { rdb.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		started := time.Now()
		_, err := Acquire(ctx, rdb, short)
		cancel()
		if took := time.Since(started); !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
			t.Fatalf("read timeout %v: acquire: %v after %v", read, err, took)
		}
	}
}

func TestEveryNodeLeased(t *testing.T) {
	s := serve(t, func(cmd []string) string {
		if isWait(cmd) {
			return ":1\r\n"
		}
		return "-EMQLEASE every node is leased\r\n"
	})
	_, err := Acquire(context.Background(), dial(t, s), short)
	// The core's refusal as it is: the reply is added only to a refusal of a write not run for a TTL.
	if want := emqid.LeaseRefusal(emqid.OutcomeLeased); !errors.Is(err, emqid.ErrNode) || err.Error() != want.Error() {
		t.Fatalf("every node leased: %v, want %v", err, want)
	}
}

// A lease write whose reply timed out may have run: it is not sent again,
// though the caller's client retries (go-redis re-runs a pipeline after a
// read timeout): the core settles it as a fault, and the first acquire
// gives up with the client's error.
func TestAWriteThatMayHaveRunIsNotSentAgain(t *testing.T) {
	s := serve(t, func(cmd []string) string {
		if scriptOf(cmd) == "acquire" {
			time.Sleep(300 * time.Millisecond) // past the client's read timeout
			return "*2\r\n:7\r\n:-1\r\n"
		}
		return ":1\r\n"
	})
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, ReadTimeout: 100 * time.Millisecond}) // retries: go-redis's 3
	defer rdb.Close()
	_, err := Acquire(context.Background(), rdb, Options{Replicas: NoReplicas, Terms: short.Terms})
	if err == nil || errors.Is(err, emqid.ErrNode) || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("an acquire whose reply timed out: %v", err)
	}
	time.Sleep(700 * time.Millisecond) // long enough for go-redis's retries, had they been on
	if got := strings.Join(s.scripts(), ","); got != "acquire" {
		t.Fatalf("scripts sent: %s", got)
	}
}

// heldOn is a lease taken on node 7 through a client of s, whose renewals
// and WAITs s answers 1, and release answers release(n) (n: 1 for the first
// release sent).
func heldOn(t *testing.T, release func(n int32) string) (*server, *Lease) {
	t.Helper()
	var releases atomic.Int32
	s := serve(t, func(cmd []string) string {
		switch scriptOf(cmd) {
		case "acquire":
			return "*2\r\n:7\r\n:-1\r\n"
		case "release":
			return release(releases.Add(1))
		}
		return ":1\r\n"
	})
	l, err := Acquire(context.Background(), dial(t, s), short)
	if err != nil {
		t.Fatal(err)
	}
	return s, l
}

// count is how many times s was sent the script of this name.
func count(s *server, name string) int {
	n := 0
	for _, sent := range s.scripts() {
		if sent == name {
			n++
		}
	}
	return n
}

// The release is the core keeper's: an ASK followed (ASKING and the release,
// no WAIT, on one connection), a MOVED sent again to the node it names, a
// refusal not run sent again after the retry delay, tried three times at
// most (each try followed through one ASK at most), then given up with the
// server's reply.
func TestAReleaseIsSettledByTheKeeper(t *testing.T) {
	ctx := context.Background()
	slot := emqid.SlotString(emqid.LeaseKey)
	other := serve(t, func(cmd []string) string { return ":1\r\n" })
	_, port, _ := net.SplitHostPort(other.addr)

	t.Run("ask", func(t *testing.T) {
		s, l := heldOn(t, func(int32) string { return fmt.Sprintf("-ASK %d :%s\r\n", slot, port) })
		before := len(other.commands())
		if ok, err := l.Release(ctx); !ok || err != nil {
			t.Fatalf("release: %v %v", ok, err)
		}
		var got []string // the commands from ASKING on, on its connection
		conn := ""
		for _, line := range other.commands()[before:] {
			id, command, _ := strings.Cut(line, " ")
			if command == "ASKING" {
				conn = id
			}
			if id == conn {
				got = append(got, command)
			}
		}
		if want := []string{"ASKING", "EVAL release"}; !slices.Equal(got, want) {
			t.Fatalf("the node asked saw %q, want %q", got, want)
		}
		if n := count(s, "release"); n != 1 {
			t.Fatalf("releases sent to the primary: %d", n)
		}
	})
	t.Run("moved", func(t *testing.T) {
		s, l := heldOn(t, func(int32) string { return fmt.Sprintf("-MOVED %d 127.0.0.1:%s\r\n", slot, port) })
		before := count(other, "release")
		if ok, err := l.Release(ctx); !ok || err != nil {
			t.Fatalf("release: %v %v", ok, err)
		}
		if n, m := count(s, "release"), count(other, "release")-before; n != 1 || m != 1 {
			t.Fatalf("releases sent: %d to the old primary, %d to the node MOVED named", n, m)
		}
	})
	t.Run("not run, then run", func(t *testing.T) {
		s, l := heldOn(t, func(n int32) string {
			if n < 3 {
				return "-TRYAGAIN Multiple keys request during rehashing of slot\r\n"
			}
			return ":1\r\n"
		})
		if ok, err := l.Release(ctx); !ok || err != nil {
			t.Fatalf("release: %v %v", ok, err)
		}
		if n := count(s, "release"); n != 3 {
			t.Fatalf("releases sent: %d", n)
		}
	})
	t.Run("never run", func(t *testing.T) {
		s, l := heldOn(t, func(int32) string { return "-CLUSTERDOWN The cluster is down\r\n" })
		started := time.Now()
		ok, err := l.Release(ctx)
		if ok || err == nil || err.Error() != "holder: release: CLUSTERDOWN The cluster is down" {
			t.Fatalf("release: %v %v", ok, err)
		}
		if took := time.Since(started); took < 2*15*time.Millisecond {
			t.Errorf("given up after %v: not two retry delays", took)
		}
		if n := count(s, "release"); n != 3 {
			t.Fatalf("releases sent: %d", n)
		}
		if again, err2 := l.Release(ctx); again || err2 != err {
			t.Fatalf("a second release: %v %v", again, err2)
		}
	})
	t.Run("gone", func(t *testing.T) {
		_, l := heldOn(t, func(int32) string { return ":0\r\n" })
		if ok, err := l.Release(ctx); ok || err != nil {
			t.Fatalf("a release of a lease gone: %v %v", ok, err)
		}
	})
	t.Run("a fault", func(t *testing.T) {
		_, l := heldOn(t, func(int32) string { return "-ERR Error running script\r\n" })
		if ok, err := l.Release(ctx); ok || err == nil || !strings.HasSuffix(err.Error(), ": ERR Error running script") {
			t.Fatalf("release: %v %v", ok, err)
		}
	})
}

func TestUnacknowledgedRenewalsLeaveTheFenceWhereItWas(t *testing.T) {
	var acked atomic.Bool
	acked.Store(true)
	s := serve(t, func(cmd []string) string {
		switch {
		case scriptOf(cmd) == "acquire":
			return "*2\r\n:7\r\n:-1\r\n"
		case isWait(cmd) && !acked.Load():
			return ":0\r\n"
		default:
			return ":1\r\n" // renewals answered: the lease is still ours on the primary
		}
	})
	l, err := Acquire(context.Background(), dial(t, s), short)
	if err != nil {
		t.Fatal(err)
	}
	acked.Store(false)
	start := time.Now()
	// Renewals are answered every 100 ms but never acknowledged: minting stops
	// at the acquire's fence (250 ms after it) and stays stopped.
	var refused time.Duration
	for {
		if _, err := l.Next(); err != nil {
			if !errors.Is(err, emqid.ErrNode) {
				t.Fatal(err)
			}
			refused = time.Since(start)
			break
		}
		if time.Since(start) > 400*time.Millisecond {
			t.Fatal("minting past the acquire's fence")
		}
		time.Sleep(time.Millisecond)
	}
	if refused < 150*time.Millisecond {
		t.Fatalf("fenced after %v, before the fence", refused)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := l.Next(); err == nil {
		t.Fatal("an unacknowledged renewal reopened the fence")
	}
	// Acknowledged again: the same lease mints again (it never expired).
	acked.Store(true)
	m, err := nextWithin(l, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := l.Held(); m.Lease != 1 || h.Node != 7 {
		t.Fatalf("minted on lease %d, node %d", m.Lease, h.Node)
	}
	if id, err := l.Mint("JOB"); err != nil || id.Node() != 7 || id.NS() != "JOB" {
		t.Fatalf("minted %v, %v", id, err)
	}
	if _, err := l.Mint("job"); err == nil {
		t.Fatal("a namespace the contract refuses was minted")
	}
	if st := l.Stats(); st.LongestUnleased < 100*time.Millisecond || st.Taken != 1 || st.Lost != 0 {
		t.Fatalf("stats %+v", st)
	}
	if ok, err := l.Release(context.Background()); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
}

func TestALostLeaseIsTakenAgainAfterEveryIdMintedOnIt(t *testing.T) {
	var acquires atomic.Int32
	var lost atomic.Bool
	s := serve(t, func(cmd []string) string {
		switch scriptOf(cmd) {
		case "acquire":
			// The first lease is node 900; the next node 3, whose ids sort below
			// node 900's in any one millisecond.
			if acquires.Add(1) == 1 {
				return "*2\r\n:900\r\n:-1\r\n"
			}
			return "*2\r\n:3\r\n:-1\r\n"
		case "renew":
			if lost.Load() {
				return ":0\r\n"
			}
		}
		return ":1\r\n" // renew, release and WAIT: done, acknowledged
	})
	l, err := Acquire(context.Background(), dial(t, s), short)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for i := 0; i < 1000; i++ {
		m, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.Snowflake)
	}
	lost.Store(true)
	// Minting goes on on the first lease until a renewal finds it gone.
	deadline := time.Now().Add(3 * time.Second)
	var next Minted
	for {
		if time.Now().After(deadline) {
			t.Fatalf("no second lease within 3 s: %v", s.scripts())
		}
		m, err := nextWithin(l, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if m.Lease == 2 {
			next = m
			break
		}
		ids = append(ids, m.Snowflake)
	}
	if h, _ := l.Held(); h.Node != 3 || h.Ordinal != 2 {
		t.Fatalf("held %+v", h)
	}
	if next.Snowflake <= ids[len(ids)-1] {
		t.Fatal("the new lease's first id sorts before the old lease's last")
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("id %d out of order", i)
		}
	}
	if st := l.Stats(); st.Taken != 2 || st.Lost != 1 {
		t.Fatalf("stats %+v", st)
	}
	if ok, err := l.Release(context.Background()); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
	if _, err := l.Next(); !errors.Is(err, emqid.ErrNode) {
		t.Fatalf("minting after the release: %v", err)
	}
	if _, err := l.Mint("JOB"); !errors.Is(err, emqid.ErrNode) {
		t.Fatalf("minting after the release: %v", err)
	}
}
