package holder

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// client is what Acquire takes.
type client = redis.UniversalClient

// wire is one lease write on go-redis: the core's script by EVAL, followed
// on the same connection by WAIT replicas timeout (one pipeline on one
// node: the reserve's primary, or the node an ASK names, with ASKING in
// front). It moves bytes; the core reads what they came to.
type wire struct {
	rdb      client
	replicas int
	wait     time.Duration
}

// sent is what one write got back.
type sent struct {
	// via is the client of the node the write went to.
	via *redis.Client
	// reply is the script's reply, when it answered without an error.
	reply *redis.Cmd
	// refused is the server's error reply to the script (the core reads its
	// text), when it answered one.
	refused redis.Error
	// acknowledged is nil when WAIT counted enough replicas (or none was
	// wanted), else ParseWait's refusal naming the counts.
	acknowledged error
	// fault is the holder's own failure (a connection, a failed ASKING, a
	// WAIT that did not answer a count): nothing is known of the write.
	fault error
}

// text is the server's error reply ("" for none).
func (s sent) text() string {
	if s.refused == nil {
		return ""
	}
	return s.refused.Error()
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

// reload lets a cluster client find the reserve's primary again (MOVED, a
// failover, a fault); a client of one server has nothing to find.
func (w wire) reload(ctx context.Context) {
	if c, ok := w.rdb.(*redis.ClusterClient); ok {
		c.ReloadState(ctx)
	}
}

// write sends script (KEYS: LeaseKey) with args to the reserve's primary.
func (w wire) write(ctx context.Context, script emqid.LeaseScript, args ...any) sent {
	primary, err := w.primary(ctx)
	if err != nil {
		return sent{fault: fmt.Errorf("the reserve's primary: %w", err)}
	}
	return w.send(ctx, primary, false, script, args)
}

// follow sends the same write to the node the ASK that s got names, with
// ASKING in front. Not the client's own redirect following: ASKING, the
// script and its WAIT must share one connection to that node, so it goes
// through a client of that node alone, made with the options of the client
// that got the ASK (its host, when the reply names none).
func (w wire) follow(ctx context.Context, s sent, to emqid.Redirect, script emqid.LeaseScript, args ...any) sent {
	opt := *s.via.Options()
	host := to.Host
	if host == "" {
		h, _, err := net.SplitHostPort(opt.Addr)
		if err != nil {
			return sent{fault: fmt.Errorf("the host of %s, named by %q: %w", opt.Addr, s.text(), err)}
		}
		host = h
	}
	opt.Addr = net.JoinHostPort(host, strconv.Itoa(to.Port))
	opt.PoolSize, opt.MinIdleConns, opt.MaxIdleConns = 1, 0, 0
	opt.PushNotificationProcessor = nil // the client's own: each client registers its handlers on it
	node := redis.NewClient(&opt)
	defer node.Close()
	return w.send(ctx, node, true, script, args)
}

// send runs [ASKING,] script, then WAIT when replicas are wanted, in one
// round trip on one connection of c.
func (w wire) send(ctx context.Context, c *redis.Client, asking bool, script emqid.LeaseScript, args []any) sent {
	pipe := c.Pipeline()
	var ask *redis.Cmd
	if asking {
		ask = pipe.Do(ctx, "ASKING")
	}
	eval := pipe.Eval(ctx, script.Text, []string{emqid.LeaseKey}, args...)
	var wait *redis.Cmd
	if w.replicas > 0 {
		wait = pipe.Do(ctx, "WAIT", w.replicas, w.wait.Milliseconds())
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	out := sent{via: c}
	if ask != nil && ask.Err() != nil {
		out.fault = fmt.Errorf("ASKING %s: %w", c.Options().Addr, ask.Err())
		return out
	}
	if err := eval.Err(); err != nil {
		if !errors.As(err, &out.refused) {
			out.fault = fmt.Errorf("%s: %w", script.Name, err)
		}
		return out
	}
	out.reply = eval
	if wait != nil {
		n, err := wait.Int64()
		if err != nil {
			out.fault = fmt.Errorf("WAIT: %w", err)
			return out
		}
		out.acknowledged = emqid.ParseWait(n, w.replicas)
	}
	return out
}
