package emqid_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// The lease keeper's decisions through the public API: a write's error reply
// read, the node a redirect names, the terms' schedule, and a keeper through
// the first acquire, renewals, expiry, giving up and releasing. The vector file's
// lease_replies and lease_keepers check the same against the contract.

func TestTheEnumerationsAreTheCoresNames(t *testing.T) {
	outcomes := []emqid.Outcome{emqid.OutcomeCounted, emqid.OutcomeUnacknowledged, emqid.OutcomeGone,
		emqid.OutcomeLeased, emqid.OutcomeAsk, emqid.OutcomeMoved, emqid.OutcomeNotRun, emqid.OutcomeFault}
	var names []string
	for i, o := range outcomes {
		if int(o) != i {
			t.Errorf("%v is %d, not %d: the core's order", o, o, i)
		}
		names = append(names, o.String())
		if parsed, err := emqid.ParseOutcome(o.String()); err != nil || parsed != o {
			t.Errorf("ParseOutcome(%q): %v %v", o, parsed, err)
		}
	}
	if got := strings.Join(names, ","); got != "counted,unacknowledged,gone,leased,ask,moved,not_run,fault" {
		t.Errorf("outcomes %s", got)
	}
	if _, err := emqid.ParseOutcome("lost"); !errors.Is(err, emqid.ErrRange) {
		t.Errorf("an outcome no one has: %v", err)
	}
	if s := emqid.Outcome(8).String(); s != "Outcome(8)" {
		t.Errorf("a value that is no outcome: %q", s)
	}
	if a, b := emqid.ActionGiveUp.String(), emqid.ActionPublish.String(); a != "give_up" || b != "publish" {
		t.Errorf("actions %q %q", a, b)
	}
	if a, b := emqid.PhasePending.String(), emqid.NextExpired.String(); a != "pending" || b != "expired" {
		t.Errorf("phase %q, write %q", a, b)
	}
	// The kinds release added, last in the core's order.
	added := []struct {
		value, want    int32
		name, wantName string
	}{
		{int32(emqid.NextRelease), 3, emqid.NextRelease.String(), "release"},
		{int32(emqid.ActionReleased), 10, emqid.ActionReleased.String(), "released"},
		{int32(emqid.PhaseReleasing), 4, emqid.PhaseReleasing.String(), "releasing"},
	}
	for _, a := range added {
		if a.value != a.want || a.name != a.wantName {
			t.Errorf("%q is %d, want %q at %d", a.name, a.value, a.wantName, a.want)
		}
	}
	if a, n, p := emqid.Action(11).String(), emqid.NextWrite(4).String(), emqid.Phase(5).String(); a != "Action(11)" ||
		n != "NextWrite(4)" || p != "Phase(5)" {
		t.Errorf("values past the core's: %q %q %q", a, n, p)
	}
}

func TestLeaseErrorRepliesAreReadByTheCore(t *testing.T) {
	cases := []struct {
		reply string
		asked bool
		want  emqid.Outcome
	}{
		{"ERR EMQLEASE every node is leased", false, emqid.OutcomeLeased},
		{"EMQLEASE every node is leased", true, emqid.OutcomeLeased},
		{"ASK 9051 10.0.0.2:7001", false, emqid.OutcomeAsk},
		{"ASK 9051 10.0.0.2:7001", true, emqid.OutcomeFault}, // not followed twice
		{"ASK 16384 10.0.0.2:7001", false, emqid.OutcomeFault},
		{"MOVED 9051 10.0.0.2:7001", true, emqid.OutcomeMoved},
		{"READONLY You can't write against a read only replica.", false, emqid.OutcomeMoved},
		{"TRYAGAIN Multiple keys request during rehashing of slot", false, emqid.OutcomeNotRun},
		{"CLUSTERDOWN The cluster is down", false, emqid.OutcomeNotRun},
		{"CLUSTERDOWN Hash slot not served", false, emqid.OutcomeNotRun},
		{"NOREPLICAS Not enough good replicas to write.", false, emqid.OutcomeNotRun},
		{"LOADING Valkey is loading the dataset in memory", false, emqid.OutcomeNotRun},
		{"OOM command not allowed when used memory > 'maxmemory'.", false, emqid.OutcomeNotRun},
		{"MISCONF Errors writing to the AOF file: No space left on device", false, emqid.OutcomeNotRun},
		{"ERR Error running script", false, emqid.OutcomeFault},
		{"", false, emqid.OutcomeFault},
		{"\xff\xfe", false, emqid.OutcomeFault},
	}
	for _, c := range cases {
		if got := emqid.ReadLeaseError(c.reply, c.asked); got != c.want {
			t.Errorf("ReadLeaseError(%q, %v) = %v, want %v", c.reply, c.asked, got, c.want)
		}
	}
	writes := map[[2]bool]emqid.Outcome{
		{true, true}: emqid.OutcomeCounted, {true, false}: emqid.OutcomeUnacknowledged,
		{false, true}: emqid.OutcomeGone, {false, false}: emqid.OutcomeGone,
	}
	for in, want := range writes {
		if got := emqid.OutcomeOfWrite(in[0], in[1]); got != want {
			t.Errorf("OutcomeOfWrite(%v, %v) = %v, want %v", in[0], in[1], got, want)
		}
	}
}

