package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// gated holds back the batches that write a todo (a todo and its version)
// while its gate is closed, and fails the next such batch or the next
// batch of one replace when told to.
type gated struct {
	store.Container
	mu           sync.Mutex
	gate         chan struct{} // nil: open
	entered      chan struct{}
	failWrite    bool
	failRecorded bool
}

func (g *gated) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	g.mu.Lock()
	gate, entered := g.gate, g.entered
	fail := len(ops) == 2 && g.failWrite || len(ops) == 1 && ops[0].Kind == store.BatchReplace && g.failRecorded
	if fail {
		g.failWrite, g.failRecorded = false, false
	}
	g.mu.Unlock()
	if fail {
		return nil, todo.Errorf(todo.Unavailable, "injected failure")
	}
	if len(ops) == 2 && gate != nil {
		close(entered)
		<-gate
	}
	return g.Container.Batch(ctx, pk, ops)
}

func gatedService(t *testing.T, now func() time.Time) (*service.Service, *gated) {
	t.Helper()
	todos, audit, _ := open(t, partition.Hierarchical)
	g := &gated{Container: todos}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	return service.New(sch, g, audit, &service.Options{Now: now}), g
}

var milk = todo.Fields{Category: "Grocery", Title: "milk"}

// A request that finds its key in progress waits for it; past its
// deadline it is a Conflict saying so, and once the first is done the key
// answers the first result.
func TestIdempotencyInProgress(t *testing.T) {
	svc, g := gatedService(t, nil)
	ctx := service.WithUser(context.Background(), "alice")
	idem := service.Idempotency{Key: "k1", Fingerprint: "f1"}
	release := make(chan struct{})
	g.gate, g.entered = release, make(chan struct{})
	type outcome struct {
		res service.Result
		err error
	}
	first := make(chan outcome, 1)
	go func() {
		res, err := svc.CreateOnce(ctx, milk, idem)
		first <- outcome{res, err}
	}()
	<-g.entered
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := svc.CreateOnce(short, milk, idem); !todo.IsKind(err, todo.Conflict) || todo.RetryAfter(err) == 0 {
		t.Fatalf("a duplicate of a request in progress: %v, want a Conflict with Retry-After", err)
	}
	g.mu.Lock()
	g.gate = nil
	g.mu.Unlock()
	close(release)
	got := <-first
	if got.err != nil {
		t.Fatal(got.err)
	}
	again, err := svc.CreateOnce(ctx, milk, idem)
	if err != nil || again.Todo.ID != got.res.Todo.ID || again.ETag != got.res.ETag || !again.Created {
		t.Fatalf("after the first finished: %+v %v, want %+v", again, err, got.res)
	}
	if _, err := svc.CreateOnce(ctx, milk, service.Idempotency{Key: "k1", Fingerprint: "f2"}); !todo.IsKind(err, todo.Unprocessable) {
		t.Fatalf("the key with another request: %v, want Unprocessable", err)
	}
}

// A change that fails leaves no record: the retry runs it.
func TestIdempotencyFailureIsNotRecorded(t *testing.T) {
	svc, g := gatedService(t, nil)
	ctx := service.WithUser(context.Background(), "alice")
	idem := service.Idempotency{Key: "k1", Fingerprint: "f1"}
	g.failWrite = true
	if _, err := svc.CreateOnce(ctx, milk, idem); !todo.IsKind(err, todo.Unavailable) {
		t.Fatalf("injected failure: %v", err)
	}
	if res, err := svc.CreateOnce(ctx, milk, idem); err != nil || !res.Created {
		t.Fatalf("the retry: %+v %v", res, err)
	}
}

// A request whose handler stopped before recording its result leaves the
// record in progress; once that is stale, the next request with the key
// takes it over and answers the todo the first one created, creating no
// other.
func TestIdempotencyAbandonedRecord(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	svc, g := gatedService(t, func() time.Time { return now })
	ctx := service.WithUser(context.Background(), "alice")
	idem := service.Idempotency{Key: "k1", Fingerprint: "f1"}
	g.failRecorded = true
	first, err := svc.CreateOnce(ctx, milk, idem)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := svc.CreateOnce(short, milk, idem); !todo.IsKind(err, todo.Conflict) {
		t.Fatalf("a fresh record in progress: %v, want Conflict", err)
	}
	now = now.Add(3 * time.Minute)
	again, err := svc.CreateOnce(ctx, milk, idem)
	if err != nil || again.Todo.ID != first.Todo.ID || !again.Created {
		t.Fatalf("taking over an abandoned record: %+v %v, want todo %s", again, err, first.Todo.ID)
	}
	p, err := svc.List(ctx, service.ListOptions{})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("listed %d todos (%v), want 1", len(p.Items), err)
	}
}

// Keys are validated: 1 to 255 printable ASCII characters.
func TestCheckIdempotencyKey(t *testing.T) {
	for key, ok := range map[string]bool{"a": true, "8e03978e-40d5-43e8-bc93-6894a57f9324": true, " ~!": true, "": false,
		string(make([]byte, 256)): false, "é": false, "a\tb": false, "a\x7f": false} {
		if err := service.CheckIdempotencyKey(key); (err == nil) != ok {
			t.Errorf("CheckIdempotencyKey(%q) = %v", key, err)
		}
	}
}
