//go:build !race

package app_test

// raceDetector is set when the tests run under the race detector, which
// makes the largest of them several times slower.
const raceDetector = false
