// Package emqid is the Go binding of emq-id: EchoMQ branded ids (14-byte
// base62 snowflakes) and Valkey Cluster key placement, with exactly the
// answers of the Rust core it links.
//
// The core is linked statically from target/release/libemqid.a, which
// `cargo build -p emq-id-c --release` (or `cargo xtask conformance --target go`)
// builds. Every call crosses cgo, which costs tens of nanoseconds: use the
// batch calls (SlotMany, Minter.NextMany) on hot paths.
//
// At load the package runs the contract's self-check vectors through the
// library and through its own API, and panics on any disagreement (see
// SelfCheck): a mislinked library never mints ids other runtimes read
// differently. Every refusal is an *Error whose Gate is the contract's word
// for it; the contract's numbers (IDLen, MaxNode, ...) come from the core.
package emqid

/*
#cgo CFLAGS: -I${SRCDIR}/../c/include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/libemqid.a -ldl -lm -lpthread
#include "emq_id.h"
*/
import "C"
