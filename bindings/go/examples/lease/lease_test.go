package main

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// These run against a live Valkey server or cluster node named by
// EMQ_LEASE_ADDR (host:port), and are skipped without one.
func server(t *testing.T) client {
	addr := os.Getenv("EMQ_LEASE_ADDR")
	if addr == "" {
		t.Skip("EMQ_LEASE_ADDR is not set: no Valkey to lease from")
	}
	rdb, err := connect(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

var short = emqid.LeaseTerms{TTL: 300 * time.Millisecond, Margin: 100 * time.Millisecond}

// Renewals keep the lease: minting goes on for several TTLs.
func TestRenewalsKeepMinting(t *testing.T) {
	rdb, ctx := server(t), context.Background()
	l, err := Acquire(ctx, rdb, short)
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	for end := time.Now().Add(4 * short.TTL); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		id, err := l.Mint("JOB")
		if err != nil {
			t.Fatalf("after %v: %v", time.Until(end), err)
		}
		if id.Snowflake() <= last || id.Node() != l.Node() {
			t.Fatalf("%v after %d", id, last)
		}
		last = id.Snowflake()
	}
	if ok, err := l.Release(ctx); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
	if ok, err := l.Release(ctx); !ok || err != nil {
		t.Fatalf("a second release: %v %v", ok, err)
	}
}

// The next owner of a node starts after the previous owner's last id.
func TestTheNextOwnerStartsAfterTheLastId(t *testing.T) {
	rdb, ctx := server(t), context.Background()
	a, err := Acquire(ctx, rdb, short)
	if err != nil {
		t.Fatal(err)
	}
	var last emqid.ID
	for i := 0; i < 10000; i++ { // a burst: ids borrow milliseconds ahead of the clock
		if last, err = a.Mint("JOB"); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := a.Release(ctx); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
	b, err := acquireFrom(ctx, rdb, short, a.Node())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(ctx)
	if b.Node() != a.Node() || b.PreviousMark != int64(last.UnixMs()) {
		t.Fatalf("node %d mark %d, want node %d mark %d", b.Node(), b.PreviousMark, a.Node(), last.UnixMs())
	}
	first, err := b.Mint("JOB")
	if err != nil || first.Snowflake() <= last.Snowflake() {
		t.Fatalf("first %v after %v: %v", first, last, err)
	}
}

// A lease deleted under its owner is lost at the next renewal: minting
// stops with ErrNode, and the release says so.
func TestALostLeaseStopsMinting(t *testing.T) {
	rdb, ctx := server(t), context.Background()
	l, err := Acquire(ctx, rdb, short)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := emqid.LeaseKey(l.Node())
	if err := rdb.(redis.Cmdable).Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(short.TTL / 2)
	if _, err := l.Mint("JOB"); !errors.Is(err, emqid.ErrNode) {
		t.Fatalf("minting on a lost lease: %v", err)
	}
	if ok, err := l.Release(ctx); ok || err != nil {
		t.Fatalf("release of a lost lease: %v %v", ok, err)
	}
}

// With every node leased, the next acquire is ErrNode, not a client error.
// (Leases others hold on the server count: it takes the nodes left.)
func TestEveryNodeLeased(t *testing.T) {
	rdb, ctx := server(t), context.Background()
	long := emqid.LeaseTerms{TTL: time.Minute, Margin: time.Second}
	var held []*Lease
	defer func() {
		for _, l := range held {
			l.Release(ctx)
		}
	}()
	for {
		l, err := Acquire(ctx, rdb, long)
		if errors.Is(err, emqid.ErrNode) {
			break
		}
		if err != nil || len(held) == emqid.LeaseNodes {
			t.Fatalf("lease %d: %v", len(held)+1, err)
		}
		held = append(held, l)
	}
	t.Logf("%d nodes leased before the refusal", len(held))
}
