package wasmcore

import (
	"context"
	"testing"
)

func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := load(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
