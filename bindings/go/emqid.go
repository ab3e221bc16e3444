// Package emqid is the Go binding of emq-id: EchoMQ branded ids (14-byte
// base62 snowflakes) and Valkey Cluster key placement, with exactly the
// answers of the Rust core it links.
//
// The core is the C library libemqid, found through pkg-config (emqid.pc):
// install the libemqid-dev package (`cargo xtask dist` builds it), or, in a
// checkout, set PKG_CONFIG_PATH to its target/pkgconfig, whose emqid.pc
// `cargo build -p emq-id-c --release` does not write but every xtask task
// that builds the library does (`cargo xtask conformance --target go`).
// Every call crosses cgo, which costs tens of nanoseconds: use the
// batch calls (ParseMany, EncodeMany, SlotMany, Minter.NextMany) on hot
// paths. ParseMany and EncodeMany stop at their first refused item and
// return the items before it with a *BatchError naming the index.
//
// At load the package runs the contract's self-check vectors through the
// library and through its own API, and panics on any disagreement (see
// SelfCheck): a mislinked library never mints ids other runtimes read
// differently. Every refusal is an *Error whose Gate is the contract's word
// for it; the contract's numbers (IDLen, MaxNode, ...) come from the core.
package emqid

/*
#cgo pkg-config: emqid
#include "emq_id.h"
*/
import "C"
