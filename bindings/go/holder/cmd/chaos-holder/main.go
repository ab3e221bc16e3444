// Command chaos-holder is the Go holder of `cargo xtask chaos`: it holds a
// lease with holder.Acquire over go-redis and mints two ids a millisecond
// into a file until its stdin closes, then releases and prints its stats.
//
//	chaos-holder --seeds HOST:PORT[,HOST:PORT...] --replicas N --ttl MS --margin MS --out FILE
//
// Each record is 24 bytes, little-endian: the snowflake (u64), the unix ms it
// was minted at (u64), the ordinal of the lease that minted it (u32), and 4
// zero bytes. On stdin's EOF it prints {"taken": N, "lost": N,
// "longest_unleased_ms": N} and exits 0.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/echomq/emq-id/bindings/go/holder"
	"github.com/redis/go-redis/v9"
)

// record is one minted id in the file.
const record = 24

// perTick is ids minted per millisecond tick.
const perTick = 2

func main() {
	seeds := flag.String("seeds", "", "HOST:PORT[,HOST:PORT...]: any nodes of one cluster, or one server")
	replicas := flag.Int("replicas", emqid.LeaseReplicas, "replicas that must acknowledge each lease write")
	ttl := flag.Int64("ttl", emqid.DefaultLeaseTerms.TTL.Milliseconds(), "the lease's TTL in ms")
	margin := flag.Int64("margin", emqid.DefaultLeaseTerms.Margin.Milliseconds(), "the fence margin in ms")
	out := flag.String("out", "", "the file of records")
	flag.Parse()
	if *seeds == "" || *out == "" || *replicas < 0 || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	terms, err := emqid.NewLeaseTerms(time.Duration(*ttl)*time.Millisecond, time.Duration(*margin)*time.Millisecond)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos-holder:", err)
		os.Exit(2)
	}
	// Faults are the fleet's schedule: go-redis's log of every failed dial is noise here.
	redis.SetLogger(quiet{})
	opts := holder.Options{Replicas: *replicas, Terms: terms}
	if *replicas == 0 {
		opts.Replicas = holder.NoReplicas
	}
	if err := run(strings.Split(*seeds, ","), opts, *out); err != nil {
		fmt.Fprintln(os.Stderr, "chaos-holder:", err)
		os.Exit(1)
	}
}

func run(seeds []string, opts holder.Options, path string) error {
	var closed atomic.Bool
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		closed.Store(true)
	}()
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer file.Close()
	w := bufio.NewWriter(file)
	ctx := context.Background()

	// Joining the fleet: no seed may answer yet, no node may be free, no
	// replica may acknowledge; a holder keeps asking.
	var rdb redis.UniversalClient
	var lease *holder.Lease
	for lease == nil {
		if closed.Load() {
			return errors.New("no lease before the end")
		}
		if rdb == nil {
			rdb = connect(ctx, seeds)
		}
		if rdb != nil {
			if lease, err = holder.Acquire(ctx, rdb, opts); err != nil {
				lease = nil
			}
		}
		if lease == nil {
			time.Sleep(opts.Retry())
		}
	}
	defer rdb.Close()

	var rec [record]byte
	flushed := time.Now()
	for !closed.Load() {
		for i := 0; i < perTick; i++ {
			m, err := lease.Next()
			if err != nil {
				break // refused (no lease, fenced, at the mark): skipped
			}
			binary.LittleEndian.PutUint64(rec[0:8], m.Snowflake)
			binary.LittleEndian.PutUint64(rec[8:16], uint64(time.Now().UnixMilli()))
			binary.LittleEndian.PutUint32(rec[16:20], m.Lease)
			if _, err := w.Write(rec[:]); err != nil {
				return err
			}
		}
		if time.Since(flushed) >= 20*time.Millisecond {
			if err := w.Flush(); err != nil {
				return err
			}
			flushed = time.Now()
		}
		time.Sleep(time.Millisecond)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	stats := lease.Stats()
	if _, err := lease.Release(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "chaos-holder: release:", err)
	}
	line, err := json.Marshal(map[string]any{
		"taken":               stats.Taken,
		"lost":                stats.Lost,
		"longest_unleased_ms": stats.LongestUnleased.Milliseconds(),
	})
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}

// quiet is a go-redis logger that logs nothing.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// connect is a client of the seeds: a *redis.ClusterClient when the first
// seed that answers reports cluster_enabled:1, else a *redis.Client of it;
// nil when none answers. A node that does not answer within a second is
// treated as down: the holder looks elsewhere.
func connect(ctx context.Context, seeds []string) redis.UniversalClient {
	opts := redis.UniversalOptions{
		DialTimeout:  300 * time.Millisecond,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
		MaxRetries:   -1,
	}
	for _, seed := range seeds {
		seed = strings.TrimSpace(seed)
		if seed == "" {
			continue
		}
		probe := opts
		probe.Addrs = []string{seed}
		one := redis.NewUniversalClient(&probe)
		info, err := one.Info(ctx, "cluster").Result()
		if err != nil {
			one.Close()
			continue
		}
		if !strings.Contains(info, "cluster_enabled:1") {
			return one
		}
		one.Close()
		cluster := opts
		cluster.Addrs = seeds
		cluster.IsClusterMode = true
		return redis.NewUniversalClient(&cluster)
	}
	return nil
}
