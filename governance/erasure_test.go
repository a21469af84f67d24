package governance_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// world is a service on a fresh embedded store holding alice's five todos
// of two versions each, audited, a dead letter of one of her documents,
// and bob's todo.
type world struct {
	svc    *service.Service
	c      bolttest.Containers
	scheme partition.Scheme
	alice  []string
	bob    string
}

const secret = "aliceSecretValue"

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{c: bolttest.Open(t, partition.Hierarchical, nil)}
	w.scheme, _ = partition.New(partition.Hierarchical, 1, nil)
	w.svc = service.New(w.scheme, w.c.Todos, w.c.Audit, nil)
	alice := service.WithUser(context.Background(), "alice")
	for n := range 5 {
		r, err := w.svc.Create(alice, todo.Fields{Category: "Work", Title: secret + " title", Notes: secret + " notes", Tags: []string{secret + "-tag"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Put(alice, r.Todo.ID, todo.Fields{Category: "Work", Title: secret + " title 2", IsCompleted: n%2 == 0}, "", false); err != nil {
			t.Fatal(err)
		}
		w.alice = append(w.alice, r.Todo.ID)
	}
	r, err := w.svc.Create(service.WithUser(context.Background(), "bob"), todo.Fields{Category: "Work", Title: "bob's"})
	if err != nil {
		t.Fatal(err)
	}
	w.bob = r.Todo.ID
	rec := &reconcile.Reconciler{Todos: w.c.Todos, Audit: w.c.Audit, Leases: w.c.Leases, Log: slog.New(slog.DiscardHandler)}
	if _, err := rec.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(map[string]any{"id": "x", "type": todo.TypeTodo, "userId": "alice", "title": secret})
	dl := todo.NewDeadLetter("todos", doc, "a test's bad document", time.Now())
	if _, err := w.c.Audit.Upsert(context.Background(), store.PartitionKey{todo.DeadLetterKey}, mustJSON(t, dl), nil); err != nil {
		t.Fatal(err)
	}
	return w
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// request has an administrator ask for alice's erasure; it returns a
// context, the administrator's and the erasure.
func (w *world) request(t *testing.T) (context.Context, context.Context, governance.Erasure) {
	t.Helper()
	ctx := context.Background()
	admin := service.WithUser(ctx, "admin")
	job, err := w.svc.RequestErasure(admin, "alice", "GDPR request")
	if err != nil {
		t.Fatal(err)
	}
	return ctx, admin, job
}

func (w *world) eraser() *governance.Eraser {
	return &governance.Eraser{Todos: w.c.Todos, Audit: w.c.Audit, Scheme: w.scheme, PageSize: 3}
}

// holdsSecret reports whether any document of the store holds alice's
// values.
func (w *world) holdsSecret(t *testing.T) bool {
	t.Helper()
	for _, c := range []store.Container{w.c.Todos, w.c.Audit, w.c.Leases} {
		q := store.Query{PageSize: store.MaxPageSize}
		for {
			p, err := c.Query(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Items {
				if strings.Contains(string(it.Body), secret) {
					return true
				}
			}
			if q.Continuation = p.Continuation; q.Continuation == "" {
				break
			}
		}
	}
	return false
}

// An erasure abandoned half way (its process stopped after a few steps)
// is finished by the next run, with exact counts; every chain of hers
// verifies with its erased versions counted, bob's has none, and a second
// run finds nothing more to erase but counts the same.
func TestErasureResumes(t *testing.T) {
	w := newWorld(t)
	ctx, admin, job := w.request(t)
	crashed := w.eraser()
	crashed.StopAfter(4)
	if _, err := crashed.Run(ctx); err != nil {
		t.Fatal(err)
	}
	half, err := w.svc.Erasure(admin, job.ID)
	if err != nil || half.State != governance.ErasureRunning || half.Phase == "todos" && half.Erased.Versions == 0 {
		t.Fatalf("after 4 steps: %+v %v", half, err)
	}
	if !w.holdsSecret(t) {
		t.Fatal("4 steps of 3 documents erased everything: the test stops nothing half way")
	}
	res, err := w.eraser().Run(ctx)
	if err != nil || res.Finished != 1 {
		t.Fatalf("resumed run: %+v %v", res, err)
	}
	done, err := w.svc.Erasure(admin, job.ID)
	want := governance.ErasureCounts{Todos: 5, Versions: 10, Records: 10, Activity: 10, DeadLetters: 1}
	if err != nil || done.State != governance.ErasureDone || done.Erased != want || done.FirstEncoding != (governance.ErasureCounts{}) {
		t.Fatalf("finished: %+v %v; want erased %+v", done, err, want)
	}
	if w.holdsSecret(t) {
		t.Fatal("alice's values are still in the store")
	}
	alice := service.WithUser(ctx, "alice")
	for _, id := range w.alice {
		v, err := w.svc.Verify(alice, id, service.VerifyStep{})
		if err != nil || !v.Verified || v.Versions != 2 || v.Erased != 2 {
			t.Fatalf("verify %s: %+v %v", id, v, err)
		}
	}
	if v, err := w.svc.Verify(service.WithUser(ctx, "bob"), w.bob, service.VerifyStep{}); err != nil || !v.Verified || v.Erased != 0 {
		t.Fatalf("verify bob's: %+v %v", v, err)
	}

	again, err := w.svc.RequestErasure(admin, "alice", "GDPR request, again")
	if err != nil || again.Run != 2 || again.State != governance.ErasureRunning {
		t.Fatalf("second request: %+v %v", again, err)
	}
	if same, err := w.svc.RequestErasure(admin, "alice", "a third"); err != nil || same.Run != 2 || same.Reason != "GDPR request, again" {
		t.Fatalf("a request while one runs answers it: %+v %v", same, err)
	}
	if _, err := w.eraser().Run(ctx); err != nil {
		t.Fatal(err)
	}
	second, _ := w.svc.Erasure(admin, job.ID)
	want.DeadLetters = 0 // its copy is gone: nothing of hers is left in it
	if second.State != governance.ErasureDone || second.Erased != want {
		t.Fatalf("second run: %+v, want erased %+v", second, want)
	}
	events := governanceEvents(t, w.c.Audit, "erase")
	if len(events) != 2 || events[0].UserID != "alice" || events[0].Actor != "admin" || events[0].Erased == nil || events[0].Erased.Records != 10 {
		t.Fatalf("governance events: %+v", events)
	}
}

// A legal hold placed while an erasure runs pauses it, naming the hold;
// released, the erasure finishes.
func TestErasurePausesUnderHold(t *testing.T) {
	w := newWorld(t)
	ctx, admin, job := w.request(t)
	h, err := w.svc.CreateHold(admin, "", w.alice[2], "subpoena")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.eraser().Run(ctx); err != nil {
		t.Fatal(err)
	}
	held, _ := w.svc.Erasure(admin, job.ID)
	if held.State != governance.ErasureRunning || held.HeldBy != h.ID || !w.holdsSecret(t) {
		t.Fatalf("under a hold: %+v", held)
	}
	if err := w.svc.ReleaseHold(admin, h.ID, "settled"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.eraser().Run(ctx); err != nil {
		t.Fatal(err)
	}
	if done, _ := w.svc.Erasure(admin, job.ID); done.State != governance.ErasureDone || done.HeldBy != "" || w.holdsSecret(t) {
		t.Fatalf("after the release: %+v", done)
	}
}

func governanceEvents(t *testing.T, audit store.Container, action string) []governance.Event {
	t.Helper()
	p, err := audit.Query(context.Background(), store.Query{PartitionKey: store.PartitionKey{todo.GovernanceKey},
		Filters: []store.Filter{{Field: "id", Op: store.Ge, Value: governance.EventIDPrefix}}, PageSize: store.MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	var out []governance.Event
	for _, it := range p.Items {
		var ev governance.Event
		if json.Unmarshal(it.Body, &ev) == nil && ev.Action == action {
			out = append(out, ev)
		}
	}
	return out
}
