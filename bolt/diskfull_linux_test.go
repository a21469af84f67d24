//go:build linux

package bolt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/disktest"
)

// fill writes a file into dir until its file system is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return path
		}
	}
}

// A full disk fails writes with an insufficient-storage error naming it,
// reads go on, Ping reports the fault until space returns and then clears
// it by itself, nothing half-written is left, and the file reopens.
func TestDiskFull(t *testing.T) {
	disk := disktest.Small(t, 4<<20)
	if disk == "" {
		t.Skip("cannot mount a tmpfs here (not root); TestInjectedWriteFaults covers the fault")
	}
	dir := filepath.Join(disk, "data")
	s, err := Open(dir, faultSpecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.Container(context.Background(), "todos")
	ctx := context.Background()
	pk, id0, body := doc(0)
	if _, err := c.Upsert(ctx, pk, body, nil); err != nil {
		t.Fatal(err)
	}
	filler := fill(t, disk)
	failed := -1
	for n := 1; n < 2000 && failed < 0; n++ {
		pk, _, body := doc(n)
		if _, err = c.Upsert(ctx, pk, body, nil); err != nil {
			failed = n
		}
	}
	if failed < 0 {
		t.Fatal("writes on a full disk never failed")
	}
	wantFault(t, err, "no space left")
	wantFault(t, s.Ping(ctx), "no space left")
	if _, err := c.Read(ctx, pk, id0); err != nil {
		t.Fatalf("a read on a full disk: %v", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping once space returned: %v", err)
	}
	pk, idFailed, _ := doc(failed)
	if _, err := c.Read(ctx, pk, idFailed); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("the write that failed left %v", err)
	}
	if _, err := c.Upsert(ctx, pk, body, nil); err != nil {
		t.Fatalf("a write once space returned: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, faultSpecs, nil)
	if err != nil {
		t.Fatalf("reopening after the disk filled: %v", err)
	}
	_ = s.Close()
}
