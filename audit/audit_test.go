package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/pump"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/httpapi/invocation"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type env struct {
	todos, audit, leases store.Container
	svc                  *service.Service
	store                *bolt.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := bolttest.Open(t, partition.Hierarchical, nil)
	e := &env{todos: c.Todos, audit: c.Audit, leases: c.Leases, store: c.Store}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	e.svc = service.New(sch, e.todos, e.audit, nil)
	return e
}

// writeHistory makes a few todos with creates, rapid updates, a delete and
// a rollback, and returns the expected audit records (from the outbox).
func (e *env) writeHistory(t *testing.T) map[string]string {
	t.Helper()
	ids := e.writeTodos(t)
	q := store.Query{PageSize: 1000, Filters: []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}}}
	page, err := e.todos.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([][]byte, len(page.Items))
	for i, it := range page.Items {
		docs[i] = it.Body
	}
	want := recordsOf(t, docs)
	checkGolden(t, ids, want)
	return want
}

// writeTodos makes writeHistory's todos and returns their ids.
func (e *env) writeTodos(t *testing.T) []string {
	t.Helper()
	ctx := service.WithUser(context.Background(), "alice")
	var ids []string
	for i := range 3 {
		r, err := e.svc.Create(ctx, todo.Fields{Category: "Grocery", Title: fmt.Sprint("t", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Todo.ID)
		for j := range 4 {
			if _, err := e.svc.Put(ctx, r.Todo.ID, todo.Fields{Category: "Grocery", Title: fmt.Sprint("t", i, "-", j)}, "", false); err != nil {
				t.Fatal(err)
			}
		}
		if i == 1 {
			if err := e.svc.Delete(ctx, r.Todo.ID, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.Rollback(ctx, r.Todo.ID, 2, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

// recordsOf returns the audit records of writeHistory's version documents.
func recordsOf(t *testing.T, versions [][]byte) map[string]string {
	t.Helper()
	want := map[string]string{}
	for _, doc := range versions {
		var v todo.Version
		_ = json.Unmarshal(doc, &v)
		rec, _ := todo.NewAuditRecord(v)
		b, _ := json.Marshal(rec)
		want[rec.EntityKey+"|"+rec.ID] = string(b)
	}
	if len(want) != 3*5+2 {
		t.Fatalf("%d versions written, want 17", len(want))
	}
	return want
}

// checkGolden pins what the records of writeHistory must be, independently
// of the code that builds them: for each todo its versions, their ids,
// partition key, operation, actor and snapshot title.
func checkGolden(t *testing.T, ids []string, recs map[string]string) {
	t.Helper()
	type golden struct {
		version int64
		op      string
		title   string
	}
	for i, id := range ids {
		versions := []golden{{1, "create", fmt.Sprint("t", i)}}
		for j := range 4 {
			versions = append(versions, golden{int64(j + 2), "update", fmt.Sprint("t", i, "-", j)})
		}
		if i == 1 {
			versions = append(versions, golden{6, "delete", "t1-3"}, golden{7, "rollback", "t1-0"})
		}
		for _, g := range versions {
			key := "todo/alice/" + id
			raw, ok := recs[key+"|"+id+":v"+fmt.Sprint(g.version)]
			if !ok {
				t.Fatalf("no record %s:v%d under %s", id, g.version, key)
			}
			var rec struct {
				ID, EntityKey, EntityID, EntityType, Operation, Actor string
				Version                                               int64
				Entity                                                struct {
					ID, Title, UserID string
					Version           int64
				}
			}
			if err := json.Unmarshal([]byte(raw), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.EntityID != id || rec.EntityType != "todo" || rec.Version != g.version || rec.Operation != g.op ||
				rec.Actor != "alice" || rec.Entity.ID != id || rec.Entity.Title != g.title ||
				rec.Entity.UserID != "alice" || rec.Entity.Version != g.version {
				t.Fatalf("record %s:v%d = %s; want %s by alice with title %q", id, g.version, raw, g.op, g.title)
			}
		}
	}
}

// batches reads the whole change feed in batches of n.
func (e *env) batches(t *testing.T, n int) [][]json.RawMessage {
	t.Helper()
	var out [][]json.RawMessage
	cont := ""
	for {
		b, err := e.todos.ChangeFeed(context.Background(), cont, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) == 0 {
			return out
		}
		var docs []json.RawMessage
		for _, it := range b.Items {
			docs = append(docs, it.Body)
		}
		out = append(out, docs)
		cont = b.Continuation
	}
}

// postTrigger sends a batch of change-feed documents to the trigger at url
// in the host's envelope and headers, and returns its decoded answer.
func postTrigger(t *testing.T, url string, docs []json.RawMessage, at time.Time) *azfunc.InvokeResult {
	t.Helper()
	inv, _ := azfunc.NewTriggerRequest("AuditTrigger", "documents", docs, at, "6b6e3a9a-8d0c-4c47-9d6c-0f0a3b0b8b11")
	body, _ := json.Marshal(inv)
	req, _ := http.NewRequest(http.MethodPost, url, bytesReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Azure-Functions-InvocationId", "0d2c9a4e-5a7b-4f6e-8a59-3c1f2f0a9e77")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := azfunc.DecodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// invoke sends a batch to the trigger as the host would and applies the
// output as the host's cosmosDB output binding does: one upsert per item.
func (e *env) invoke(t *testing.T, url string, docs []json.RawMessage) {
	t.Helper()
	out := postTrigger(t, url, docs, time.Now())
	var items []json.RawMessage
	if err := json.Unmarshal(out.Outputs["auditRecords"], &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		var head struct {
			EntityKey string `json:"entityKey"`
		}
		if err := json.Unmarshal(it, &head); err != nil || head.EntityKey == "" {
			t.Fatalf("output item without entityKey: %s", it)
		}
		if _, err := e.audit.Upsert(context.Background(), store.PartitionKey{head.EntityKey}, it, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// newPump returns a pump over e that audits in-process, as the standalone
// handler's does, writing its records through records.
func (e *env) newPump(t *testing.T, records store.Container, leases store.Container) *pump.Pump {
	t.Helper()
	p, err := pump.New(e.todos, records, leases, trigger.New("todos", quiet), quiet)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// failingAudit is the audit container whose nth transaction (or batch,
// for a store that has no transactions) fails, as a store that stops
// answering for a moment; it counts the writes.
type failingAudit struct {
	store.Container
	fail   int32
	writes atomic.Int32
}

func (f *failingAudit) write() error {
	if f.writes.Add(1) == f.fail {
		return todo.Errorf(todo.Unavailable, "injected: the audit container does not answer")
	}
	return nil
}

func (f *failingAudit) UpsertAtomically(ctx context.Context, ups []store.Upsert) (bool, error) {
	if err := f.write(); err != nil {
		return true, err
	}
	return store.UpsertAtomically(ctx, f.Container, ups)
}

// stored returns the audit container's records without system properties
// (and without their activity entries).
func (e *env) stored(t *testing.T) map[string]string {
	t.Helper()
	got := map[string]string{}
	page, err := e.audit.Query(context.Background(), store.Query{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range page.Items {
		var rec todo.AuditRecord
		if err := json.Unmarshal(it.Body, &rec); err != nil {
			t.Fatal(err)
		}
		if todo.IsActivityKey(rec.EntityKey) {
			continue // the activity view's copy
		}
		b, _ := json.Marshal(rec)
		got[rec.EntityKey+"|"+rec.ID] = string(b)
	}
	return got
}

func same(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d audit records, want %d", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Fatalf("record %s:\n got %s\nwant %s", k, got[k], w)
		}
	}
}

func triggerServer(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	tr, err := invocation.NewAuditTrigger(trigger.New("todos", quiet), quiet)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = tr
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRedeliveredBatches(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	url := triggerServer(t, nil)
	for _, b := range e.batches(t, 4) {
		for range 3 {
			e.invoke(t, url, b)
		}
	}
	same(t, e.stored(t), want)
}

func TestReorderedBatches(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	url := triggerServer(t, nil)
	bs := e.batches(t, 3)
	for i := len(bs) - 1; i >= 0; i-- {
		e.invoke(t, url, bs[i])
	}
	same(t, e.stored(t), want)
}

// A todo document without its version document is audited when it is of
// the first chain encoding (another tool wrote it), as its version document
// would have been; one of the second is audited through its version
// document only, which holds the seed of the salts its record needs.
func TestTodoWithoutVersionIsAudited(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	url := triggerServer(t, nil)
	var todosOnly []json.RawMessage
	for _, b := range e.batches(t, 100) {
		for _, d := range b {
			var head struct{ Type string }
			_ = json.Unmarshal(d, &head)
			if head.Type == todo.TypeTodo {
				todosOnly = append(todosOnly, d)
			}
		}
	}
	e.invoke(t, url, todosOnly)
	if got := e.stored(t); len(got) != 0 {
		t.Fatalf("%d records from todo documents of the second chain encoding alone", len(got))
	}
	// The same documents as the first encoding wrote them: no "chain", so
	// no commitments either.
	for i, d := range todosOnly {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(d, &m)
		delete(m, "chain")
		todosOnly[i], _ = json.Marshal(m)
	}
	e.invoke(t, url, todosOnly)
	got := e.stored(t)
	if len(got) != 3 {
		t.Fatalf("%d records from the 3 live todo documents", len(got))
	}
	for k, g := range got {
		var rec todo.AuditRecord
		_ = json.Unmarshal([]byte(want[k]), &rec)
		rec.Chain, rec.Commitments, rec.Seed = 0, nil, ""
		if w, _ := json.Marshal(rec); string(w) != g {
			t.Fatalf("todo-derived record %s differs from the version-derived one:\n%s\n%s", k, g, w)
		}
	}
}

// The pump retries a failed write of a batch with the policy's delays,
// advances its continuation only after success, and loses nothing.
func TestPumpRetriesFailedWrite(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	batches := int32(len(e.batches(t, 5)))
	records := &failingAudit{Container: e.audit, fail: 2}
	p := e.newPump(t, records, e.leases)
	p.BatchSize, p.Delays = 5, []time.Duration{time.Millisecond}
	p.Drain(context.Background())
	same(t, e.stored(t), want)
	// One transaction per batch, and the failed one again.
	if n := records.writes.Load(); n != batches+1 {
		t.Fatalf("%d transactions, want %d and one retried", n, batches)
	}
	// A second pump resumes from the saved continuation: nothing to write.
	p.Drain(context.Background())
	if n := records.writes.Load(); n != batches+1 {
		t.Fatalf("a drained pump wrote %d batches again", n-batches-1)
	}
}

// The pump retires the version documents it audits, in the transaction
// that writes their records; a write that read the audit just before the
// pump got there still does not write a version twice: the retired
// version's id is taken, so it reads the history again and writes the
// version after it.
func TestPumpRetiresAuditedVersions(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	p := e.newPump(t, e.audit, e.leases)
	p.Reserve = time.Minute
	p.Drain(context.Background())
	same(t, e.stored(t), want)
	if n := e.versionDocuments(t); n != 0 {
		t.Fatalf("%d version documents left once audited, want none", n)
	}

	ctx := service.WithUser(context.Background(), "alice")
	r, err := e.svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "milk"})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Todo.ID
	if err := e.svc.Delete(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	late := &auditedAfterQuery{Container: e.audit, then: func() { p.Drain(context.Background()) }}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	svc := service.New(sch, e.todos, late, nil)
	res, err := svc.Put(ctx, id, todo.Fields{Category: "Grocery", Title: "oat milk"}, "", true)
	if err != nil || res.Todo.Version != 3 {
		t.Fatalf("re-create while the pump audits: version %d, %v; want version 3", res.Todo.Version, err)
	}
	p.Drain(context.Background())
	v, err := e.svc.Verify(ctx, id, service.VerifyStep{})
	if err != nil || !v.Verified || v.Versions != 3 {
		t.Fatalf("verify after the re-create: %+v, %v", v, err)
	}
	if n := e.versionDocuments(t); n != 0 {
		t.Fatalf("%d version documents left once audited, want none", n)
	}
}

// A reader of the history that reads the audit just before the pump
// audits the todo's newest version, and then finds its version document
// retired, reads the audit again rather than take the version for lost.
func TestHistoryReadWhileThePumpRetires(t *testing.T) {
	e := newEnv(t)
	p := e.newPump(t, e.audit, e.leases)
	p.Reserve = time.Minute
	ctx := service.WithUser(context.Background(), "alice")
	r, err := e.svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "milk"})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Todo.ID
	p.Drain(context.Background())
	if _, err := e.svc.Put(ctx, id, todo.Fields{Category: "Grocery", Title: "oat milk"}, "", false); err != nil {
		t.Fatal(err)
	}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	for _, read := range []struct {
		name string
		run  func(*service.Service) error
	}{
		{"asOf", func(svc *service.Service) error { _, err := svc.AsOf(ctx, id, time.Now()); return err }},
		{"diff", func(svc *service.Service) error { _, err := svc.Diff(ctx, id, 1, 3); return err }},
	} {
		late := &auditedAfterQuery{Container: e.audit, then: func() { p.Drain(context.Background()) }}
		if err := read.run(service.New(sch, e.todos, late, nil)); err != nil {
			t.Errorf("%s while the pump audits: %v", read.name, err)
		}
		if _, err := e.svc.Put(ctx, id, todo.Fields{Category: "Grocery", Title: "soy milk"}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	// The todo is deleted; its history is read, and the pump audits the
	// delete after the history's page and its first look at the newest
	// record: the page is not the whole history.
	if err := e.svc.Delete(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	late := &auditedAfterQuery{Container: e.audit, then: func() { p.Drain(context.Background()) }, at: 2}
	h, err := service.New(sch, e.todos, late, nil).History(ctx, id, 100, "")
	if err != nil || h.Complete {
		t.Errorf("history read while the pump audits its delete: complete %v, %d items, %v; want incomplete", h.Complete, len(h.Items), err)
	}
}

// versionDocuments counts the version documents in the todo container.
func (e *env) versionDocuments(t *testing.T) int {
	t.Helper()
	q := store.Query{PageSize: 1000, Filters: []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}}}
	page, err := e.todos.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

// auditedAfterQuery is the audit container whose query number at (the
// first when 0) answers as the container stood before then ran: a reader
// overtaken by the pump.
type auditedAfterQuery struct {
	store.Container
	then    func()
	at, ran int
}

func (a *auditedAfterQuery) Query(ctx context.Context, q store.Query) (store.Page, error) {
	p, err := a.Container.Query(ctx, q)
	if a.ran++; a.ran == max(a.at, 1) {
		a.then()
	}
	return p, err
}

// A pump told of the store's commits audits a change at once, with no
// poll: its fallback poll here is an hour.
func TestPumpWokenByCommits(t *testing.T) {
	e := newEnv(t)
	p := e.newPump(t, e.audit, e.leases)
	p.Changed, p.Poll = e.store.Changed, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	defer func() { cancel(); <-done }()
	want := e.writeHistory(t)
	deadline := time.After(30 * time.Second)
	for {
		changed := e.store.Changed()
		if got := e.stored(t); len(got) == len(want) {
			same(t, got, want)
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("after 30 s, %d of %d records audited", len(e.stored(t)), len(want))
		}
	}
}

// Reconcile refills history from version documents when batches were lost.
func TestReconcileRefillsLostBatches(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	url := triggerServer(t, nil)
	for i, b := range e.batches(t, 3) {
		if i%2 == 0 {
			continue // lost after the host's retries
		}
		e.invoke(t, url, b)
	}
	if len(e.stored(t)) == len(want) {
		t.Fatal("no batch was lost")
	}
	res, err := (&reconcile.Reconciler{Todos: e.todos, Audit: e.audit, Leases: e.leases, Log: quiet}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	same(t, e.stored(t), want)
	if res.Versions != len(want) || res.Refilled == 0 {
		t.Fatalf("reconcile result %+v", res)
	}
}

func bytesReader(b []byte) io.Reader { return &byteReader{b: b} }

// byteReader hides the length, so the request is chunked as the host's is.
type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
