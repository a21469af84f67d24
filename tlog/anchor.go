package tlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Anchors is write-once storage of signed checkpoints, out of reach of
// whoever can write the store: a rolled-back or rewritten log can then no
// longer be made consistent with what was published.
type Anchors interface {
	// Newest returns the anchored checkpoint of the largest tree size, nil
	// when none is anchored yet.
	Newest(ctx context.Context) ([]byte, error)
	// Put anchors a checkpoint of the given tree size. It never replaces
	// one: when one of that size is anchored already it returns
	// ErrAnchored and that one.
	Put(ctx context.Context, size int64, note []byte) (existing []byte, err error)
}

// ErrAnchored is Put's error when a checkpoint of that size is anchored.
var ErrAnchored = errors.New("a checkpoint of this tree size is anchored already")

// DirAnchors anchors checkpoints as files of a directory, one per tree
// size, created exclusively and never overwritten or deleted by the
// handler. It protects against a rollback of the store only when the
// directory is somewhere the store's writers cannot reach.
type DirAnchors struct{ Dir string }

// anchorName is the file of the checkpoint of size n: zero-padded, so that
// names sort as sizes do.
func anchorName(n int64) string { return fmt.Sprintf("%020d.checkpoint", n) }

// Newest reads the checkpoint of the largest size in the directory. The
// directory gains a file with every checkpoint, so it is read in one pass
// without sorting, and only the files of the largest sizes are looked at
// (usually one).
func (d DirAnchors) Newest(context.Context) ([]byte, error) {
	dir, err := os.Open(d.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		n, ok := strings.CutSuffix(e.Name(), ".checkpoint")
		if _, err := strconv.ParseUint(n, 10, 63); ok && err == nil && len(n) == 20 && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	for len(names) > 0 {
		i := slices.Index(names, slices.Max(names))
		// A file left empty by a crash between its creation and its write
		// anchors nothing.
		b, err := os.ReadFile(filepath.Join(d.Dir, names[i]))
		if err != nil && !errors.Is(err, os.ErrNotExist) || len(b) > 0 {
			return b, err
		}
		names = slices.Delete(names, i, i+1)
	}
	return nil, nil
}

// Put creates the checkpoint's file, failing if it exists.
func (d DirAnchors) Put(_ context.Context, size int64, note []byte) ([]byte, error) {
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(d.Dir, anchorName(size))
	err := createFile(path, note, 0o400)
	if errors.Is(err, os.ErrExist) {
		existing, rerr := os.ReadFile(path)
		if rerr != nil {
			return nil, rerr
		}
		return existing, ErrAnchored
	}
	return nil, err
}

// createFile writes a new file durably: created exclusively (an existing
// file is never replaced: os.ErrExist), synced, and its name synced in its
// directory.
func createFile(path string, b []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}
