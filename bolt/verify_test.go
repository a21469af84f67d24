package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/store"
)

var faultSpecs = []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: []string{"/userId"}}}

// item is the n-th document of a populated store: small ones fill leaf and
// branch pages; with large, every fortieth is large enough to need overflow
// pages.
func item(n int, large bool) (store.PartitionKey, string, string) {
	size := 200
	if large && n%40 == 0 {
		size = 9000
	}
	user, id := fmt.Sprintf("u%d", n%7), fmt.Sprintf("i%04d", n)
	return store.PartitionKey{user}, id, fmt.Sprintf(`{"id":%q,"userId":%q,"pad":%q}`, id, user, strings.Repeat("x", size))
}

const items = 240

// populated returns the bytes of a closed store file holding items
// documents.
func populated(t *testing.T, large bool) []byte {
	t.Helper()
	dir := t.TempDir()
	s, err := bolt.Open(dir, faultSpecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Container(context.Background(), "todos")
	if err != nil {
		t.Fatal(err)
	}
	for n := range items {
		pk, _, doc := item(n, large)
		if _, err := c.Upsert(context.Background(), pk, []byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openFile opens a store on a copy of file; with mustBeComplete, a store
// that opens must give back every document intact (a damage it accepted
// would show here, or crash the test). bbolt keeps no checksums, and the
// overflow pages that continue a page have no header to check, so damage
// to them can read back as changed data: a file with large values is only
// read.
func openFile(t *testing.T, file []byte, large, mustBeComplete bool) error {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "store.db"), file, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := bolt.Open(dir, faultSpecs, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	c, err := s.Container(context.Background(), "todos")
	if err != nil {
		t.Fatalf("opened, but: %v", err)
	}
	for n := range items {
		pk, id, doc := item(n, large)
		it, err := c.Read(context.Background(), pk, id)
		if mustBeComplete && !large && (err != nil || !strings.Contains(string(it.Body), doc[len(doc)-40:])) {
			t.Fatalf("opened, but document %s reads %v", id, err)
		}
	}
	return nil
}

// wantFileError checks err is a FileError naming the file, the problem and
// what to do, on one line, without blaming another process.
func wantFileError(t *testing.T, err error, problem string) {
	t.Helper()
	var fe *bolt.FileError
	if !errors.As(err, &fe) || !store.IsPermanent(err) {
		t.Fatalf("error %v (%T), want a FileError marked permanent", err, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, problem) || !strings.Contains(msg, "store.db") || !strings.Contains(msg, "restore it from a backup") ||
		strings.Contains(msg, "\n") || strings.Contains(msg, "another process") {
		t.Fatalf("error %q, want one line naming store.db, %q and the remedy, not another process", msg, problem)
	}
}

func TestOpenRefusesBrokenFiles(t *testing.T) {
	good := populated(t, true)
	pageSize := os.Getpagesize()
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	zeroed := func(from, to int) []byte {
		b := append([]byte(nil), good...)
		clear(b[from:to])
		return b
	}
	for _, tc := range []struct {
		name, problem string
		file          []byte
	}{
		{"existing 0-byte file", "is empty (0 bytes)", []byte{}},
		{"garbage", "is not a bbolt database", garbage},
		{"a text file", "is not a bbolt database", []byte("hello, world\n")},
		{"truncated to half", "is truncated", good[:len(good)/2]},
		{"truncated to its first page", "is truncated", good[:pageSize]},
		{"truncated inside its first page", "is truncated", good[:100]},
		{"truncated inside its first meta", "is not a bbolt database", good[:50]},
		{"both meta pages zeroed", "is not a bbolt database", zeroed(0, 2*pageSize)},
		{"data pages zeroed", "is corrupted", zeroed(3*pageSize, len(good)/2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFileError(t, openFile(t, tc.file, true, false), tc.problem)
		})
	}
}

// Every single page zeroed or overwritten, and the file cut at every page
// boundary: opening either refuses with a FileError or gives back every
// document, and never panics or faults.
func TestOpenSurvivesEveryDamagedPage(t *testing.T) {
	for _, large := range []bool{false, true} {
		t.Run(fmt.Sprintf("large values %v", large), func(t *testing.T) {
			good := populated(t, large)
			pageSize := os.Getpagesize()
			pages := len(good) / pageSize
			rng := rand.New(rand.NewPCG(3, 4))
			refused := 0
			for p := range pages {
				for _, mode := range []string{"zeroed", "overwritten"} {
					b := append([]byte(nil), good...)
					page := b[p*pageSize : (p+1)*pageSize]
					for i := range page {
						if mode == "zeroed" {
							page[i] = 0
						} else {
							page[i] = byte(rng.Uint32())
						}
					}
					// Damage to a meta page makes bbolt use the other one: the
					// last transaction may be lost, as after a torn write.
					if err := openFile(t, b, large, p > 1); err != nil {
						wantFileError(t, err, "")
						refused++
					}
				}
				if err := openFile(t, good[:p*pageSize], large, true); err != nil {
					wantFileError(t, err, "")
				}
			}
			if refused < pages/2 {
				t.Fatalf("only %d of %d damaged files refused", refused, 2*pages)
			}
		})
	}
}

// A second opener of the same file is told, after a short wait for the
// lock, that another process holds DATA_DIR: an error no retry fixes, and
// no broken file either.
func TestOpenInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := bolt.Open(dir, faultSpecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = bolt.Open(dir, faultSpecs, nil)
	if err == nil || !strings.Contains(err.Error(), "DATA_DIR "+dir) || !strings.Contains(err.Error(), "another process holds the lock") {
		t.Fatalf("second open: %v, want an error naming DATA_DIR and the other process's lock", err)
	}
	if !store.IsPermanent(err) {
		t.Fatal("a store another process holds is retried: it stays held until that process stops")
	}
	var fe *bolt.FileError
	if errors.As(err, &fe) {
		t.Fatal("a file in use is not a broken file")
	}
}

// A lock released while the second opener waits for it (a handler that
// is stopping during a restart) lets the store open.
func TestOpenWaitsForTheLock(t *testing.T) {
	dir := t.TempDir()
	s, err := bolt.Open(dir, faultSpecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	waiting := &firstWrite{done: make(chan struct{})}
	opened := make(chan error, 1)
	go func() {
		s, err := bolt.Open(dir, faultSpecs, &bolt.Options{Log: slog.New(slog.NewTextHandler(waiting, nil))})
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	select {
	case <-waiting.done:
	case err := <-opened:
		t.Fatalf("the second open ended without waiting for the lock: %v", err)
	}
	if !strings.Contains(waiting.line, "another process holds the embedded store's lock") || !strings.Contains(waiting.line, dir) {
		t.Fatalf("logged %q, want the wait for the lock, naming DATA_DIR", waiting.line)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("open once the lock was released: %v", err)
	}
}

// firstWrite keeps the first line written to it and then closes done.
type firstWrite struct {
	once sync.Once
	line string
	done chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() {
		w.line = string(p)
		close(w.done)
	})
	return len(p), nil
}
