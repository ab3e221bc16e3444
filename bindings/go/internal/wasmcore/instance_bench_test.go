package wasmcore

import "testing"

// BenchmarkNewInstance is what a call pays when its P has no instance at
// hand and the pool is empty: `cargo xtask bench go` reports it.
func BenchmarkNewInstance(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		newInstance()
	}
}