func TestRedirectsNameTheirNode(t *testing.T) {
	cases := []struct {
		reply string
		want  emqid.Redirect
	}{
		{"ASK 9051 10.0.0.2:7001", emqid.Redirect{Ask: true, Slot: 9051, Host: "10.0.0.2", Port: 7001}},
		{"MOVED 12 [2001:db8::1]:6379", emqid.Redirect{Slot: 12, Host: "2001:db8::1", Port: 6379}},
		{"MOVED 9051 2001:db8::1:7001", emqid.Redirect{Slot: 9051, Host: "2001:db8::1", Port: 7001}},
		// No host: the one the redirected connection was opened to.
		{"ASK 9051 :7001", emqid.Redirect{Ask: true, Slot: 9051, Port: 7001}},
		{"MOVED 9051 ?:7001", emqid.Redirect{Slot: 9051, Port: 7001}},
	}
	for _, c := range cases {
		if got, ok := emqid.ParseRedirect(c.reply); !ok || got != c.want {
			t.Errorf("ParseRedirect(%q) = %+v %v, want %+v", c.reply, got, ok, c.want)
		}
	}
	for _, reply := range []string{"MOVED 16384 10.0.0.2:7001", "MOVED 9051 10.0.0.2:70011", "ASK 9051",
		"CLUSTERDOWN The cluster is down", ""} {
		if got, ok := emqid.ParseRedirect(reply); ok {
			t.Errorf("ParseRedirect(%q) = %+v", reply, got)
		}
	}
}

func TestLeaseTermsSchedule(t *testing.T) {
	cases := []struct {
		terms        emqid.LeaseTerms
		every, retry time.Duration
	}{
		{emqid.DefaultLeaseTerms, 10 * time.Second, 250 * time.Millisecond},
		{emqid.LeaseTerms{TTL: 2 * time.Second, Margin: 333 * time.Millisecond}, 666 * time.Millisecond, 100 * time.Millisecond},
		{emqid.LeaseTerms{TTL: 600 * time.Millisecond, Margin: 100 * time.Millisecond}, 200 * time.Millisecond, 30 * time.Millisecond},
		{emqid.LeaseTerms{TTL: 3 * time.Millisecond, Margin: time.Millisecond}, time.Millisecond, 10 * time.Millisecond},
	}
	for _, c := range cases {
		every, err := c.terms.RenewEvery()
		if err != nil || every != c.every {
			t.Errorf("%+v: renew every %v %v, want %v", c.terms, every, err, c.every)
		}
		retry, err := c.terms.Retry()
		if err != nil || retry != c.retry {
			t.Errorf("%+v: retry %v %v, want %v", c.terms, retry, err, c.retry)
		}
	}
	for _, bad := range []emqid.LeaseTerms{{TTL: time.Second, Margin: time.Second}, {}, {TTL: time.Second + 1, Margin: 0}} {
		if _, err := bad.RenewEvery(); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("%+v: renew every: %v", bad, err)
		}
		if _, err := bad.Retry(); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("%+v: retry: %v", bad, err)
		}
		if _, err := emqid.NewLeaseKeeper(bad, 0); !errors.Is(err, emqid.ErrRange) {
			t.Errorf("%+v: a keeper: %v", bad, err)
		}
	}
}

// keeper is a LeaseKeeper whose calls fail the test on an error.
type keeper struct {
	t *testing.T
	k *emqid.LeaseKeeper
}

func newKeeper(t *testing.T, terms emqid.LeaseTerms, since uint64) keeper {
	t.Helper()
	k, err := emqid.NewLeaseKeeper(terms, since)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	return keeper{t, k}
}

