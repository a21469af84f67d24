//go:build !race

// Package race tells a test whether the race detector is compiled in. A
// test that is heavy on the CPU and exercises no concurrency of its own
// skips itself under the detector, which makes it ten to fifteen times
// slower and finds nothing there; make test runs it again without the
// detector.
package race

// Enabled reports whether the race detector is compiled in.
const Enabled = false
