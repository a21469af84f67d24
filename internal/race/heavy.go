package race

import "testing"

// Heavy skips t under the race detector. The Makefile's HEAVY_TESTS and
// HEAVY_PACKAGES must name t and its package, so that make test runs it
// again without the detector; a test of this package checks they do.
func Heavy(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("heavy on the CPU with no concurrency of its own: make test runs it without the race detector")
	}
}