func (k keeper) next(now uint64, want emqid.NextWrite, phase emqid.Phase) {
	k.t.Helper()
	next, err := k.k.Next(now)
	if err != nil || next != want {
		k.t.Fatalf("next at %d: %v %v, want %v", now, next, err, want)
	}
	k.phase(phase)
}

func (k keeper) settle(outcome emqid.Outcome, sent, now uint64, want emqid.Step, phase emqid.Phase) {
	k.t.Helper()
	step, err := k.k.Settle(outcome, sent, now)
	if err != nil || step != want {
		k.t.Fatalf("%v sent at %d, read at %d: %+v %v, want %+v", outcome, sent, now, step, err, want)
	}
	k.phase(phase)
}

func (k keeper) phase(want emqid.Phase) {
	k.t.Helper()
	if got, err := k.k.Phase(); err != nil || got != want {
		k.t.Fatalf("phase %v %v, want %v", got, err, want)
	}
}

func TestAKeeperTakesRenewsAndLosesALease(t *testing.T) {
	ms := time.Millisecond
	k := newKeeper(t, emqid.LeaseTerms{TTL: 3 * time.Second, Margin: 500 * ms}, 0)
	if k.k.Terms().TTL != 3*time.Second {
		t.Fatalf("terms %+v", k.k.Terms())
	}
	k.phase(emqid.PhaseStarting)
	k.next(0, emqid.NextAcquire, emqid.PhaseStarting)
	// The cluster is not up yet: the acquire is tried again within the TTL.
	k.settle(emqid.OutcomeNotRun, 0, 0, emqid.Step{Action: emqid.ActionRetry, After: 150 * ms}, emqid.PhaseStarting)
	k.settle(emqid.OutcomeCounted, 150, 160, emqid.Step{Action: emqid.ActionPublish, After: time.Second}, emqid.PhaseHeld)
	k.next(1160, emqid.NextRenew, emqid.PhaseHeld)
	k.settle(emqid.OutcomeCounted, 1160, 1170, emqid.Step{Action: emqid.ActionRenewed, After: time.Second}, emqid.PhaseHeld)
	k.settle(emqid.OutcomeUnacknowledged, 2170, 2180, emqid.Step{Action: emqid.ActionWait, After: 150 * ms}, emqid.PhaseHeld)
	// An ASK is followed at once; the followed write counts.
	k.settle(emqid.OutcomeAsk, 2330, 2331, emqid.Step{Action: emqid.ActionFollow}, emqid.PhaseHeld)
	k.settle(emqid.OutcomeCounted, 2330, 2335, emqid.Step{Action: emqid.ActionRenewed, After: time.Second}, emqid.PhaseHeld)
	k.settle(emqid.OutcomeMoved, 3335, 3336, emqid.Step{Action: emqid.ActionReroute, After: 150 * ms}, emqid.PhaseHeld)
	k.settle(emqid.OutcomeFault, 3486, 3490, emqid.Step{Action: emqid.ActionReconnect, After: 150 * ms}, emqid.PhaseHeld)
	// No write answered for a whole TTL since the last one sent at 2330: expired.
	k.next(5329, emqid.NextRenew, emqid.PhaseHeld)
	k.next(5330, emqid.NextExpired, emqid.PhaseUnleased)
	k.settle(emqid.OutcomeLeased, 5330, 5331, emqid.Step{Action: emqid.ActionRetry, After: 150 * ms}, emqid.PhaseUnleased)
	k.settle(emqid.OutcomeUnacknowledged, 5481, 5490, emqid.Step{Action: emqid.ActionPend, After: 150 * ms}, emqid.PhasePending)
	k.next(5640, emqid.NextRenew, emqid.PhasePending)
	k.settle(emqid.OutcomeGone, 5640, 5641, emqid.Step{Action: emqid.ActionLose}, emqid.PhaseUnleased)
	k.next(5641, emqid.NextAcquire, emqid.PhaseUnleased)

	// A value that is no outcome: the range gate, and the keeper as it was.
	if _, err := k.k.Settle(emqid.Outcome(8), 0, 0); !errors.Is(err, emqid.ErrRange) {
		t.Fatalf("a value that is no outcome: %v", err)
	}
	k.phase(emqid.PhaseUnleased)
	k.k.Close()
	k.k.Close() // twice: nothing
	if _, err := k.k.Next(0); err == nil {
		t.Fatal("a closed keeper answered")
	}
}

