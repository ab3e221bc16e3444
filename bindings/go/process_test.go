package emqid_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	emqid "github.com/echomq/emq-id/bindings/go"
)

// TestMain doubles as the minting child of the sibling-process tests: with
// EMQID_TEST_CHILD set, this binary mints that many ids through emqid.Mint,
// one per line, and exits (2 with the error on a refusal).
func TestMain(m *testing.M) {
	if n := os.Getenv("EMQID_TEST_CHILD"); n != "" {
		os.Exit(mintChild(n))
	}
	// Claims of this test run live in a directory of its own: parallel runs
	// and other processes of the host never meet them.
	dir, err := os.MkdirTemp("", "emqid-go-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("EMQ_NODE_DIR", dir)
	os.Setenv("EMQ_NODE", "11")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func mintChild(count string) int {
	n, _ := strconv.Atoi(count)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for i := 0; i < n; i++ {
		id, err := emqid.Mint("JOB")
		if err != nil {
			out.Flush()
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		out.WriteString(id.String() + "\n")
	}
	return 0
}

func TestMintTakesTheProcessNode(t *testing.T) {
	id, err := emqid.Mint("JOB")
	if err != nil || id.Node() != 11 || id.NS() != "JOB" {
		t.Fatalf("Mint: %v %v", id, err)
	}
	node, source, err := emqid.ProcessNode()
	if err != nil || node != 11 || source != emqid.NodeFromEnv {
		t.Fatalf("ProcessNode: %d %v %v", node, source, err)
	}
	if _, err := emqid.Mint("job"); !errors.Is(err, emqid.ErrRange) {
		t.Fatalf("bad namespace: %v", err)
	}
	if err := emqid.SetProcessNode(11); err != nil {
		t.Fatalf("the node it holds: %v", err)
	}
	if err := emqid.SetProcessNode(12); !errors.Is(err, emqid.ErrNode) {
		t.Fatalf("a process keeps its node: %v", err)
	}
	if err := emqid.SetProcessNode(1024); !errors.Is(err, emqid.ErrRange) {
		t.Fatalf("node 1024: %v", err)
	}
}

// Without EMQ_NODE the first Mint draws a node and says so once, through
// log/slog's default logger (stderr, unless the application chose another);
// with EMQ_NODE it says nothing.
func TestADrawnNodeIsSaidOnce(t *testing.T) {
	mint := func(env ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "EMQ_NODE=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, append(env, "EMQID_TEST_CHILD=3", "EMQ_NODE_DIR="+t.TempDir())...)
		stderr := &strings.Builder{}
		cmd.Stderr = stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the minting child: %v %q", err, stderr.String())
		}
		return stderr.String()
	}
	drawn := mint()
	if strings.Count(drawn, "code=EMQ_ID_DRAWN_NODE") != 1 || !strings.Contains(drawn, "WARN emqid: EMQ_NODE is not set") ||
		!strings.Contains(drawn, "ids collide") {
		t.Fatalf("three mints on a drawn node, not one warning: %q", drawn)
	}
	if given := mint("EMQ_NODE=13"); given != "" {
		t.Fatalf("EMQ_NODE=13 warned: %q", given)
	}
}

// child starts this test binary as a minting process of node.
func child(t *testing.T, node string, dir string, count int) (*exec.Cmd, *bufio.Scanner, *strings.Builder) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EMQID_TEST_CHILD="+strconv.Itoa(count), "EMQ_NODE="+node, "EMQ_NODE_DIR="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(stdout), stderr
}

func lines(s *bufio.Scanner) []string {
	var all []string
	for s.Scan() {
		all = append(all, s.Text())
	}
	return all
}

func duplicates(sets ...[]string) int {
	seen, dups := map[string]bool{}, 0
	for _, ids := range sets {
		for _, id := range ids {
			if seen[id] {
				dups++
			}
			seen[id] = true
		}
	}
	return dups
}

// Two live processes asking for one node on one host: the second is refused,
// naming the node and the holder; once the holder is killed (SIGKILL), the
// node can be taken again, and the new holder's ids repeat none of the old.
func TestSiblingProcessesNeverShareANode(t *testing.T) {
	dir := t.TempDir()
	holder, out, _ := child(t, "12", dir, 1<<30)
	if !out.Scan() { // it minted: it holds node 12 (and blocks once the pipe is full)
		t.Fatal("the holder minted nothing")
	}
	first := []string{out.Text()}

	second, secondOut, secondErr := child(t, "12", dir, 20000)
	refused := lines(secondOut)
	err := second.Wait()
	want := fmt.Sprintf("node 12 is held by process %d", holder.Process.Pid)
	if err == nil || len(refused) != 0 || !strings.Contains(secondErr.String(), want) {
		t.Fatalf("the second process was not refused: %v, %d ids, %q", err, len(refused), secondErr.String())
	}

	if err := holder.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	first = append(first, lines(out)...)
	holder.Wait()
	third, thirdOut, thirdErr := child(t, "12", dir, 20000)
	after := lines(thirdOut)
	if err := third.Wait(); err != nil || len(after) != 20000 {
		t.Fatalf("node 12 was not free after its holder died: %v %q", err, thirdErr.String())
	}
	dups := duplicates(first, after)
	fmt.Printf("go sibling processes, node 12: holder minted %d, second refused (%q), after SIGKILL the next minted %d, duplicates %d\n",
		len(first), strings.TrimSpace(secondErr.String()), len(after), dups)
	if dups != 0 {
		t.Fatalf("%d duplicate ids across holders of node 12", dups)
	}
}

// The scenario: two processes started at once with one EMQ_NODE.
// With one claim directory: 0 duplicates (one is refused, or they did not
// overlap). With a claim directory each (the guard blinded): the same count
// finds duplicates, so the count can fail.
func TestSameNodeAtOnceGivesNoDuplicatesUnlessTheGuardIsBlind(t *testing.T) {
	run := func(dirA, dirB string) (int, int, int) {
		a, outA, _ := child(t, "13", dirA, sized(200000))
		b, outB, _ := child(t, "13", dirB, sized(200000))
		idsB := make(chan []string)
		go func() { idsB <- lines(outB) }()
		idsA := lines(outA)
		ids := <-idsB
		refused := 0
		if a.Wait() != nil {
			refused++
		}
		if b.Wait() != nil {
			refused++
		}
		return len(idsA) + len(ids), refused, duplicates(idsA, ids)
	}
	shared := t.TempDir()
	minted, refused, dups := run(shared, shared)
	fmt.Printf("go same EMQ_NODE at once, one claim directory: %d ids, %d refused, %d duplicates\n", minted, refused, dups)
	if dups != 0 {
		t.Fatalf("%d duplicates with the guard on", dups)
	}
	if sized(2) != 2 {
		// Too few ids under the race detector for two children's start-up skew:
		// the control runs at its full count without it.
		return
	}
	minted, refused, dups = run(t.TempDir(), filepath.Join(t.TempDir(), "other"))
	fmt.Printf("go same EMQ_NODE at once, blind guard (negative control): %d ids, %d refused, %d duplicates\n", minted, refused, dups)
	if dups == 0 {
		t.Fatal("the negative control found no duplicates: the count cannot tell")
	}
}

// A claim directory that is not UTF-8 (a byte string Go passes through):
// the native library takes it as the system's bytes; the translated core
// reads paths as UTF-8 text, so there it is refused by name, never trapped on.
// Either way no two processes can share a node through it.
func TestAClaimDirectoryThatIsNotUTF8IsTakenOrRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "claims-\xff")
	cmd, out, stderr := child(t, "14", dir, 2)
	ids := lines(out)
	err := cmd.Wait()
	if emqid.Backend() == "cgo" {
		if err != nil || len(ids) != 2 {
			t.Fatalf("native: minted %v; %v: %s", ids, err, stderr.String())
		}
		return
	}
	if err == nil || len(ids) != 0 || !strings.Contains(stderr.String(), "emqid: node: node 14 could not be taken") {
		t.Fatalf("minted %v; %v: %s", ids, err, stderr.String())
	}
}
