package holder

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
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
//
// Each write goes over a client of that node alone (see node): one
// connection, which never sends a write again by itself. The caller's client
// only finds the node (and lends its options): its pipelines are re-run
// after a read timeout when its retries are on, and a lease write that may
// have run must not be sent twice (an acquire sent again takes a second node).
//
// Its writes are the keeper's goroutine's; only cut is called from another
// (Release's, when its ctx ends): it closes the connections open, which ends
// a write waiting for its reply however the client's read timeout is set.
type wire struct {
	rdb      client
	replicas int
	wait     time.Duration
	// conn is the connection to the reserve's primary, kept until a write
	// is rerouted, faults or is given up; nil until the next write opens it.
	conn *redis.Client
	// movedTo is the node a MOVED named, where the next connection goes
	// ("" for the node the client's routing finds).
	movedTo string

	mu sync.Mutex
	// open is the connections open now (conn, and the one to a node an ASK
	// named while the followed write is in flight).
	open map[*redis.Client]struct{}
	// ended is why the wire was cut (nil: it was not): nothing is sent after.
	ended error
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

func newWire(rdb client, replicas int, terms emqid.LeaseTerms) (*wire, error) {
	wait, err := terms.WaitTimeout()
	if err != nil {
		return nil, err
	}
	var read time.Duration
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		read = c.Options().ReadTimeout
	case *redis.Client:
		read = c.Options().ReadTimeout
	default:
		return nil, fmt.Errorf("holder: a *redis.Client or *redis.ClusterClient, not %T: "+
			"a lease write and its WAIT must share one connection to the reserve's primary", rdb)
	}
	if replicas > 0 && read > 0 && read <= wait {
		// WAIT's reply would time out as a fault, leaving a node taken and unaccounted for.
		return nil, rangeError(fmt.Sprintf("the client's read timeout %v must exceed the terms' WAIT timeout %v", read, wait))
	}
	return &wire{rdb: rdb, replicas: replicas, wait: wait, open: map[*redis.Client]struct{}{}}, nil
}

// cut closes every connection open, so that a write waiting for its reply
// ends now (a fault: why is cause), and refuses every write after.
func (w *wire) cut(cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended == nil {
		w.ended = cause
	}
	for c := range w.open {
		_ = c.Close()
	}
}

// cutBy is why the wire was cut, or nil.
func (w *wire) cutBy() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ended
}

// opened counts c among the connections open, unless the wire was cut: c is
// then closed, and the error says why.
func (w *wire) opened(c *redis.Client) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended != nil {
		_ = c.Close()
		return w.ended
	}
	w.open[c] = struct{}{}
	return nil
}

// closed closes c and no longer counts it open.
func (w *wire) closed(c *redis.Client) {
	w.mu.Lock()
	delete(w.open, c)
	w.mu.Unlock()
	_ = c.Close()
}

// node is a client of the node at addr alone, made with from's options (a
// client's, whose hooks it does not take): one connection, and no retries,
// so a write whose reply timed out is not sent again (the core settles it as
// a fault) and a refusal reaches the core as the server gave it.
func node(from *redis.Options, addr string) *redis.Client {
	opt := *from
	opt.Addr = addr
	opt.MaxRetries = -1
	opt.PoolSize, opt.MinIdleConns, opt.MaxIdleConns = 1, 0, 0
	opt.PushNotificationProcessor = nil // the client's own: each client registers its handlers on it
	return redis.NewClient(&opt)
}

// primary is the connection to the reserve's primary: the one kept, or a
// new one to the node a MOVED named, else to the one the client finds (the
// client itself, or the cluster's shard for the slot of LeaseKey, the one
// key every script touches).
func (w *wire) primary(ctx context.Context) (*redis.Client, error) {
	if w.conn != nil {
		return w.conn, nil
	}
	var found *redis.Client
	switch c := w.rdb.(type) {
	case *redis.ClusterClient:
		p, err := c.MasterForKey(ctx, emqid.LeaseKey)
		if err != nil {
			return nil, err
		}
		found = p
	case *redis.Client:
		found = c
	default:
		return nil, fmt.Errorf("holder: %T", w.rdb)
	}
	addr := found.Options().Addr
	if w.movedTo != "" {
		addr, w.movedTo = w.movedTo, ""
	}
	conn := node(found.Options(), addr)
	if err := w.opened(conn); err != nil {
		return nil, err
	}
	w.conn = conn
	return conn, nil
}

