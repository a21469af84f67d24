// Package chaintest attacks the hash chain of todos on a store, as someone
// with write access to the data (a database administrator, a leaked key)
// would, and checks that the service notices every attack it can notice
// without an outside log: edited records, forged versions appended, a todo
// reverted or deleted behind its history's back, records that decode
// differently for a lenient and a strict reader; and that an honest
// history, one with an erased field included, verifies. It runs on every
// store.
package chaintest

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// Containers are the todo, audit and leases containers of a store opened
// for scheme (see partition.Containers).
type Containers struct {
	Todos, Audit, Leases store.Container
}

// env is one store with the service over it, and a clock that moves a
// second per write so that as-of reads can name each version.
type env struct {
	t      *testing.T
	c      Containers
	scheme partition.Scheme
	svc    *service.Service
	ctx    context.Context
	clock  time.Time
}

// Run runs every attack on the containers open gives (new ones for each),
// under the named partition scheme.
func Run(t *testing.T, scheme string, open func(t *testing.T) Containers) {
	for name, attack := range map[string]func(e *env){
		"Honest":                    honest,
		"RecordEdited":              recordEdited,
		"ForgedVersionAppended":     forgedVersionAppended,
		"TodoReverted":              todoReverted,
		"TodoDeletedWithoutVersion": todoDeleted,
		"CaseFoldedMembers":         caseFolded,
		"FieldErased":               fieldErased,
	} {
		t.Run(name, func(t *testing.T) {
			sch, err := partition.New(scheme, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			e := &env{t: t, c: open(t), scheme: sch, clock: time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)}
			e.svc = service.New(sch, e.c.Todos, e.c.Audit, &service.Options{Now: func() time.Time {
				e.clock = e.clock.Add(time.Second)
				return e.clock
			}})
			e.ctx = service.WithUser(context.Background(), "alice")
			attack(e)
		})
	}
}

// history writes a todo with versions titled v1, v2 and v3, audits them
// and returns its id.
func (e *env) history() string {
	e.t.Helper()
	r, err := e.svc.Create(e.ctx, todo.Fields{Category: "Grocery", Title: "v1", Tags: []string{"a"}})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, title := range []string{"v2", "v3"} {
		if _, err := e.svc.Put(e.ctx, r.Todo.ID, todo.Fields{Category: "Grocery", Title: title}, "", false); err != nil {
			e.t.Fatal(err)
		}
	}
	e.reconcile()
	return r.Todo.ID
}

