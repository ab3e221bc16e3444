// Package bench measures the emqid Go binding beside pure-Go anchors, in one
// `go test -bench` run. It is its own module so that the anchors (oklog/ulid,
// radix) never become dependencies of emqid itself.
package bench

/*
static void noop(void) {}
*/
import "C"

// cgoFloor is the cheapest possible cgo call: every emqid call costs at least this.
func cgoFloor() { C.noop() }
