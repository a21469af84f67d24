//go:build linux

// Package disktest gives tests a real, small file system to fill up.
package disktest

import (
	"strconv"
	"syscall"
	"testing"
)

// Small mounts a tmpfs of size bytes on a temporary directory, unmounted
// when the test ends, and returns the directory; "" where mounting is not
// allowed (not root).
func Small(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		return ""
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	return dir
}