// reconcile refills the audit from the version documents, as the
// Reconcile function does (no trigger runs here).
func (e *env) reconcile() {
	e.t.Helper()
	rec := &reconcile.Reconciler{Todos: e.c.Todos, Audit: e.c.Audit, Leases: e.c.Leases, Log: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return e.clock.Add(time.Hour) }}
	if _, err := rec.Run(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// at is the time version n of a history was written.
func at(n int) time.Time { return time.Date(2026, 11, 30, 7, 0, n, 0, time.UTC) }

func (e *env) verify(id string) service.Verification {
	e.t.Helper()
	v, err := e.svc.Verify(e.ctx, id, service.VerifyStep{})
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

// broken checks that verify reports id broken at version k, and that
// rollback to want and reading as of want's time are refused as
// unverified.
func (e *env) broken(what, id string, k int64, refused ...int64) {
	e.t.Helper()
	if v := e.verify(id); v.Verified || v.BrokenAt != k || v.Reason == "" {
		e.t.Errorf("%s: verify %+v, want broken at version %d", what, v, k)
	}
	for _, n := range refused {
		if _, err := e.svc.AsOf(e.ctx, id, at(int(n))); !todo.IsKind(err, todo.Conflict) || !strings.Contains(todo.Message(err), "does not verify") {
			e.t.Errorf("%s: as of version %d: %v, want a Conflict", what, n, err)
		}
	}
	for _, n := range refused {
		if _, err := e.svc.Rollback(e.ctx, id, n, ""); !todo.IsKind(err, todo.Conflict) || !strings.Contains(todo.Message(err), "does not verify") {
			e.t.Errorf("%s: rollback to version %d: %v, want a Conflict", what, n, err)
		}
	}
}

func (e *env) auditKey(id string) store.PartitionKey {
	return store.PartitionKey{todo.EntityKey("alice", id)}
}

func (e *env) record(id string, n int64) []byte {
	e.t.Helper()
	it, err := e.c.Audit.Read(context.Background(), e.auditKey(id), todo.AuditID(id, n))
	if err != nil {
		e.t.Fatal(err)
	}
	return it.Body
}

// queried is record n of id as a query answers it, the way the service
// reads records.
func (e *env) queried(id string, n int64) string {
	e.t.Helper()
	p, err := e.c.Audit.Query(context.Background(), store.Query{PartitionKey: e.auditKey(id), PageSize: 1,
		Filters: []store.Filter{{Field: "id", Op: store.Eq, Value: todo.AuditID(id, n)}}})
	if err != nil || len(p.Items) != 1 {
		e.t.Fatalf("query record %d: %v, %d items", n, err, len(p.Items))
	}
	return string(p.Items[0].Body)
}

func (e *env) putRecord(id string, body []byte) {
	e.t.Helper()
	if _, err := e.c.Audit.Upsert(context.Background(), e.auditKey(id), body, nil); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) todoDoc(id string) todo.Todo {
	e.t.Helper()
	pk, _ := e.scheme.Resolve("alice", id)
	it, err := e.c.Todos.Read(context.Background(), pk, id)
	if err != nil {
		e.t.Fatal(err)
	}
	var t todo.Todo
	if err := json.Unmarshal(it.Body, &t); err != nil {
		e.t.Fatal(err)
	}
	return t
}

func (e *env) putTodo(t todo.Todo) {
	e.t.Helper()
	b, _ := json.Marshal(t)
	if _, err := e.c.Todos.Upsert(context.Background(), e.scheme.KeyOf(&t), b, nil); err != nil {
		e.t.Fatal(err)
	}
}

// An honest history verifies, serves every version as of its time, rolls
// back to any of them, and stays verified through deletes, rollbacks and
// records re-encoded by the store.
func honest(e *env) {
	id := e.history()
	if v := e.verify(id); !v.Verified || v.Versions != 3 {
		e.t.Fatalf("honest history: %+v", v)
	}
	for n, title := range []string{"v1", "v2", "v3"} {
		r, err := e.svc.AsOf(e.ctx, id, at(n+1))
		if err != nil || r.Todo.Title != title {
			e.t.Fatalf("as of version %d: %q, %v", n+1, r.Todo.Title, err)
		}
	}
	if err := e.svc.Delete(e.ctx, id, ""); err != nil {
		e.t.Fatal(err)
	}
	// Not audited yet: rollback verifies the outbox's version documents.
	if r, err := e.svc.Rollback(e.ctx, id, 2, ""); err != nil || r.Todo.Title != "v2" {
		e.t.Fatalf("rollback of a deleted todo: %+v, %v", r.Todo, err)
	}
	e.reconcile()
	// A store may keep a record with other white space and escapes.
	spaced := strings.Replace(string(e.record(id, 2)), `"title":"v2"`, `"title" : "\u0076\u0032"`, 1)
	e.putRecord(id, []byte(spaced))
	if v := e.verify(id); !v.Verified || v.Versions != 5 {
		e.t.Fatalf("honest history after delete and rollback: %+v", v)
	}
	h, err := e.svc.History(e.ctx, id, 0, "")
	if err != nil || len(h.Items) != 5 || !strings.Contains(string(h.Items[1].Entity), `"title":"v2"`) {
		e.t.Fatalf("history: %v, %+v", err, h)
	}
}

// Editing a stored record breaks the chain at it.
func recordEdited(e *env) {
	id := e.history()
	orig := e.record(id, 2)
	e.putRecord(id, []byte(strings.Replace(string(orig), `"title":"v2"`, `"title":"v9"`, 1)))
	e.broken("title edited in record 2", id, 2, 2, 3)
	// History serves it as stored, marked: the evidence.
	if h, err := e.svc.History(e.ctx, id, 0, ""); err != nil || len(h.Items) < 2 || h.Items[0].Unverified != "" || h.Items[1].Unverified == "" {
		e.t.Errorf("history of an edited record: %v, want version 2 marked: %+v", err, h.Items)
	}
	// Version 1 verifies, but the time of the broken version after it
	// cannot be trusted: which version was current then is not known.
	if _, err := e.svc.AsOf(e.ctx, id, at(1)); !todo.IsKind(err, todo.Conflict) {
		e.t.Errorf("as of version 1, just before the edited version: %v, want a Conflict", err)
	}
	if r, err := e.svc.Rollback(e.ctx, id, 1, ""); err != nil || r.Todo.Title != "v1" {
		e.t.Errorf("rollback to version 1, before the edit: %+v, %v", r.Todo, err)
	}
}

// forged returns version n+1 of a todo whose newest version is the
// record prev, with the title forged, correctly sealed and chained.
func forged(e *env, prev []byte) (todo.Version, todo.AuditRecord) {
	e.t.Helper()
	_, a, err := hashchain.DecodeRecord(prev)
	if err != nil {
		e.t.Fatal(err)
	}
	var head struct{ Hash string }
	_ = json.Unmarshal(prev, &head)
	t := a.Entity
	t.Version++
	t.Title, t.LastOperation, t.UpdatedAt, t.Hash = "forged", todo.OpUpdate, at(int(t.Version)), head.Hash
	v := todo.NewVersion(t, hashchain.Seal(&t), 0)
	rec, err := todo.NewAuditRecord(v)
	if err != nil {
		e.t.Fatal(err)
	}
	return v, rec
}

// A correctly chained version appended after the newest leaves the todo
// behind its history: verify names it, and it is never served.
func forgedVersionAppended(e *env) {
	id := e.history()
	v, rec := forged(e, e.record(id, 3))
	b, _ := json.Marshal(rec)
	e.putRecord(id, b)
	e.broken("a forged version 4 in the audit", id, 4, 4)
	if r, err := e.svc.AsOf(e.ctx, id, at(2)); err != nil || r.Todo.Title != "v2" {
		e.t.Errorf("as of version 2, before the forgery: %+v, %v", r.Todo, err)
	}
	if err := e.c.Audit.Delete(context.Background(), e.auditKey(id), rec.ID, nil); err != nil {
		e.t.Fatal(err)
	}
	// The same forgery in the outbox, which rollback reads too.
	vb, _ := json.Marshal(v)
	td := e.todoDoc(id)
	if _, err := e.c.Todos.Upsert(context.Background(), e.scheme.KeyOf(&td), vb, nil); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.svc.Rollback(e.ctx, id, 4, ""); !todo.IsKind(err, todo.Conflict) {
		e.t.Errorf("rollback to a forged version document: %v, want a Conflict", err)
	}
	if v := e.verify(id); !v.Verified {
		e.t.Errorf("verify reads the audit, which is honest again: %+v", v)
	}
}

// A todo put back to an older version in one write, or given other content
// under its own version and hash, no longer matches its history.
func todoReverted(e *env) {
	id := e.history()
	cur := e.todoDoc(id)
	_, a, err := hashchain.DecodeRecord(e.record(id, 1))
	if err != nil {
		e.t.Fatal(err)
	}
	old := a.Entity
	old.Chain, old.Hash = cur.Chain, ""
	var head struct{ Hash string }
	_ = json.Unmarshal(e.record(id, 1), &head)
	old.Hash = head.Hash
	e.putTodo(old)
	e.broken("the todo reverted to version 1", id, 2, 2, 3)
	changed := cur
	changed.Title = "v1"
	e.putTodo(changed)
	e.broken("the todo's title changed in place", id, 3, 3)
	e.putTodo(cur)
	if v := e.verify(id); !v.Verified {
		e.t.Errorf("the todo put back: %+v", v)
	}
}

// A todo document deleted without a delete version is noticed.
func todoDeleted(e *env) {
	id := e.history()
	pk, _ := e.scheme.Resolve("alice", id)
	if err := e.c.Todos.Delete(context.Background(), pk, id, nil); err != nil {
		e.t.Fatal(err)
	}
	e.broken("the todo deleted without a version", id, 3)
}

// A record whose members a lenient decoder reads differently from a strict
// one (a name given twice, or in another case) is refused, and never
// served.
func caseFolded(e *env) {
	id := e.history()
	orig := string(e.record(id, 2))
	for what, body := range map[string]string{
		"case-folded": strings.Replace(orig, `"title":"v2"`, `"title":"forged","TITLE":"v2"`, 1),
		"duplicate":   strings.Replace(orig, `"title":"v2"`, `"title":"forged","title":"v2"`, 1),
	} {
		if body == orig {
			e.t.Fatal("the record has no title v2")
		}
		e.putRecord(id, []byte(body))
		if strings.Count(strings.ToLower(e.queried(id, 2)), `"title":"`) < 2 {
			// The store parsed the document and its queries answer one
			// member (the Cosmos DB test server does): what the service
			// reads is the original record again.
			if v := e.verify(id); !v.Verified {
				e.t.Errorf("%s: the store keeps one member, and the record is reported broken: %+v", what, v)
			}
			e.t.Logf("%s: the store keeps one of the members: nothing to refuse", what)
			continue
		}
		e.broken(what+" members in record 2", id, 2, 2)
		if h, err := e.svc.History(e.ctx, id, 0, ""); !todo.IsKind(err, todo.Conflict) {
			e.t.Errorf("%s: history served %d items, %v", what, len(h.Items), err)
		}
	}
}

// Erasing a field of a stored version keeps the history verified; the
// erased value is gone from what history serves, and the version cannot be
// rolled back to.
func fieldErased(e *env) {
	id := e.history()
	rec, _, err := hashchain.DecodeRecord(e.record(id, 2))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, name := range []string{"title", "tags"} {
		if err := hashchain.EraseRecord(&rec, name); err != nil {
			e.t.Fatal(err)
		}
	}
	b, _ := json.Marshal(rec)
	e.putRecord(id, b)
	if v := e.verify(id); !v.Verified || v.Versions != 3 {
		e.t.Fatalf("history with an erased field: %+v", v)
	}
	h, err := e.svc.History(e.ctx, id, 0, "")
	if err != nil || strings.Contains(string(h.Items[1].Entity), `"v2"`) || !h.Items[1].Commitments["title"].Erased {
		e.t.Fatalf("history after erasure: %v %s", err, h.Items[1].Entity)
	}
	if _, err := e.svc.Rollback(e.ctx, id, 2, ""); !todo.IsKind(err, todo.Conflict) || !strings.Contains(todo.Message(err), "erased") {
		e.t.Errorf("rollback to a version with an erased field: %v, want a Conflict", err)
	}
}
