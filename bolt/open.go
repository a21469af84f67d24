package bolt

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/todoaudit/todo/store"
)

// lockWait is how long opening waits for another process to release the
// store file's lock: long enough for a handler that is stopping during a
// restart to let go, short enough that a second handler on the same
// DATA_DIR is told so at once rather than retried.
const lockWait = 5 * time.Second

// inUse is the error for a store file whose lock another process still
// held after lockWait: no retry fixes it, so start-up stops.
func inUse(dir, path string) error {
	return store.Permanent(fmt.Errorf("DATA_DIR %s is in use: another process holds the lock on its embedded store file %s and did not release it within %s (another handler on the same DATA_DIR?): stop that process, or give this one its own DATA_DIR", dir, path, lockWait))
}

// check verifies an existing store file, holding its lock meanwhile so
// that no other process changes it under the walk. A lock another process
// holds is waited for, up to lockWait, and the wait logged.
func check(dir, path string, log *slog.Logger) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("embedded store file %s: %w", path, err)
	}
	defer f.Close() // and so unlocks it
	locked, err := lockFile(f, 0)
	if err == nil && !locked {
		log.Warn("another process holds the embedded store's lock; waiting for it to release it", "dataDir", dir, "wait", lockWait.String())
		locked, err = lockFile(f, lockWait)
	}
	if err != nil {
		return fmt.Errorf("embedded store file %s: locking: %w", path, err)
	}
	if !locked {
		return inUse(dir, path)
	}
	return verifyFile(path, f)
}

// openDB verifies the store file, if there is one, and opens it with bbolt.
// Should the file change between the check and the open, a fault reading
// the map or a panic of bbolt's becomes a FileError rather than the end of
// the process.
func openDB(dir, path string, log *slog.Logger) (db *bbolt.DB, err error) {
	if err := check(dir, path, log); err != nil {
		if unusableDir(err) {
			return nil, dirError(dir, err)
		}
		return nil, permanent(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, store.Permanent(&FileError{path, fmt.Sprintf("is corrupted (%v)", r)})
		}
	}()
	db, err = bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockWait, NoFreelistSync: true})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, inUse(dir, path)
	case unusableDir(err):
		return nil, dirError(dir, err)
	case err != nil:
		return nil, permanent(fmt.Errorf("embedded store file %s: %w", path, err))
	}
	return db, nil
}

// dirError is the error for a DATA_DIR the store file cannot live in: no
// retry fixes it, so start-up stops at once.
func dirError(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return store.Permanent(fmt.Errorf("DATA_DIR %s cannot hold the embedded store: %v; set DATA_DIR to a directory this user may create and write", dir, err))
}

// unusableDir reports whether err says the store's directory or file can
// never be opened as it is: no permission, a read-only file system, or a
// path through something that is not a directory.
func unusableDir(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR)
}

// permanent marks a broken file's error as one no retry can fix.
func permanent(err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return store.Permanent(err)
	}
	return err
}
