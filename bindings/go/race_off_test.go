//go:build !race

package emqid_test

// raceDetector: this test binary does not run under the race detector.
const raceDetector = false
