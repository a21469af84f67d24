package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/service"
)

// randomFields draws the next content of a todo from a small alphabet, so
// that consecutive versions sometimes agree on a field and sometimes not.
func randomFields(r *rand.Rand) todo.Fields {
	f := todo.Fields{Category: "Grocery", Title: []string{"milk", "eggs", "bread"}[r.IntN(3)], IsCompleted: r.IntN(2) == 0}
	if r.IntN(2) == 0 {
		f.Notes = []string{"", "aisle 3", "organic"}[r.IntN(3)]
	}
	if r.IntN(2) == 0 {
		d := time.Date(2026, 12, 1+r.IntN(3), 9, 0, 0, 0, time.UTC)
		f.DueDate = &d
	}
	for _, tag := range []string{"x", "y", "z", "w"} {
		if r.IntN(2) == 0 {
			f.Tags = append(f.Tags, tag)
		}
	}
	return f
}

// differing is the set of fields whose JSON values differ, computed apart
// from the diff under test.
func differing(a, b todo.Fields) []string {
	var va, vb map[string]any
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	_ = json.Unmarshal(ra, &va)
	_ = json.Unmarshal(rb, &vb)
	var out []string
	for _, f := range []string{"category", "title", "notes", "dueDate", "tags", "isCompleted"} {
		if !reflect.DeepEqual(va[f], vb[f]) {
			out = append(out, f)
		}
	}
	return out
}

// For random sequences of updates and rollbacks, the patch of every pair
// of versions turns the first's entity into the second's, the changes
// name exactly the fields that differ, and each history item carries the
// changes from the version before it (none for version 1).
func TestDiffEveryPair(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 1))
		svc, c := newService(t)
		ctx := service.WithUser(context.Background(), "alice")
		res, err := svc.Create(ctx, randomFields(r))
		if err != nil {
			t.Fatal(err)
		}
		id := res.Todo.ID
		for range 6 + r.IntN(6) {
			if r.IntN(5) == 0 {
				_, err = svc.Rollback(ctx, id, 1+r.Int64N(res.Todo.Version), "")
			} else {
				_, err = svc.Put(ctx, id, randomFields(r), "", false)
			}
			if err != nil {
				t.Fatal(err)
			}
			res, _ = svc.Get(ctx, id)
		}
		reconcileAll(t, c)
		p, err := svc.History(ctx, id, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		items := p.Items
		for i, it := range items {
			switch {
			case i == 0 && it.Changes != nil:
				t.Fatalf("seed %d: version 1 has changes %v", seed, *it.Changes)
			case i > 0 && it.Changes == nil:
				t.Fatalf("seed %d: version %d has no changes", seed, it.Version)
			}
		}
		for _, a := range items {
			for _, b := range items {
				d, err := svc.Diff(ctx, id, a.Version, b.Version)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := json.Marshal(d.Patch)
				patch, err := jsonpatch.DecodePatch(raw)
				if err != nil {
					t.Fatalf("patch %s does not decode: %v", raw, err)
				}
				got, err := patch.Apply(a.Entity)
				if err != nil {
					t.Fatalf("v%d→v%d: patch %s does not apply: %v", a.Version, b.Version, raw, err)
				}
				if !jsonpatch.Equal(got, b.Entity) {
					t.Fatalf("v%d→v%d: patched\n%s\nwant\n%s", a.Version, b.Version, got, b.Entity)
				}
				var ta, tb todo.Todo
				_ = json.Unmarshal(a.Entity, &ta)
				_ = json.Unmarshal(b.Entity, &tb)
				var fields []string
				for _, c := range d.Changes {
					fields = append(fields, c.Field)
				}
				if want := differing(ta.Fields, tb.Fields); !slices.Equal(fields, want) {
					t.Fatalf("v%d→v%d: changes %v, want %v", a.Version, b.Version, fields, want)
				}
				if b.Version == a.Version+1 {
					x, _ := json.Marshal(d.Changes)
					y, _ := json.Marshal(*b.Changes)
					if !bytes.Equal(x, y) {
						t.Fatalf("v%d: history changes %s, diff %s", b.Version, y, x)
					}
				}
			}
		}
	}
}

// A history item appends what json.Marshal writes: the record's
// properties and then its changes, of every kind a change's values take.
func TestHistoryItemAppendJSON(t *testing.T) {
	at := time.Date(2026, 12, 6, 7, 13, 53, 51000000, time.UTC)
	rec := todo.AuditRecord{ID: "Grocery:0d:v2", EntityKey: "todo/alice/Grocery:0d", EntityID: "Grocery:0d", EntityType: todo.EntityTypeTodo,
		Version: 2, Operation: todo.OpUpdate, Entity: json.RawMessage(`{"id":"Grocery:0d","title":"a\u003cb"}`), DateCreatedUTC: at,
		Actor: "alice", PrevHash: "0f", Hash: "1e", Chain: 3, Commitments: todo.Commitments{"title": {Salt: "ab", Digest: "cd"}, "notes": {Digest: "ef", Erased: true}},
		Erased: []string{"notes"}}
	changes := []service.Change{
		{Field: "title", From: "<milk>", To: "eggs & \u2028"},
		{Field: "notes", From: service.ErasedValue, To: nil, Erased: true},
		{Field: "dueDate", From: nil, To: "2026-12-01T09:00:00Z"},
		{Field: "tags", From: []any{"x"}, To: []any{"y", "x"}, Added: []string{"y"}},
		{Field: "isCompleted", From: false, To: true},
		{Field: "n", From: 1.5, To: map[string]any{"a": []any{nil, "\xff"}}, Removed: []string{"<"}},
		{Field: "tags", From: []any(nil), To: []any{}},
	}
	none := []service.Change{}
	for _, it := range []service.HistoryItem{{AuditRecord: rec}, {AuditRecord: rec, Changes: &none}, {AuditRecord: rec, Changes: &changes}} {
		got, err := it.AppendJSON(nil)
		want, wantErr := json.Marshal(it)
		if err != nil || wantErr != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendJSON:\n got %s, %v\nwant %s, %v", got, err, want, wantErr)
		}
	}
}
