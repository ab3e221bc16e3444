package wasmcore

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
)

// What a process pays once, at its first call: compiling the module to
// machine code and instantiating it. `cargo xtask bench go` reports both.

// BenchmarkLoadCompiling compiles every time (no cache: a machine's first start).
func BenchmarkLoadCompiling(b *testing.B) {
	for range b.N {
		if _, err := load(context.Background(), wazero.NewRuntimeConfig()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCached finds the machine code in the compilation cache (every later start).
func BenchmarkLoadCached(b *testing.B) {
	config := runtimeConfig()
	if _, err := load(context.Background(), config); err != nil { // fills the cache
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := load(context.Background(), config); err != nil {
			b.Fatal(err)
		}
	}
}
