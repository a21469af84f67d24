package bolt

import (
	"errors"
	"strings"
	"syscall"
	"time"

	"github.com/todoaudit/todo"
)

// faultRetryAfter is the back-off a caller is told after a write fault.
const faultRetryAfter = 10 * time.Second

// writeFault turns a failed commit caused by the disk (no space left, an
// I/O error, a read-only file system) into an InsufficientStorage error
// whose message names the cause; other errors are returned as they are.
func writeFault(err error) error {
	var cause string
	switch {
	case isErrno(err, syscall.ENOSPC), isErrno(err, syscall.EDQUOT):
		cause = "no space left on its device"
	case isErrno(err, syscall.EIO):
		cause = "an I/O error on its device"
	case isErrno(err, syscall.EROFS):
		cause = "its file system is read-only"
	default:
		return err
	}
	return &todo.Error{Kind: todo.InsufficientStorage, Message: "the embedded store cannot write: " + cause,
		RetryAfter: faultRetryAfter, Err: err}
}

// isErrno reports whether err is n, by its chain or, since bbolt formats
// some causes with %s and so drops the chain, by n's text.
func isErrno(err error, n syscall.Errno) bool {
	return errors.Is(err, n) || strings.Contains(err.Error(), n.Error())
}
