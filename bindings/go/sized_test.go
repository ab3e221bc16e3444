package emqid_test

import emqid "github.com/echomq/emq-id/bindings/go"

// sized is a test's count of work, made smaller where the race detector
// watches every load and store of the translated core (the default
// backend): there a call costs some 35 times more, and the race detector
// needs the concurrency, not the count. The full counts run without it.
func sized(n int) int {
	if raceDetector && emqid.Backend() == "wasm" {
		return max(n/50, 1)
	}
	return n
}