// The first acquire against a cluster that stays down: retried for a TTL,
// then refused with the node gate, whose words the holder follows with the
// server's reply.
func TestTheFirstAcquireGivesUpAfterATTLByName(t *testing.T) {
	k := newKeeper(t, emqid.LeaseTerms{TTL: 600 * time.Millisecond, Margin: 100 * time.Millisecond}, 1000)
	retry := emqid.Step{Action: emqid.ActionRetry, After: 30 * time.Millisecond}
	k.settle(emqid.OutcomeNotRun, 1000, 1001, retry, emqid.PhaseStarting)
	k.settle(emqid.OutcomeMoved, 1300, 1301, emqid.Step{Action: emqid.ActionReroute, After: 30 * time.Millisecond}, emqid.PhaseStarting)
	k.settle(emqid.OutcomeNotRun, 1599, 1599, retry, emqid.PhaseStarting)
	k.settle(emqid.OutcomeNotRun, 1599, 1600, emqid.Step{Action: emqid.ActionGiveUp}, emqid.PhaseUnleased)
	err := emqid.LeaseRefusal(emqid.OutcomeNotRun)
	var e *emqid.Error
	if !errors.Is(err, emqid.ErrNode) || !errors.As(err, &e) || !strings.Contains(e.Detail, "whole TTL") {
		t.Fatalf("the refusal: %v", err)
	}
	if err := emqid.LeaseRefusal(emqid.OutcomeLeased); !errors.Is(err, emqid.ErrNode) || !strings.Contains(err.Error(), "every node") {
		t.Errorf("every node leased: %v", err)
	}
	for _, o := range []emqid.Outcome{emqid.OutcomeFault, emqid.OutcomeUnacknowledged, emqid.OutcomeAsk} {
		if err := emqid.LeaseRefusal(o); err != nil {
			t.Errorf("%v: %v, not another's refusal", o, err)
		}
	}
	if err := emqid.LeaseRefusal(emqid.Outcome(-1)); !errors.Is(err, emqid.ErrRange) {
		t.Errorf("a value that is no outcome: %v", err)
	}

	// Unacknowledged, every node leased, a fault: given up at once.
	for _, o := range []emqid.Outcome{emqid.OutcomeUnacknowledged, emqid.OutcomeLeased, emqid.OutcomeFault} {
		k := newKeeper(t, emqid.DefaultLeaseTerms, 0)
		k.settle(o, 0, 1, emqid.Step{Action: emqid.ActionGiveUp}, emqid.PhaseUnleased)
	}
}

// A release through the keeper: followed through an ASK, sent again after
// MOVED (at once) or a refusal not run (after the retry delay), tried three
// times at most (each try followed through one ASK at most); a release that
// ran (counted or gone) is released, anything else gives up.
func TestAKeeperReleasesALease(t *testing.T) {
	ms := time.Millisecond
	k := newKeeper(t, emqid.LeaseTerms{TTL: 3 * time.Second, Margin: 500 * ms}, 0)
	k.settle(emqid.OutcomeCounted, 0, 1, emqid.Step{Action: emqid.ActionPublish, After: time.Second}, emqid.PhaseHeld)
	release := func() {
		t.Helper()
		if err := k.k.Release(); err != nil {
			t.Fatal(err)
		}
		k.phase(emqid.PhaseReleasing)
	}
	release()
	k.next(10, emqid.NextRelease, emqid.PhaseReleasing)
	k.settle(emqid.OutcomeAsk, 10, 11, emqid.Step{Action: emqid.ActionFollow}, emqid.PhaseReleasing)
	k.settle(emqid.OutcomeCounted, 10, 12, emqid.Step{Action: emqid.ActionReleased}, emqid.PhaseUnleased)

	release()
	k.settle(emqid.OutcomeMoved, 20, 21, emqid.Step{Action: emqid.ActionReroute}, emqid.PhaseReleasing)
	k.settle(emqid.OutcomeNotRun, 21, 22, emqid.Step{Action: emqid.ActionRetry, After: 150 * ms}, emqid.PhaseReleasing)
	k.settle(emqid.OutcomeNotRun, 172, 173, emqid.Step{Action: emqid.ActionGiveUp}, emqid.PhaseUnleased)

	release()
	k.settle(emqid.OutcomeGone, 30, 31, emqid.Step{Action: emqid.ActionReleased}, emqid.PhaseUnleased)
	for _, o := range []emqid.Outcome{emqid.OutcomeFault, emqid.OutcomeLeased} {
		release()
		k.settle(o, 40, 41, emqid.Step{Action: emqid.ActionGiveUp}, emqid.PhaseUnleased)
	}
	k.k.Close()
	if err := k.k.Release(); err == nil {
		t.Fatal("a closed keeper released")
	}
}
