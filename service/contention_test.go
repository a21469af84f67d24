package service_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// losing makes every batch after the first lose the race for its todo, as
// if another writer always got there first, and records when each came.
type losing struct {
	store.Container
	mu    sync.Mutex
	calls []time.Time
}

func (l *losing) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	l.mu.Lock()
	l.calls = append(l.calls, time.Now())
	n := len(l.calls)
	l.mu.Unlock()
	if n == 1 {
		return l.Container.Batch(ctx, pk, ops)
	}
	return nil, &store.BatchError{Index: 0, Err: todo.Errorf(todo.PreconditionFailed, "changed meanwhile")}
}

// An unconditional update that keeps losing to other writers is retried
// with growing, jittered pauses, then ends in Unavailable that says why and
// carries a Retry-After; a caller's deadline ends the retries early.
func TestContentionBacksOff(t *testing.T) {
	todos, audit, _ := open(t, partition.Hierarchical)
	l := &losing{Container: todos}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	svc := service.New(sch, l, audit, nil)
	ctx := service.WithUser(context.Background(), "alice")
	created, err := svc.Create(ctx, todo.Fields{Category: "a", Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Put(ctx, created.Todo.ID, todo.Fields{Category: "a", Title: "u"}, "", false)
	if !todo.IsKind(err, todo.Unavailable) || todo.RetryAfter(err) <= 0 || !strings.Contains(todo.Message(err), "concurrent writers") {
		t.Fatalf("after losing every race: %v (retry after %v)", err, todo.RetryAfter(err))
	}
	attempts := l.calls[1:]
	if len(attempts) < 2 {
		t.Fatalf("%d attempts", len(attempts))
	}
	// Each pause is at least half its nominal delay: 1, 2, 4, ... ms, up
	// to half the 100 ms cap.
	for i := 1; i < len(attempts); i++ {
		if gap, least := attempts[i].Sub(attempts[i-1]), min(time.Millisecond<<(i-1), 50*time.Millisecond); gap < least {
			t.Fatalf("pause %d was %v, want at least %v", i, gap, least)
		}
	}

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = svc.Put(short, created.Todo.ID, todo.Fields{Category: "a", Title: "v"}, "", false)
	if !todo.IsKind(err, todo.Unavailable) {
		t.Fatalf("retries past the caller's deadline: %v", err)
	}
}
