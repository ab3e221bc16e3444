package wasmcore

import (
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/echomq/emq-id/bindings/go/internal/emqcore"
)

// host is what an instance imports (module emq_host, the core's host.rs and
// the C ABI's wasm_host.rs): the clocks, the two node settings of the
// environment, the process id, the claim files (claims.go), and the message
// of a panic about to trap. Every instance has its own, for its memory and
// its panic message; what they answer is the process's.
type host struct {
	mem      *[]byte
	panicked string
}

var _ emqcore.Xemq_host = (*host)(nil)

// Init is called by emqcore.New with the instance, before any call.
func (h *host) Init(m any) { h.mem = m.(*emqcore.Module).Xmemory().Slice() }

// bytes is the module's memory at (p, n), as its i32 arguments give them.
func (h *host) bytes(p, n int32) []byte {
	return (*h.mem)[uint32(p) : uint64(uint32(p))+uint64(uint32(n))]
}

func (h *host) Xnow_ns() int64 { return time.Now().UnixNano() }

// origin is the monotonic clock's zero, one for the process: every instance
// reads the same clock (emq_monotonic_ms), as one native process does.
var origin = time.Now()

func (h *host) Xmonotonic_ns() int64 { return int64(time.Since(origin)) }

func (h *host) Xpid() int32 { return int32(os.Getpid()) }

func (h *host) Xpanic(p, n int32) { h.panicked = string(h.bytes(p, n)) }

// Xenv answers the node settings, read when the core asks (a program may set
// EMQ_NODE after it imported the package), as a native library reads them;
// nothing else of the environment reaches the module. EMQ_NODE_DIR is always
// answered: the core's default is the temporary directory, which only the
// host knows.
func (h *host) Xenv(name, nameLen, buf, capacity int32) int32 {
	var value string
	switch string(h.bytes(name, nameLen)) {
	case "EMQ_NODE":
		set, ok := os.LookupEnv("EMQ_NODE")
		if !ok {
			return -1
		}
		value = set
	case "EMQ_NODE_DIR":
		value = defaultClaimDir(os.Getenv("EMQ_NODE_DIR"))
	default:
		return -1
	}
	if len(value) <= int(capacity) {
		copy(h.bytes(buf, capacity), value)
	}
	return int32(len(value))
}

// defaultClaimDir is the host's directory of node claims as SPEC.md §5.1
// says it: EMQ_NODE_DIR, else /tmp/emq-id on Unix and emq-id in the
// temporary directory elsewhere — the directory native processes of this
// host use, so both kinds of process meet on the same lock files.
func defaultClaimDir(dir string) string {
	switch {
	case dir != "":
		return dir
	case runtime.GOOS == "windows":
		return filepath.Join(os.TempDir(), "emq-id")
	default:
		return "/tmp/emq-id"
	}
}
