//go:build race

package emqid_test

// raceDetector: this test binary runs under the race detector.
const raceDetector = true
