package holder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// client is what Acquire takes.
type client = redis.UniversalClient

// wire is one lease write on go-redis: the core's script by EVAL, followed
// on the same connection by WAIT replicas timeout (one pipeline on the
// reserve's primary), the two replies read by the core's parsers.
type wire struct {
	rdb      client
	replicas int
	wait     time.Duration
}

// written is what became of one write.
type written struct {
	// refused: the script refused (every node leased) or did not run
	// (NOREPLICAS, as the core's unacknowledged refusal).
	refused error
	reply   *redis.Cmd
	// acknowledged: nil when enough replicas acknowledged the write, else
	// the core's node refusal naming the counts.
	acknowledged error
	// gone: a renewal or release answered 0 (set by the caller).
	gone bool
}

func newWire(rdb client, replicas int, terms emqid.LeaseTerms) (wire, error) {
	wait, err := terms.WaitTimeout()
	if err != nil {
		return wire{}, err
	}
	var read time.Duration
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		read = c.Options().ReadTimeout
	case *redis.Client:
		read = c.Options().ReadTimeout
	default:
		return wire{}, fmt.Errorf("holder: a *redis.Client or *redis.ClusterClient, not %T: "+
			"a lease write and its WAIT must share one connection to the reserve's primary", rdb)
	}
	if replicas > 0 && read > 0 && read <= wait {
		// WAIT's reply would time out as a fault, leaving a node taken and unaccounted for.
		return wire{}, rangeError(fmt.Sprintf("the client's read timeout %v must exceed the terms' WAIT timeout %v", read, wait))
	}
	return wire{rdb: rdb, replicas: replicas, wait: wait}, nil
}

// unacknowledged is this wire without WAIT (a release is not waited on).
func (w wire) unacknowledged() wire {
	w.replicas = 0
	return w
}

// primary is the client of the reserve's primary: the client itself, or the
// cluster's shard for the slot of LeaseKey, the one key every script touches.
func (w wire) primary(ctx context.Context) (*redis.Client, error) {
	switch c := w.rdb.(type) {
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, emqid.LeaseKey)
	case *redis.Client:
		return c, nil
	}
	return nil, fmt.Errorf("holder: %T", w.rdb)
}

// reload lets a cluster client find the reserve's primary again (a failover,
// MOVED, CLUSTERDOWN).
func (w wire) reload(ctx context.Context) {
	if c, ok := w.rdb.(*redis.ClusterClient); ok {
		c.ReloadState(ctx)
	}
}

// write runs script, then WAIT when replicas are wanted, in one round trip on
// one connection. An error is a fault: nothing can be said of the write.
func (w wire) write(ctx context.Context, script emqid.LeaseScript, keys []string, args ...any) (written, error) {
	primary, err := w.primary(ctx)
	if err != nil {
		return written{}, err
	}
	pipe := primary.Pipeline()
	eval := pipe.Eval(ctx, script.Text, keys, args...)
	var wait *redis.Cmd
	if w.replicas > 0 {
		wait = pipe.Do(ctx, "WAIT", w.replicas, w.wait.Milliseconds())
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	var server redis.Error
	if err := eval.Err(); err != nil {
		if !errors.As(err, &server) {
			return written{}, fmt.Errorf("%s: %w", script.Name, err)
		}
		msg := server.Error()
		if strings.HasPrefix(msg, "NOREPLICAS") {
			// min-replicas-to-write refused the script before it ran: no write
			// happened, which is what an unacknowledged one may turn out to be.
			return written{refused: emqid.ParseWait(0, max(w.replicas, 1))}, nil
		}
		if refusal := emqid.ParseAcquireError(msg); refusal != nil {
			return written{refused: refusal}, nil
		}
		return written{}, fmt.Errorf("%s: %w", script.Name, err) // MOVED, CLUSTERDOWN, LOADING...
	}
	out := written{reply: eval}
	if wait != nil {
		n, err := wait.Int64()
		if err != nil {
			return written{}, fmt.Errorf("WAIT: %w", err)
		}
		out.acknowledged = emqid.ParseWait(n, w.replicas)
	}
	return out, nil
}
