// Package wasmcore runs the emq-id core compiled to WebAssembly (emqid.wasm:
// the C ABI crate built for WASI by `cargo xtask go-wasm`) with wazero, so the
// emqid package needs no cgo. It is the transport only: it instantiates the
// module once per process, gives it the host functions of the node claim
// (host.go), and calls its exports by name with the module's own memory for
// inputs and outputs. Every answer is the core's.
package wasmcore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

//go:embed emqid.wasm
var module []byte

// Core is the process's one instance of the module: one mint state, one node
// claim, as a native process has. Calls take turns (an instance runs one call
// at a time): Lock gives a Session, Unlock ends it.
type Core struct {
	mu      sync.Mutex
	ctx     context.Context
	mod     api.Module
	mem     api.Memory
	alloc   api.Function
	free    api.Function
	session Session
}

// Session is the locked Core: inputs written to the module's memory, calls,
// outputs read back. Memory it hands out lives until Unlock.
type Session struct {
	core    *Core
	stack   []uint64
	scratch uint32 // a block of the module's memory reused by every session
	size    uint32
	used    uint32
	extra   [][2]uint32 // blocks beyond scratch for this session: (pointer, length)
	trapped bool
	// view is the module's whole memory as a slice, read once per session and
	// again whenever a call grew the memory (the old view would then be stale).
	view []byte
}

// Func is an export of the module, resolved once.
type Func struct {
	f    api.Function
	name string
	// mask keeps a result's own bits: an i32 result is written over the low
	// half of its stack slot only, the high half is the argument that was there.
	mask uint64
}

var (
	once     sync.Once
	instance *Core
	loadErr  error
)

// Load is the process's Core, instantiated at the first call.
func Load() (*Core, error) {
	once.Do(func() { instance, loadErr = load(context.Background(), runtimeConfig()) })
	return instance, loadErr
}

func load(ctx context.Context, config wazero.RuntimeConfig) (*Core, error) {
	r := wazero.NewRuntimeWithConfig(ctx, config)
	if err := instantiateWASI(ctx, r); err != nil {
		return nil, err
	}
	if err := instantiateHost(ctx, r); err != nil {
		return nil, err
	}
	mod, err := r.InstantiateWithConfig(ctx, module, moduleConfig())
	if err != nil {
		return nil, fmt.Errorf("emqid: instantiating the WebAssembly core: %w", err)
	}
	c := &Core{ctx: ctx, mod: mod, mem: mod.Memory()}
	c.alloc, c.free = mod.ExportedFunction("emq_wasm_alloc"), mod.ExportedFunction("emq_wasm_free")
	if c.alloc == nil || c.free == nil {
		return nil, errors.New("emqid: the WebAssembly core exports no allocator")
	}
	c.session = Session{core: c, stack: make([]uint64, 16)}
	if c.session.scratch, err = c.allocate(initialScratch); err != nil {
		return nil, err
	}
	c.session.size = initialScratch
	return c, nil
}

const initialScratch = 64 << 10

// runtimeConfig compiles the module to machine code, caching the result in
// the user's cache directory (keyed by the module and wazero's version), so
// only a process's first start on a machine pays for the compilation.
func runtimeConfig() wazero.RuntimeConfig {
	config := wazero.NewRuntimeConfig()
	if dir, err := os.UserCacheDir(); err == nil {
		if cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "emq-id", "wazero")); err == nil {
			config = config.WithCompilationCache(cache)
		}
	}
	return config
}

func (c *Core) allocate(n uint32) (uint32, error) {
	res, err := c.alloc.Call(c.ctx, uint64(n))
	if err != nil || uint32(res[0]) == 0 {
		return 0, fmt.Errorf("emqid: the WebAssembly core could not give %d bytes", n)
	}
	return uint32(res[0]), nil
}

