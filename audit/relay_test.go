package audit_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// openEnv opens the embedded store in dir with the handler's containers,
// and returns it with the function that closes it (once, also when the
// test ends).
func openEnv(t *testing.T, dir string) (*env, func() error) {
	t.Helper()
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(dir, specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	closeOnce := sync.OnceValue(st.Close)
	t.Cleanup(func() { _ = closeOnce() })
	var cs [3]store.Container
	for i, spec := range specs {
		if cs[i], err = st.Container(context.Background(), spec.Name); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{todos: cs[0], audit: cs[1], leases: cs[2], store: st}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	e.svc = service.New(sch, e.todos, e.audit, nil)
	return e, closeOnce
}

// outbox is the todo container that keeps a copy of every version
// document written through it.
type outbox struct {
	store.Container
	versions [][]byte
}

func (o *outbox) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	res, err := o.Container.Batch(ctx, pk, ops)
	if err == nil {
		for _, op := range ops {
			var head struct{ Type string }
			if json.Unmarshal(op.Doc, &head) == nil && head.Type == todo.TypeVersion {
				o.versions = append(o.versions, op.Doc)
			}
		}
	}
	return res, err
}

// activity returns the audit container's activity entries, or those
// versions give, by partition and id.
func (e *env) activity(t *testing.T) map[string]string {
	t.Helper()
	page, err := e.audit.Query(context.Background(), store.Query{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range page.Items {
		var rec todo.AuditRecord
		if err := json.Unmarshal(it.Body, &rec); err != nil {
			t.Fatal(err)
		}
		if todo.IsActivityKey(rec.EntityKey) {
			b, _ := json.Marshal(rec)
			got[rec.EntityKey+"|"+rec.ID] = string(b)
		}
	}
	return got
}

func activityOf(versions [][]byte) map[string]string {
	want := map[string]string{}
	for _, doc := range versions {
		var v todo.Version
		_ = json.Unmarshal(doc, &v)
		rec, _ := todo.NewAuditRecord(v)
		for _, a := range todo.ActivityEntries(rec, v.Category) {
			b, _ := json.Marshal(a)
			want[a.EntityKey+"|"+a.ID] = string(b)
		}
	}
	return want
}

// etags returns the ETag of every item of the audit container: a record
// written again gets a new one.
func (e *env) etags(t *testing.T) map[string]string {
	t.Helper()
	page, err := e.audit.Query(context.Background(), store.Query{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range page.Items {
		out[it.PartitionKey.String()+"|"+it.ID] = it.ETag
	}
	return out
}

// On the embedded store each write commits its audit record and activity
// entries with itself: a crash before the pump ran loses none, and the
// version documents are retired in the same commit. The pump, started
// after, writes none of them again, still audits what was left to it (a
// move's versions), and moves its checkpoint past everything.
func TestRelayedWritesCommitTheirAudit(t *testing.T) {
	dir := t.TempDir()
	e, closeStore := openEnv(t, dir)
	p := e.newPump(t, e.audit, e.leases)
	p.Reserve = time.Minute
	if err := e.store.RelayBatches(e.todos.Spec().Name, p); err != nil {
		t.Fatal(err)
	}
	out := &outbox{Container: e.todos}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	e.svc = service.New(sch, out, e.audit, nil)
	ids := e.writeTodos(t)
	want := recordsOf(t, out.versions)
	checkGolden(t, ids, want)
	wantActivity := activityOf(out.versions)
	ctx := service.WithUser(context.Background(), "alice")
	moved, err := e.svc.Move(ctx, ids[0], "Work", "")
	if err != nil {
		t.Fatal(err)
	}

	// The process stops before the pump ever ran.
	if err := closeStore(); err != nil {
		t.Fatal(err)
	}
	e, _ = openEnv(t, dir)
	same(t, e.stored(t), want)
	if got := e.activity(t); len(got) != len(wantActivity) {
		t.Fatalf("%d activity entries after the crash, want %d", len(got), len(wantActivity))
	} else {
		for k, w := range wantActivity {
			if got[k] != w {
				t.Fatalf("activity entry %s:\n got %s\nwant %s", k, got[k], w)
			}
		}
	}
	before := e.etags(t)

	p = e.newPump(t, e.audit, e.leases)
	p.Reserve = time.Minute
	p.Drain(context.Background())
	after := e.etags(t)
	for k, etag := range before {
		if after[k] != etag {
			t.Fatalf("the pump wrote %s again (ETag %s, was %s)", k, after[k], etag)
		}
	}
	if n := len(e.stored(t)); n <= len(want) {
		t.Fatalf("%d audit records after the pump, want the move's besides the %d written with their todos", n, len(want))
	}
	q := store.Query{PageSize: 1000, Filters: []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}}}
	page, err := e.todos.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range page.Items {
		var v todo.Version
		if err := json.Unmarshal(it.Body, &v); err != nil || v.Operation != todo.OpMove {
			t.Fatalf("version document %s kept once audited (%v); want only a move's, which finishes it", it.ID, err)
		}
	}
	h, err := e.svc.History(ctx, moved.Todo.ID, 100, "")
	if err != nil || len(h.Items) == 0 {
		t.Fatalf("history of the moved todo: %d items, %v; want its move audited by the pump", len(h.Items), err)
	}
	cont, err := store.LoadCheckpoint(context.Background(), e.leases, "pump-"+e.todos.Spec().Name)
	if err != nil {
		t.Fatal(err)
	}
	if rest, err := e.todos.ChangeFeed(context.Background(), cont, 100); err != nil || len(rest.Items) != 0 {
		t.Fatalf("the pump's checkpoint leaves %d changes unread (%v), want none", len(rest.Items), err)
	}
}
