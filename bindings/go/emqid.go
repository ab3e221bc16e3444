// Package emqid is the Go binding of emq-id: EchoMQ branded ids (14-byte
// base62 snowflakes) and Valkey Cluster key placement, with exactly the
// answers of the Rust core it links.
//
// The core is linked statically from target/release/libemqid.a, which
// `cargo build -p emq-id-c --release` (or `cargo xtask conformance --target go`)
// builds. Every call crosses cgo, which costs tens of nanoseconds: use the
// batch calls (SlotMany, Minter.NextMany) on hot paths.
package emqid

/*
#cgo CFLAGS: -I${SRCDIR}/../c/include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/libemqid.a -ldl -lm -lpthread
#include "emq_id.h"
*/
import "C"

// Contract and Keyspace name the versions this package implements.
const (
	Contract = "branded-snowflake/1.0.0"
	Keyspace = "emq-keyspace/2"
)

func init() {
	if err := SelfCheck(); err != nil {
		panic("emqid: the linked libemqid disagrees with " + Contract +
			"; rebuild it with `cargo build -p emq-id-c --release`: " + err.Error())
	}
}

// SelfCheck runs the contract's own vectors against the linked library.
// The package runs it at init and refuses to start when it fails.
func SelfCheck() error {
	return check(C.emq_self_check())
}