// Func resolves an export; a missing one is a build of the module that does
// not match this package, and panics at load.
func (c *Core) Func(name string) Func {
	f := c.mod.ExportedFunction(name)
	if f == nil {
		panic("emqid: the WebAssembly core does not export " + name)
	}
	mask := ^uint64(0)
	if results := f.Definition().ResultTypes(); len(results) == 1 && results[0] == api.ValueTypeI32 {
		mask = math.MaxUint32
	}
	return Func{f: f, name: name, mask: mask}
}

// moduleConfig: real clocks (the minter's wall clock and its monotonic
// fence) and the file system the claims live in (see claimMount). The
// environment is read when the module asks for it (environ.go), not here.
func moduleConfig() wazero.ModuleConfig {
	config := wazero.NewModuleConfig().WithSysWalltime().WithSysNanotime().WithStderr(os.Stderr).
		WithStartFunctions() // a library: no _start
	return config.WithFSConfig(claimMount())
}

// ErrTrap is a call the module aborted (a panic in the core): the instance
// cannot be trusted after it, so every later call fails with it too.
var ErrTrap = errors.New("emqid: the WebAssembly core trapped")

// Lock begins a session.
func (c *Core) Lock() *Session {
	c.mu.Lock()
	s := &c.session
	s.used = 0
	s.refresh()
	return s
}

// refresh re-reads the memory's view when the memory grew.
func (s *Session) refresh() {
	if size := s.core.mem.Size(); uint64(size) != uint64(len(s.view)) {
		s.view, _ = s.core.mem.Read(0, size)
	}
}

// Unlock ends the session: memory it handed out is the next session's.
func (s *Session) Unlock() {
	c := s.core
	if len(s.extra) > 0 && !s.trapped { // a trapped instance is not called again, not even to free
		largest := s.size
		for _, block := range s.extra {
			_, _ = c.free.Call(c.ctx, uint64(block[0]), uint64(block[1]))
			largest = max(largest, block[1])
		}
		s.extra = s.extra[:0]
		// Grow the scratch to fit what this session needed, so the next one does not allocate.
		if p, err := c.allocate(largest * 2); err == nil {
			_, _ = c.free.Call(c.ctx, uint64(s.scratch), uint64(s.size))
			s.scratch, s.size = p, largest*2
		}
	}
	s.extra = s.extra[:0]
	c.mu.Unlock()
}

// Reserve is n bytes of the module's memory for this session (8-aligned).
func (s *Session) Reserve(n int) (uint32, error) {
	if s.trapped {
		return 0, ErrTrap
	}
	size := (uint32(n) + 7) &^ 7
	if uint64(n) > 1<<31 {
		return 0, fmt.Errorf("emqid: %d bytes exceed the WebAssembly core's memory", n)
	}
	if s.used+size <= s.size {
		p := s.scratch + s.used
		s.used += size
		return p, nil
	}
	p, err := s.core.allocate(max(size, 8))
	if err != nil {
		return 0, err
	}
	s.refresh() // the allocation may have grown the memory
	s.extra = append(s.extra, [2]uint32{p, max(size, 8)})
	return p, nil
}

// Put copies b (bytes or a string's bytes) into the module's memory: its pointer.
func Put[T string | []byte](s *Session, b T) (uint32, error) {
	p, err := s.Reserve(len(b))
	if err == nil {
		copy(s.view[p:], b)
	}
	return p, err
}

// Bytes is a view of n bytes of the module's memory at p, valid until the
// next call (nil when they lie outside it).
func (s *Session) Bytes(p uint32, n int) []byte {
	if uint64(p)+uint64(n) > uint64(len(s.view)) {
		return nil
	}
	return s.view[p : int(p)+n : int(p)+n]
}

// Call calls f with args (i32 and i64 as uint64); its first result, or 0.
func (s *Session) Call(f Func, args ...uint64) (uint64, error) {
	if s.trapped {
		return 0, ErrTrap
	}
	n := copy(s.stack, args)
	if err := f.f.CallWithStack(s.core.ctx, s.stack[:max(n, 1)]); err != nil {
		s.trapped = true
		return 0, fmt.Errorf("%w: %s: %v", ErrTrap, f.name, err)
	}
	s.refresh()
	return s.stack[0] & f.mask, nil
}
