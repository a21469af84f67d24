package transparency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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
// size. The directory gains a file with every checkpoint, so that listing
// it costs more as the log grows: DirAnchors keeps the newest checkpoint
// it listed or wrote, with the directory's modification time then, and
// lists again only when that time changes (a directory gains or loses an
// entry only with a new one). An entry another process adds within the
// same tick of the file system's clock as this one's last look is seen at
// the next change.
type DirAnchors struct {
	Dir string

	mu    sync.Mutex
	known *knownAnchor
}

// knownAnchor is the newest checkpoint of a directory as it was at mtime.
type knownAnchor struct {
	mtime time.Time
	size  int64
	note  []byte
}

// anchorName is the file of the checkpoint of size n: zero-padded, so that
// names sort as sizes do.
func anchorName(n int64) string { return fmt.Sprintf("%020d.checkpoint", n) }

// Newest reads the checkpoint of the largest size in the directory.
func (d *DirAnchors) Newest(context.Context) ([]byte, error) {
	fi, err := os.Stat(d.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	k := d.known
	d.mu.Unlock()
	if k != nil && fi.ModTime().Equal(k.mtime) {
		return k.note, nil
	}
	size, note, err := d.list()
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	// The time read before the listing: a change during it gives another.
	d.known = &knownAnchor{mtime: fi.ModTime(), size: size, note: note}
	d.mu.Unlock()
	return note, nil
}

// list reads the directory in one pass without sorting, and only the files
// of the largest sizes (usually one).
func (d *DirAnchors) list() (int64, []byte, error) {
	dir, err := os.Open(d.Dir)
	if err != nil {
		return 0, nil, err
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return 0, nil, err
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
			size, _ := strconv.ParseInt(strings.TrimSuffix(names[i], ".checkpoint"), 10, 64)
			return size, b, err
		}
		names = slices.Delete(names, i, i+1)
	}
	return 0, nil, nil
}

// Put creates the checkpoint's file, failing if it exists.
func (d *DirAnchors) Put(_ context.Context, size int64, note []byte) ([]byte, error) {
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
	d.mu.Lock()
	defer d.mu.Unlock()
	fi, serr := os.Stat(d.Dir)
	if err != nil || serr != nil || d.known == nil || size <= d.known.size {
		// Newest lists the directory again.
		d.known = nil
		return nil, err
	}
	d.known = &knownAnchor{mtime: fi.ModTime(), size: size, note: bytes.Clone(note)}
	return nil, nil
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
