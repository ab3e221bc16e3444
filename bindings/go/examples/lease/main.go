package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/echomq/emq-id/bindings/go/holder"
	"github.com/redis/go-redis/v9"
)

// Command lease takes a node lease with the one-call holder (the module
// bindings/go/holder) over go-redis, and mints on it.
//
// main: acquire a lease on -addr, mint -n ids of namespace -ns on it (one per
// line on stdout), release it, exit 0. The node and the mark it took go to
// stderr. Exit 1 when the lease cannot be taken, minting is refused, or the
// release fails; 2 for bad flags.
func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "a Valkey server, or any node of a cluster (host:port)")
	n := flag.Int("n", 1, "how many ids to mint")
	ns := flag.String("ns", "JOB", "the ids' namespace (three letters A-Z)")
	ttl := flag.Duration("ttl", emqid.DefaultLeaseTerms.TTL, "the lease's TTL (whole ms)")
	margin := flag.Duration("margin", emqid.DefaultLeaseTerms.Margin, "how long before the TTL minting stops (whole ms)")
	replicas := flag.Int("replicas", emqid.LeaseReplicas, "replicas that must acknowledge each lease write (0: a reserve without replicas)")
	flag.Parse()
	if *n < 0 || *replicas < 0 || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	terms, err := emqid.NewLeaseTerms(*ttl, *margin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lease:", err)
		os.Exit(2)
	}
	options := holder.Options{Replicas: *replicas, Terms: terms}
	if *replicas == 0 {
		options.Replicas = holder.NoReplicas
	}
	os.Exit(run(*addr, *n, *ns, options))
}

func run(addr string, n int, ns string, options holder.Options) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb, err := connect(ctx, addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lease:", err)
		return 1
	}
	defer rdb.Close()

	lease, err := holder.Acquire(ctx, rdb, options)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lease:", err)
		return 1
	}
	held, _ := lease.Held()
	fmt.Fprintf(os.Stderr, "lease: node %d (previous mark %d)\n", held.Node, held.PreviousMark)

	out := bufio.NewWriter(os.Stdout)
	status := 0
	for i := 0; i < n; i++ {
		id, err := lease.Mint(ns)
		if err != nil {
			fmt.Fprintf(os.Stderr, "lease: id %d of %d: %v\n", i+1, n, err)
			status = 1
			break
		}
		out.WriteString(id.String())
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "lease:", err)
		status = 1
	}

	released, err := lease.Release(ctx)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "lease:", err)
		return 1
	case !released:
		fmt.Fprintln(os.Stderr, "lease: the lease was lost before its release")
		return 1
	}
	return status
}

// connect is a *redis.Client on a standalone server, or a
// *redis.ClusterClient when addr is a node of a cluster (CLUSTER SLOTS
// answers), which sends each script to the primary of the {emq} slot.
func connect(ctx context.Context, addr string) (redis.UniversalClient, error) {
	single := redis.NewClient(&redis.Options{Addr: addr})
	_, err := single.ClusterSlots(ctx).Result()
	var server redis.Error
	switch {
	case err == nil:
		single.Close()
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}}), nil
	case errors.As(err, &server):
		return single, nil // "cluster support disabled": this server holds every key
	default:
		single.Close()
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
}
