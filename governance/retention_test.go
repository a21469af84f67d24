package governance_test

import (
	"context"
	"encoding/json"
	"log/slog"
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

// A purge removes the expired versions (and their activity entries) of
// todos no hold covers, and nothing of held ones; verification then
// reports the purged versions as purged and the rest as verified; the
// purge run, the hold and its release are governance events.
func TestPurgeSparesHeld(t *testing.T) {
	c := bolttest.Open(t, partition.Hierarchical, nil)
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	svc := service.New(sch, c.Todos, c.Audit, &service.Options{Now: clock})
	ids, hashes := map[string]string{}, map[string]string{}
	for _, u := range []string{"alice", "bob", "carol"} {
		ctx := service.WithUser(context.Background(), u)
		r, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "old"})
		if err != nil {
			t.Fatal(err)
		}
		ids[u], hashes[u] = r.Todo.ID, r.Todo.Hash
		if _, err := svc.Put(ctx, r.Todo.ID, todo.Fields{Category: "Grocery", Title: "old too"}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(400 * 24 * time.Hour) // versions 1 and 2 expire
	for _, u := range []string{"alice", "bob", "carol"} {
		if _, err := svc.Put(service.WithUser(context.Background(), u), ids[u], todo.Fields{Category: "Grocery", Title: "new"}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	rec := &reconcile.Reconciler{Todos: c.Todos, Audit: c.Audit, Leases: c.Leases, Log: slog.New(slog.DiscardHandler)}
	if _, err := rec.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	admin := service.WithUser(context.Background(), "admin")
	byUser, err := svc.CreateHold(admin, "bob", "", "litigation 2026-17")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateHold(admin, "", ids["carol"], "subpoena"); err != nil {
		t.Fatal(err)
	}
	p := &governance.Purger{Audit: c.Audit, Leases: c.Leases, Retention: 365 * 24 * time.Hour, Now: clock, PageSize: 2}
	var total governance.PurgeResult
	for range 4 { // more steps than pages: the scan starts over
		res, err := p.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		total.Purged += res.Purged
		total.Entries += res.Entries
	}
	if total.Purged != 2 || total.Entries != 2 {
		t.Fatalf("purged %+v, want alice's two expired versions and their two entries", total)
	}
	for u, want := range map[string]int{"alice": 1, "bob": 3, "carol": 3} {
		ctx := service.WithUser(context.Background(), u)
		h, err := svc.History(ctx, ids[u], 10, "")
		if err != nil || len(h.Items) != want || !h.Complete {
			t.Fatalf("%s: %d versions (complete %v), want %d: %v", u, len(h.Items), h.Complete, want, err)
		}
		act, err := svc.MyActivity(ctx, service.ActivityFilter{Since: now.Add(-600 * 24 * time.Hour), Until: now.Add(time.Hour), PageSize: 10})
		if err != nil || len(act.Items) != want {
			t.Fatalf("%s: %d activity entries, want %d: %v", u, len(act.Items), want, err)
		}
		v, err := svc.Verify(ctx, ids[u], service.VerifyStep{})
		if err != nil || !v.Verified {
			t.Fatalf("%s: verify %+v, %v", u, v, err)
		}
		if purged := u == "alice"; purged != (v.PurgedBefore == 3) {
			t.Fatalf("%s: purgedBefore %d", u, v.PurgedBefore)
		}
		// A step from version 2, with the hash of version 1 as it was
		// before any purge, checks versions 2 and 3, or for alice reports
		// 2 purged and checks 3.
		step := service.VerifyStep{From: 2, PrevHash: hashes[u]}
		checked := 2
		if u == "alice" {
			checked = 1
		}
		if v, err := svc.Verify(ctx, ids[u], step); err != nil || !v.Verified || v.Versions != checked || (u == "alice") != (v.PurgedBefore == 3) {
			t.Fatalf("%s: verify from 2: %+v, %v", u, v, err)
		}
	}
	if err := svc.ReleaseHold(admin, byUser.ID, ""); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := p.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if h, _ := svc.History(service.WithUser(context.Background(), "bob"), ids["bob"], 10, ""); len(h.Items) != 1 {
		t.Fatalf("after the release bob has %d versions, want 1", len(h.Items))
	}
	events := allEvents(t, c.Audit)
	counts := map[string]int{}
	for _, e := range events {
		counts[e.Action]++
		if e.Actor == "" || e.Reason == "" {
			t.Fatalf("event without actor or reason: %+v", e)
		}
	}
	if counts["hold"] != 2 || counts["release"] != 1 || counts["purge"] < 2 {
		t.Fatalf("governance events %v", counts)
	}
}

func allEvents(t *testing.T, audit store.Container) []governance.Event {
	t.Helper()
	p, err := audit.Query(context.Background(), store.Query{PartitionKey: store.PartitionKey{todo.GovernanceKey},
		Filters:  []store.Filter{{Field: "id", Op: store.Ge, Value: governance.EventIDPrefix}, {Field: "id", Op: store.Lt, Value: "event."}},
		PageSize: store.MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	var out []governance.Event
	for _, it := range p.Items {
		var e governance.Event
		_ = json.Unmarshal(it.Body, &e)
		out = append(out, e)
	}
	return out
}
