package wasmcore

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The module reaches the host's files through a mount. Where paths are
// slash-separated and rooted at "/" (every GOOS but Windows and Plan 9) the
// host's root is mounted at the module's, so a claim directory is the same
// path on both sides, read when the core first asks (EMQ_NODE_DIR may be set
// after the package loaded). Elsewhere the claim directory of the load is
// mounted at guestClaims.
const guestClaims = "/emq-id-claims"

var rootMounted = filepath.Separator == '/'

// mountedClaims is the claim directory mounted at guestClaims when the root
// is not: fixed when the module loads, so the lock and the record of a claim
// are always in the same directory (a later EMQ_NODE_DIR is not followed).
var mountedClaims string

// claimMount is the module's file system.
func claimMount() wazero.FSConfig {
	if rootMounted {
		return wazero.NewFSConfig().WithDirMount("/", "/")
	}
	mountedClaims = defaultClaimDir(os.Getenv("EMQ_NODE_DIR"))
	return wazero.NewFSConfig().WithDirMount(mountedClaims, guestClaims)
}

// defaultClaimDir is the host's directory of node claims as SPEC.md §5.1
// says it: EMQ_NODE_DIR, else /tmp/emq-id on Unix and emq-id in the
// temporary directory elsewhere — the directory native processes of this
// host use, so both kinds of process meet on the same lock files. The module
// computes the same default itself when the root is mounted.
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

// guestDir is EMQ_NODE_DIR as the module must see it. A relative one is
// passed as it is, for the core to refuse as it does natively.
func guestDir(dir string) string {
	if rootMounted || !filepath.IsAbs(dir) {
		return dir
	}
	return guestClaims
}

// hostPath is the host's path of a claim file the module names.
func hostPath(guest string) (string, bool) {
	if rootMounted {
		return guest, path.IsAbs(guest)
	}
	rel, ok := strings.CutPrefix(path.Clean(guest), guestClaims+"/")
	if !ok || rel == "" || strings.Contains(rel, "/") {
		return "", false
	}
	return filepath.Join(mountedClaims, rel), true
}

// held are the claim files this process locked, open for as long as it
// holds them: the operating system releases each lock when the process dies.
var held sync.Map // host path -> *os.File

// Results of claim_lock, as the module reads them.
const (
	locked   = 0
	busy     = 1
	unusable = 2
)

func instantiateHost(ctx context.Context, r wazero.Runtime) error {
	_, err := r.NewHostModuleBuilder("emq_host").
		NewFunctionBuilder().WithFunc(func() uint32 { return uint32(os.Getpid()) }).Export("pid").
		NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, p, n uint32) int32 {
		name, ok := m.Memory().Read(p, n)
		if !ok {
			return unusable
		}
		host, ok := hostPath(string(name))
		if !ok {
			return unusable
		}
		return claimLock(host)
	}).Export("claim_lock").
		NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, p, n uint32) {
		if name, ok := m.Memory().Read(p, n); ok {
			if host, ok := hostPath(string(name)); ok {
				if f, ok := held.LoadAndDelete(host); ok {
					_ = f.(*os.File).Close()
				}
			}
		}
	}).Export("claim_unlock").
		Instantiate(ctx)
	return err
}

// claimLock locks the file the module has just opened (it exists).
func claimLock(host string) int32 {
	f, err := os.OpenFile(host, os.O_RDWR, 0)
	if err != nil {
		return unusable
	}
	switch tryLock(f) {
	case locked:
		if old, ok := held.Swap(host, f); ok {
			_ = old.(*os.File).Close() // a lock the module gave up without unlocking: the file was replaced
		}
		return locked
	case busy:
		_ = f.Close()
		return busy
	default:
		_ = f.Close()
		return unusable
	}
}
