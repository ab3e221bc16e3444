// Package emqid is the Go binding of emq-id: EchoMQ branded ids (14-byte
// base62 snowflakes) and Valkey Cluster key placement, with exactly the
// answers of the Rust core it runs.
//
// The core is the Rust core itself, in one of two builds (see Backend): by
// default built for WebAssembly and translated to Go source by wasm2go,
// which this module carries, so `go get` works on every platform with no C
// toolchain, CGO_ENABLED=0 builds work, and nothing is loaded at run time;
// or, with `-tags emqid_cgo` and cgo, the C library libemqid found through
// pkg-config (emqid.pc: install the libemqid-dev package that `cargo xtask
// dist` builds), for the fewest nanoseconds per call. Every call crosses
// into the core, which costs tens of nanoseconds: use the batch calls
// (ParseMany, EncodeMany, SlotMany, Minter.NextMany) on hot paths.
// ParseMany and EncodeMany stop at their first refused item and return the
// items before it with a *BatchError naming the index.
//
// At load the package runs the contract's self-check vectors through the
// library and through its own API, and panics on any disagreement (see
// SelfCheck): a mislinked library never mints ids other runtimes read
// differently. Every refusal is an *Error whose Gate is the contract's word
// for it; the contract's numbers (IDLen, MaxNode, ...) come from the core.
package emqid
