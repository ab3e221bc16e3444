package wasmcore

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// mint mints one id with the process-wide minter, as emq_mint does: its
// text and status, or the trap.
func mint() (id string, status int32, err error) {
	var in *Instance
	defer func() {
		if e := Unlock(in, recover()); e != nil {
			err = e
		}
	}()
	in = Lock()
	ns, out := in.PutString("JOB"), in.Out(14)
	status = in.M.Xemq_mint(ns, out)
	return string(in.Bytes(out, 14)), status, nil
}

// The test binary run again: as a holder (mints once on EMQ_NODE, says so,
// and waits), or to trap the state instance and report what follows.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("EMQ_WASMCORE_HOLD") != "":
		id, status, err := mint()
		if err != nil {
			panic(err)
		}
		os.Stdout.WriteString(id + " " + string(rune('0'+status)) + "\n")
		_, _ = os.Stdin.Read(make([]byte, 1))
		os.Exit(0)
	case os.Getenv("EMQ_WASMCORE_TRAP_STATE") != "":
		os.Stdout.WriteString(trapTheState())
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
	if _, err := io.ReadFull(out, line); err != nil || !strings.HasPrefix(string(line), "JOB") || line[15] != '0' {
		t.Fatalf("the holder printed %q (%v)", line, err)
	}
	if _, status, err := mint(); err != nil || status != 11 { // EMQ_ERR_NODE
		t.Fatalf("a second process on node 613 was not refused: status %d (%v)", status, err)
	}
	record, _ := os.ReadFile(dir + "/node-613.lock")
	if fields := strings.Fields(string(record)); len(fields) == 0 || fields[0] == "0" || fields[0] == "" {
		t.Fatalf("the claim file records no holder: %q", record)
	}
}

// A fault of the translated code (here an input pointer outside the
// module's memory) is recovered as a *Trap; the instance is dropped, and the
// pool's next instance answers.
func TestATrapIsRecoveredAndItsInstanceDropped(t *testing.T) {
	trapped := Get()
	err := func() (err error) {
		defer func() { err = trapped.Done(recover()) }()
		trapped.M.Xemq_parse_i64(0x7ffffff0, 14)
		return nil
	}()
	var trap *Trap
	if !errors.As(err, &trap) || !errors.Is(err, ErrTrap) || !strings.Contains(trap.Message, "out of range") {
		t.Fatalf("not recovered as a trap: %v", err)
	}
	if LastTrap() != trap.Message {
		t.Fatalf("the latest trap is %q", LastTrap())
	}
	for range 4 {
		in := Get()
		if in == trapped {
			t.Fatal("a trapped instance went back to the pool")
		}
		p := in.PutString("USR0KHTOWnGLuC")
		if got := in.M.Xemq_parse_i64(p, 14); got != 274557032793636864 {
			t.Fatalf("the next instance decoded %d", got)
		}
		if err := in.Done(nil); err != nil {
			t.Fatal(err)
		}
	}
}

// The core's panic hook gives the message before the module traps
// (unreachable): the trap carries the core's words, not the translation's.
func TestAPanicOfTheCoreIsNamedByItsMessage(t *testing.T) {
	in := Get()
	err := func() (err error) {
		defer func() { err = in.Done(recover()) }()
		text := "panicked at src/lib.rs:1:1: a panic of the core"
		in.host.Xpanic(in.PutString(text), int32(len(text)))
		panic("unreachable") // what wasm2go makes of the trap that follows
	}()
	if err == nil || err.Error() != "emqid: the core trapped: panicked at src/lib.rs:1:1: a panic of the core" {
		t.Fatalf("the trap: %v", err)
	}
}

// trapTheState traps the state instance, then uses it again: the report.
func trapTheState() string {
	first := func() (err error) {
		var in *Instance
		defer func() { err = Unlock(in, recover()) }()
		in = Lock()
		in.M.Xemq_minter_next_i64(0x7ffffff0, 0)
		return nil
	}()
	_, _, second := mint()
	return first.Error() + "\n" + second.Error()
}

// A trap of the state instance is sticky: its state is unknown, so every
// later use answers the same trap (a sibling process, as the state is the
// process's).
func TestATrapOfTheStateIsSticky(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "EMQ_WASMCORE_TRAP_STATE=1")
	out, err := child.Output()
	lines := strings.Split(string(out), "\n")
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "emqid: the core trapped: ") || lines[0] != lines[1] {
		t.Fatalf("the state's traps: %q (%v)", out, err)
	}
}

// The exports run on the shared pure instance from any goroutine at once
// (Pure) must touch no state of the module: neither its memory nor a global,
// all of which hang off the receiver. Their translated bodies never name it.
func TestPureExportsTouchNoState(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "../emqcore/emqcore.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pure := map[string]bool{"Xbranded_hash32": false, "Xbranded_unix_ms": false, "Xemq_node": false, "Xemq_seq": false}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil {
			continue
		}
		if _, listed := pure[fn.Name.Name]; !listed {
			continue
		}
		pure[fn.Name.Name] = true
		receiver := fn.Recv.List[0].Names[0].Name
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == receiver {
				t.Errorf("%s touches the module (%s)", fn.Name.Name, receiver)
			}
			return true
		})
	}
	for name, found := range pure {
		if !found {
			t.Errorf("%s is not in the translation", name)
		}
	}
}

// An instance a large batch grew is not pooled: its memory would stay grown.
func TestAGrownInstanceLeavesThePool(t *testing.T) {
	grown := Get()
	grown.Reserve(2 * pooledMemory)
	if err := grown.Done(nil); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		in := Get()
		if in == grown {
			t.Fatal("an instance grown past pooledMemory went back to the pool")
		}
		defer in.Done(nil)
	}
}

// Memory the module cannot give fails the call alone: the state's instance
// never ran, so it stays usable (not a sticky trap).
func TestMemoryTheStateCannotGiveIsNotATrap(t *testing.T) {
	err := func() (err error) {
		var in *Instance
		defer func() { err = Unlock(in, recover()) }()
		in = Lock()
		in.Reserve(1 << 31)
		return nil
	}()
	if !errors.Is(err, ErrTrap) || !strings.Contains(err.Error(), "exceed the core's memory") {
		t.Fatalf("the refusal: %v", err)
	}
	t.Setenv("EMQ_NODE_DIR", t.TempDir())
	t.Setenv("EMQ_NODE", "614")
	if id, status, err := mint(); err != nil || status != 0 || id[:3] != "JOB" {
		t.Fatalf("the state after the refusal: %q %d %v", id, status, err)
	}
}