// close drops the connection: the next write opens another.
func (w *wire) close() {
	if w.conn != nil {
		w.closed(w.conn)
		w.conn = nil
	}
}

// reload drops the connection and lets a cluster client find the reserve's
// primary again (a failover, a fault); a client of one server has nothing
// to find.
func (w *wire) reload(ctx context.Context) {
	w.close()
	if c, ok := w.rdb.(*redis.ClusterClient); ok {
		c.ReloadState(ctx)
	}
}

// moved is reload after the write s got MOVED (or READONLY): the next
// connection goes to the node a MOVED names, at once, while the client
// refreshes its slot map.
func (w *wire) moved(ctx context.Context, s sent) {
	w.reload(ctx)
	if to, ok := emqid.ParseRedirect(s.text()); ok && !to.Ask && s.via != nil {
		if addr, err := address(to, s.via); err == nil {
			w.movedTo = addr
		}
	}
}

// address is the node a redirect that the write through via got names: its
// host, or via's when the reply names none.
func address(to emqid.Redirect, via *redis.Client) (string, error) {
	host := to.Host
	if host == "" {
		h, _, err := net.SplitHostPort(via.Options().Addr)
		if err != nil {
			return "", fmt.Errorf("the host of %s: %w", via.Options().Addr, err)
		}
		host = h
	}
	return net.JoinHostPort(host, strconv.Itoa(to.Port)), nil
}

// write sends script (KEYS: LeaseKey) with args to the reserve's primary.
func (w *wire) write(ctx context.Context, script emqid.LeaseScript, args ...any) sent {
	if err := w.cutBy(); err != nil {
		return sent{fault: err}
	}
	primary, err := w.primary(ctx)
	if err != nil {
		return sent{fault: fmt.Errorf("the reserve's primary: %w", err)}
	}
	return w.send(ctx, primary, false, script, args)
}

// follow sends the same write to the node the ASK that s got names, with
// ASKING in front. Not the client's own redirect following: ASKING, the
// script and its WAIT must share one connection to that node, so it goes
// through a client of that node alone (node), closed after it.
func (w *wire) follow(ctx context.Context, s sent, to emqid.Redirect, script emqid.LeaseScript, args ...any) sent {
	addr, err := address(to, s.via)
	if err != nil {
		return sent{fault: fmt.Errorf("%w, named by %q", err, s.text())}
	}
	there := node(s.via.Options(), addr)
	if err := w.opened(there); err != nil {
		return sent{fault: err}
	}
	defer w.closed(there)
	return w.send(ctx, there, true, script, args)
}

// send runs [ASKING,] script, then WAIT when replicas are wanted (never for
// a release: losing one in a failover leaves the mark higher, which is
// safe), in one round trip on one connection of c. A write that faults
// once the wire was cut faults with why it was cut.
func (w *wire) send(ctx context.Context, c *redis.Client, asking bool, script emqid.LeaseScript, args []any) sent {
	out := w.pipeline(ctx, c, asking, script, args)
	if out.fault != nil {
		if ended := w.cutBy(); ended != nil {
			out.fault = ended
		}
	}
	return out
}

// pipeline is send's round trip.
func (w *wire) pipeline(ctx context.Context, c *redis.Client, asking bool, script emqid.LeaseScript, args []any) sent {
	replicas := w.replicas
	if script.Name == emqid.LeaseRelease.Name {
		replicas = 0
	}
	pipe := c.Pipeline()
	var ask *redis.Cmd
	if asking {
		ask = pipe.Do(ctx, "ASKING")
	}
	eval := pipe.Eval(ctx, script.Text, []string{emqid.LeaseKey}, args...)
	var wait *redis.Cmd
	if replicas > 0 {
		wait = pipe.Do(ctx, "WAIT", replicas, w.wait.Milliseconds())
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	out := sent{via: c}
	if ask != nil && ask.Err() != nil && eval.Err() != nil {
		// ASKING refused, and the script did not run either: the refusal is
		// ASKING's. The core reads it as any refusal after ASKING; one it
		// reads as not run (LOADING, the node not ready yet) is that.
		var refused redis.Error
		if errors.As(ask.Err(), &refused) && emqid.ReadLeaseError(refused.Error(), true) == emqid.OutcomeNotRun {
			out.refused = refused
		} else {
			out.fault = fmt.Errorf("ASKING %s: %w", c.Options().Addr, ask.Err())
		}
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
		out.acknowledged = emqid.ParseWait(n, replicas)
	}
	return out
}
