// The Go tools `cargo xtask go-wasm` runs, pinned with their hashes: wasm2go
// translates the core's WebAssembly to the Go module's source. A module of its
// own, so no user of the Go module fetches it (tool lines are in the module graph).
module github.com/echomq/emq-id/xtask/go-tools

go 1.26.0

tool github.com/ncruces/wasm2go

require (
	github.com/ncruces/wasm2go v0.4.22 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
