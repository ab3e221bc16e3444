// Package wasmcore runs the emq-id core translated to Go: the C ABI crate
// built for WebAssembly (feature go-wasm) and translated to Go source by
// wasm2go (internal/emqcore, written by `cargo xtask go-wasm`), so the emqid
// package needs no cgo, no runtime and no lock around stateless calls. It is
// the transport only: instances of the module, the host functions they
// import (host.go, claims.go), and their memory for inputs and outputs.
// Every answer is the core's.
//
// Stateless calls (the codec, slots, the keyspace, stream ids, the lease
// protocol's parsing) take a pooled instance (Get), so goroutines never wait
// for each other. State lives in one instance (State): the process-wide
// minter with its node claim (one per process, SPEC.md §5.1), and the
// minters, leased minters and keepers whose handles point into its memory.
package wasmcore

import (
	"errors"
	"fmt"
	"sync"

	"github.com/echomq/emq-id/bindings/go/internal/emqcore"
)

// Instance is one instance of the module with a block of its memory reused
// for inputs and outputs. One goroutine uses it at a time.
type Instance struct {
	M       *emqcore.Module
	mem     *[]byte // the module's memory; re-read after every call (growing it moves it)
	host    host
	scratch int32
	used    int32
	extra   [][2]int32 // blocks beyond the scratch for this use: (pointer, length)
}

// scratchSize fits every per-call input and output of ids, keys and lease
// replies; a batch or a longer input gets blocks of its own.
const scratchSize = 1 << 10

func newInstance() *Instance {
	in := &Instance{}
	in.M = emqcore.New(&in.host)
	in.mem = in.M.Xmemory().Slice()
	in.M.Xemq_wasm_init()
	if in.scratch = in.M.Xemq_wasm_alloc(scratchSize); in.scratch == 0 {
		panic(errors.New("emqid: the core could not give its scratch memory"))
	}
	return in
}

// Reserve is n bytes of the module's memory for this use (8-aligned).
// Memory the module cannot give is a panic, which the caller recovers as a
// trap (Done).
func (in *Instance) Reserve(n int) int32 {
	size := (n + 7) &^ 7
	if n < 0 || n > 1<<30 {
		panic(refused{fmt.Errorf("emqid: %d bytes exceed the core's memory", n)})
	}
	if int(in.used)+size <= scratchSize {
		p := in.scratch + in.used
		in.used += int32(size)
		return p
	}
	p := in.M.Xemq_wasm_alloc(int32(max(size, 8)))
	if p == 0 {
		panic(refused{fmt.Errorf("emqid: the core could not give %d bytes", n)})
	}
	in.extra = append(in.extra, [2]int32{p, int32(max(size, 8))})
	return p
}

// PutString copies text into the module's memory: its pointer.
func (in *Instance) PutString(text string) int32 {
	p := in.Reserve(len(text))
	copy((*in.mem)[p:], text)
	return p
}

// PutBytes copies b into the module's memory: its pointer.
func (in *Instance) PutBytes(b []byte) int32 {
	p := in.Reserve(len(b))
	copy((*in.mem)[p:], b)
	return p
}

// Out is n zeroed bytes of the module's memory for an output: what an output
// the library leaves unwritten (on a refusal) reads, as the native layer's
// zero-initialised variables do.
func (in *Instance) Out(n int) int32 {
	p := in.Reserve(n)
	clear((*in.mem)[p : int(p)+n])
	return p
}

// Bytes is a view of n bytes of the module's memory at p, valid until the
// next call into the module.
func (in *Instance) Bytes(p int32, n int) []byte {
	return (*in.mem)[uint32(p) : int(uint32(p))+n : int(uint32(p))+n]
}

// done ends a use: blocks beyond the scratch go back to the module.
func (in *Instance) done() {
	for _, block := range in.extra {
		in.M.Xemq_wasm_free(block[0], block[1])
	}
	in.extra = in.extra[:0]
	in.used = 0
}

// pool holds the instances of stateless calls beyond the one each P keeps
// at hand (perp.go).
var pool = sync.Pool{New: func() any { return newInstance() }}

// Get is an instance for a stateless call; Done gives it back.
func Get() *Instance {
	if in := takeAtHand(); in != nil {
		return in
	}
	return pool.Get().(*Instance)
}

// Done ends a use of a pooled instance. recovered is the caller's recover():
// nil, the instance goes back to the pool; a panic (a trap of the module, or
// memory it could not give) is returned as a *Trap, and the instance, whose
// memory may be half-written, is dropped. An instance whose memory a large
// batch grew is dropped too (a module's memory never shrinks): the pool
// keeps small ones, and the collector takes the rest.
func (in *Instance) Done(recovered any) error {
	if r, ok := recovered.(refused); ok {
		return in.refuse(r) // the module never ran: the instance is as it was
	}
	if recovered != nil {
		return trapOf(in, recovered)
	}
	in.done()
	if len(*in.mem) <= pooledMemory && !putAtHand(in) {
		pool.Put(in)
	}
	return nil
}

// pooledMemory is the most memory an instance the pool keeps may have.
const pooledMemory = 1 << 20
