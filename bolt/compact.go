package bolt

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	bbolt "go.etcd.io/bbolt"
)

// compactTxBytes bounds each transaction of a compaction, so that copying
// a large file does not hold all of it in memory at once.
const compactTxBytes = 64 << 20

// Compact rewrites the store file in dir with every page filled, as
// bbolt.Compact copies a file, and puts the copy in its place. Keys that
// arrive in random order (the ids of todos and audit records) leave pages
// about half full as they split, and pages freed by purges stay in the
// file: a compacted file holds little more than its keys and values. It
// needs the file to itself (a running handler holds it), and the room of
// the copy beside it; the original is replaced only once the copy is
// complete and synced. It returns the file's size before and after.
func Compact(dir string) (before, after int64, err error) {
	path := filepath.Join(dir, "store.db")
	fi, err := os.Stat(path)
	if err != nil {
		return 0, 0, fmt.Errorf("embedded store: %w", err)
	}
	src, err := openDB(dir, path, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, 0, err
	}
	// Closed only after the rename: its lock keeps other processes out
	// until the copy is in place.
	defer src.Close()
	tmp := path + ".compact"
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return 0, 0, fmt.Errorf("embedded store: %w", err)
	}
	dst, err := bbolt.Open(tmp, 0o600, &bbolt.Options{NoFreelistSync: true})
	if err != nil {
		return 0, 0, fmt.Errorf("embedded store: compacting into %s: %w", tmp, err)
	}
	if err := bbolt.Compact(dst, src, compactTxBytes); err != nil {
		_ = dst.Close()
		_ = os.Remove(tmp)
		return 0, 0, fmt.Errorf("embedded store: compacting into %s: %w", tmp, err)
	}
	if err := dst.Close(); err != nil {
		_ = os.Remove(tmp)
		return 0, 0, fmt.Errorf("embedded store: compacting into %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return 0, 0, fmt.Errorf("embedded store: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return 0, 0, fmt.Errorf("embedded store: %w", err)
	}
	nfi, err := os.Stat(path)
	if err != nil {
		return 0, 0, fmt.Errorf("embedded store: %w", err)
	}
	return fi.Size(), nfi.Size(), nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
