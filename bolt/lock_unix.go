//go:build unix

package bolt

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockFile takes the exclusive lock bbolt takes on its file, waiting up to
// wait for another process to release it; false means it did not.
func lockFile(f *os.File, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return false, err
		case time.Now().After(deadline):
			return false, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
