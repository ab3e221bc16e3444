package wasmcore

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// mint mints one id with the process-wide minter, as emq_mint does: its
// text, or the status.
func mint(t *testing.T, c *Core) (string, int32) {
	t.Helper()
	s := c.Lock()
	defer s.Unlock()
	ns, err := Put(s, "JOB")
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Reserve(14)
	if err != nil {
		t.Fatal(err)
	}
	status, err := s.Call(c.Func("emq_mint"), uint64(ns), uint64(out))
	if err != nil {
		t.Fatal(err)
	}
	return string(s.Bytes(out, 14)), int32(status)
}

// The test binary run again as a holder: mints once on EMQ_NODE, says so, and waits.
func TestMain(m *testing.M) {
	if os.Getenv("EMQ_WASMCORE_HOLD") != "" {
		c, err := Load()
		if err != nil {
			panic(err)
		}
		var t testing.T
		id, status := mint(&t, c)
		os.Stdout.WriteString(id + " " + string(rune('0'+status)) + "\n")
		_, _ = os.Stdin.Read(make([]byte, 1))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTheModuleMintsAndHoldsItsNodeAgainstAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("EMQ_NODE_DIR", dir)
	t.Setenv("EMQ_NODE", "613")
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), "EMQ_WASMCORE_HOLD=1")
	stdin, _ := holder.StdinPipe()
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	line := make([]byte, 17)
	if _, err := out.Read(line); err != nil || !strings.HasPrefix(string(line), "JOB") || line[15] != '0' {
		t.Fatalf("the holder printed %q (%v)", line, err)
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, status := mint(t, c); status != 11 { // EMQ_ERR_NODE
		t.Fatalf("a second process on node 613 was not refused: status %d", status)
	}
	record, _ := os.ReadFile(dir + "/node-613.lock")
	if !strings.HasPrefix(string(record), strings.Fields(string(record))[0]) || strings.Fields(string(record))[0] == "0" {
		t.Fatalf("the claim file records no holder: %q", record)
	}
}
