package apitest

import (
	"context"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/tlog"
)

// Store is a handler's store as someone with write access to it sees it:
// its containers, edited behind the handler's back.
type Store struct {
	T                    testing.TB
	Todos, Audit, Leases store.Container
}

// Containers opens the store's containers.
func Containers(t testing.TB, s store.Store) *Store {
	t.Helper()
	st := &Store{T: t}
	for name, c := range map[string]*store.Container{"todos": &st.Todos, "audit": &st.Audit, "leases": &st.Leases} {
		var err error
		if *c, err = s.Container(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// Find returns the item of c with the given id, wherever its partition;
// ok is false when there is none.
func (s *Store) Find(c store.Container, id string) (store.Item, bool) {
	s.T.Helper()
	p, err := c.Query(context.Background(), store.Query{Filters: []store.Filter{{Field: "id", Op: store.Eq, Value: id}}, PageSize: 2})
	if err != nil {
		s.T.Fatal(err)
	}
	if len(p.Items) > 1 {
		s.T.Fatalf("two items have the id %q", id)
	}
	if len(p.Items) == 0 {
		return store.Item{}, false
	}
	return p.Items[0], true
}

// Remove deletes the item of c with the given id, if there is one.
func (s *Store) Remove(c store.Container, id string) {
	s.T.Helper()
	if it, ok := s.Find(c, id); ok {
		if err := c.Delete(context.Background(), it.PartitionKey, id, nil); err != nil {
			s.T.Fatal(err)
		}
	}
}

// Put writes an item back as it was read.
func (s *Store) Put(c store.Container, it store.Item) {
	s.T.Helper()
	if _, err := c.Upsert(context.Background(), it.PartitionKey, it.Body, nil); err != nil {
		s.T.Fatal(err)
	}
}

// LostVersions removes a todo's newest versions from the store, as
// someone with write access to it could (the audit records and version
// documents of versions 2 and 3 deleted, the todo written back as it was
// at version 1), while the log holds them: the owner's verify, the
// history (and the history verified offline, as served) and the log's
// audit must each tell. settle must bring the audit history up to date and
// run the integrator; c must be an admin.
func LostVersions(t *testing.T, c *Client, s *Store, settle func()) {
	anyone := c.As("")
	v, err := tlog.NewVerifier(string(Want(t, anyone.Do("GET", "/api/log/key", nil), 200).Body))
	if err != nil {
		t.Fatal(err)
	}
	id := c.Create("Work", "v1")["id"].(string)
	settle()
	first, ok := s.Find(s.Todos, id)
	if !ok {
		t.Fatalf("todo %s is not in the store", id)
	}
	for _, title := range []string{"v2", "v3"} {
		Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": title}), 200)
	}
	settle()
	if got := Want(t, c.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200).JSON(t); got["verified"] != true || got["logged"] != 3.0 {
		t.Fatalf("verify before: %v", got)
	}
	honest := Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200).Body
	if n, _, err := tlog.VerifyHistoryAnswer(honest, nil, v); err != nil || n != 3 {
		t.Fatalf("the honest history verified offline: %d, %v", n, err)
	}

	for _, n := range []int64{2, 3} {
		s.Remove(s.Audit, todo.AuditID(id, n))
		s.Remove(s.Todos, todo.VersionID(id, n))
	}
	s.Put(s.Todos, first)

	got := Want(t, c.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200).JSON(t)
	if got["verified"] != false || got["brokenAt"] != 2.0 || !strings.Contains(got["reason"].(string), "transparency log holds versions 2 to 3") {
		t.Errorf("verify after the newest versions were removed: %v", got)
	}
	h := Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200)
	if m := h.JSON(t); m["complete"] != false || m["loggedAfter"] == nil {
		t.Errorf("history after the newest versions were removed: complete %v, loggedAfter %v", m["complete"], m["loggedAfter"])
	}
	if _, _, err := tlog.VerifyHistoryAnswer(h.Body, nil, v); err == nil || !strings.Contains(err.Error(), "log holds version 3") {
		t.Errorf("the history served after the newest versions were removed, verified offline: %v", err)
	}
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); !hasProblem(got, "missingFromStore", id, 3) {
		t.Errorf("log audit after the newest versions were removed: %v", got)
	}
}
