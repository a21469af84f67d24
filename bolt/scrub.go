package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/backoff"
)

// errReaders is why a scrub waits: a read transaction is open.
var errReaders = errors.New("read transactions are open")

// scrubAttempts and scrubBackoff bound how long ScrubFreePages waits for a
// moment with no read transaction open.
const scrubAttempts = 200

var scrubBackoff = backoff.Policy{Base: time.Millisecond, Max: 20 * time.Millisecond}

// ScrubFreePages overwrites with zeros every page of the store file that
// holds no live data: the pages bbolt freed (copy-on-write leaves the old
// bytes of every changed page in them until they are reused) and any past
// the end of the data. After an erasure, this is what makes the file hold
// no copy of the erased values.
//
// It runs inside a write transaction, so that no page is allocated under
// it, and only at a moment when no read transaction is open: a reader
// that began before the last commit may still read pages that commit
// freed, and one that begins later sees only live pages. It waits for
// such a moment for a bounded time, then fails with Unavailable. It
// returns how many pages it overwrote.
func (s *Store) ScrubFreePages(ctx context.Context) (int, error) {
	for n := range scrubAttempts {
		if n > 0 {
			if err := backoff.Sleep(ctx, scrubBackoff.Delay(n-1)); err != nil {
				return 0, todo.Wrap(todo.Unavailable, err, "scrubbing the store file was cancelled")
			}
		}
		pages, err := s.scrub()
		if !errors.Is(err, errReaders) {
			return pages, err
		}
	}
	return 0, todo.Errorf(todo.Unavailable, "the store file could not be scrubbed: read transactions stayed open")
}

func (s *Store) scrub() (int, error) {
	pages := 0
	err := s.db.Update(func(tx *bbolt.Tx) error {
		if s.db.Stats().OpenTxN > 0 {
			return errReaders
		}
		f, err := os.OpenFile(s.db.Path(), os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		size := s.db.Info().PageSize
		zero, old := make([]byte, size), make([]byte, size)
		end := int(info.Size()) / size
		for id := 2; id < end; id++ { // pages 0 and 1 are the meta pages
			p, err := tx.Page(id)
			if err != nil {
				return err
			}
			if p != nil && p.Type != "free" {
				continue
			}
			// Only pages that hold something are written: the file's
			// unwritten tail stays sparse, and a second scrub writes nothing.
			at := int64(id) * int64(size)
			if _, err := f.ReadAt(old, at); err != nil {
				return err
			}
			if bytes.Equal(old, zero) {
				continue
			}
			if _, err := f.WriteAt(zero, at); err != nil {
				return err
			}
			pages++
		}
		return f.Sync()
	})
	if err != nil && !errors.Is(err, errReaders) {
		return pages, fmt.Errorf("embedded store: scrubbing freed pages: %w", err)
	}
	return pages, err
}
