package bolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

var faultSpecs = []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: []string{"/userId"}}}

func doc(n int) (store.PartitionKey, string, []byte) {
	id := fmt.Sprintf("i%04d", n)
	return store.PartitionKey{"u"}, id, fmt.Appendf(nil, `{"id":%q,"userId":"u","pad":%q}`, id, strings.Repeat("x", 3000))
}

// wantFault checks err is the write fault the API answers with 507.
func wantFault(t *testing.T, err error, cause string) {
	t.Helper()
	var e *todo.Error
	if !errors.As(err, &e) || e.Kind != todo.InsufficientStorage || e.RetryAfter <= 0 || !strings.Contains(e.Message, cause) {
		t.Fatalf("error %v, want an insufficient-storage error with a Retry-After naming %q", err, cause)
	}
}

// Where no small disk can be mounted, the faults are injected where bbolt
// reports them, formatted as bbolt formats them (losing the error chain).
func TestInjectedWriteFaults(t *testing.T) {
	for _, tc := range []struct {
		errno syscall.Errno
		cause string
	}{
		{syscall.ENOSPC, "no space left"},
		{syscall.EDQUOT, "no space left"},
		{syscall.EIO, "I/O error"},
		{syscall.EROFS, "read-only"},
	} {
		t.Run(tc.errno.Error(), func(t *testing.T) {
			s, err := Open(t.TempDir(), faultSpecs, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c, _ := s.Container(context.Background(), "todos")
			ctx := context.Background()
			s.commit.commitTx = func(tx *bbolt.Tx) error {
				_ = tx.Rollback()
				return fmt.Errorf("file resize error: %s", &os.PathError{Op: "truncate", Path: "store.db", Err: tc.errno})
			}
			pk, id, body := doc(1)
			_, err = c.Upsert(ctx, pk, body, nil)
			wantFault(t, err, tc.cause)
			if s.commit.fault.Load() == nil {
				t.Fatal("the fault is not remembered for Ping")
			}
			// The disk itself is fine: Ping's test write clears the fault.
			s.commit.commitTx = (*bbolt.Tx).Commit
			if err := s.Ping(ctx); err != nil || s.commit.fault.Load() != nil {
				t.Fatalf("Ping once the fault passed: %v", err)
			}
			if _, err := c.Read(ctx, pk, id); !todo.IsKind(err, todo.NotFound) {
				t.Fatalf("the write that failed left %v", err)
			}
			if _, err := c.Upsert(ctx, pk, body, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Other commit errors are not disk faults.
func TestWriteFaultLeavesOtherErrors(t *testing.T) {
	err := errors.New("database not open")
	if writeFault(err) != err {
		t.Fatal("an unrelated error was taken for a disk fault")
	}
}
