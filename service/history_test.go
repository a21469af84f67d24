package service_test

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// A version missing from the audit is reported as incomplete on whichever
// page it falls, page boundaries included, and on the last page when the
// newest versions are missing.
func TestHistoryCompleteness(t *testing.T) {
	svc, c := newService(t)
	auditC := c.Audit
	ctx := service.WithUser(context.Background(), "alice")
	r, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Todo.ID
	for range 4 {
		if _, err := svc.Put(ctx, id, todo.Fields{Category: "Grocery", Title: "again"}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	reconcileAll(t, c)
	pages := func(size int) (versions []int64, complete bool) {
		complete = true
		cont := ""
		for {
			p, err := svc.History(ctx, id, size, cont)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Items {
				versions = append(versions, it.Version)
			}
			complete = complete && p.Complete
			if cont = p.Continuation; cont == "" {
				return versions, complete
			}
		}
	}
	if v, ok := pages(2); len(v) != 5 || !ok {
		t.Fatalf("full history: %v complete %v", v, ok)
	}
	for _, missing := range []int64{3, 5} {
		if err := auditC.Delete(context.Background(), store.PartitionKey{todo.EntityKey("alice", id)}, todo.AuditID(id, missing), nil); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 2, 3, 10} {
			if v, ok := pages(size); ok {
				t.Fatalf("version %d missing, page size %d: %v reported complete", missing, size, v)
			}
		}
	}
	if _, err := svc.History(ctx, id, 2, "x.y"); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("malformed history token: %v", err)
	}
}

// HistoryAsStored serves the records History serves, each stored with its
// seed showing it in place of the commitments it stands for, with the same
// changes and completeness; each form's pages continue with the other's
// tokens.
func TestHistoryAsStored(t *testing.T) {
	svc, c := newService(t)
	ctx := service.WithUser(context.Background(), "alice")
	r, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Todo.ID
	for _, title := range []string{"v2", "v3", "v4"} {
		if _, err := svc.Put(ctx, id, todo.Fields{Category: "Grocery", Title: title, Tags: []string{title}}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	reconcileAll(t, c)
	read := [2]func(context.Context, string, int, string) (service.HistoryPage, error){svc.History, svc.HistoryAsStored}
	// Pages of one version alternate between the forms, one read starting
	// with each, so that each form serves every version once.
	var got [2]map[int64]service.HistoryItem
	got[0], got[1] = map[int64]service.HistoryItem{}, map[int64]service.HistoryItem{}
	for start := range 2 {
		cont := ""
		for n := start; ; n++ {
			p, err := read[n%2](ctx, id, 1, cont)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Complete || len(p.Items) != 1 {
				t.Fatalf("a page of one of a full history: %d items, complete %t", len(p.Items), p.Complete)
			}
			got[n%2][p.Items[0].Version] = p.Items[0]
			if cont = p.Continuation; cont == "" {
				break
			}
		}
	}
	if len(got[0]) != 4 || len(got[1]) != 4 {
		t.Fatalf("%d and %d versions, want 4 in each form", len(got[0]), len(got[1]))
	}
	for v, full := range got[0] {
		s, served := got[1][v], full.Served()
		if s.Seed == "" || s.Commitments != nil || served.Seed != "" || served.Commitments == nil {
			t.Fatalf("version %d: seed %q and commitments %d as stored, seed %q and commitments %d in full", v, s.Seed, len(s.Commitments), served.Seed, len(served.Commitments))
		}
		if err := hashchain.ExpandRecord(&s.AuditRecord); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.AuditRecord, served) || !reflect.DeepEqual(s.Changes, full.Changes) || s.Unverified != full.Unverified {
			t.Errorf("version %d, its seed expanded, differs from it served with its commitments", v)
		}
		// The commitments the seed gave, written as they were derived,
		// are the bytes of the same record holding them as a map.
		asMap := service.HistoryItem{AuditRecord: served, Changes: full.Changes}
		got, err := full.AppendJSON(nil)
		want, wantErr := asMap.AppendJSON(nil)
		if err != nil || wantErr != nil || !bytes.Equal(got, want) {
			t.Errorf("version %d served as\n%s, %v\nnot as\n%s, %v", v, got, err, want, wantErr)
		}
	}
}
