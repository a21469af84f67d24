package apitest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency"
)

// Store is a handler's store as someone with write access to it sees it:
// its containers, edited behind the handler's back.
type Store struct {
	T                    testing.TB
	Todos, Audit, Leases store.Container
	// LeafIndex is the key set the log keeps its leaves' indices in, on
	// a store that has one; nil, they are index documents in Leases.
	LeafIndex transparency.KeySet
}

// Containers opens the store's containers.
func Containers(t testing.TB, s store.Store) *Store {
	t.Helper()
	st := &Store{T: t}
	if k, ok := s.(interface{ KeySet(string) *bolt.KeySet }); ok {
		st.LeafIndex = k.KeySet(transparency.LeafIndexSet)
	}
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
	v, err := transparency.NewVerifier(string(Want(t, anyone.Do("GET", "/api/log/key", nil), 200).Body))
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
	if n, _, err := transparency.VerifyHistoryAnswer(honest, nil, v); err != nil || n != 3 {
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
	if _, _, err := transparency.VerifyHistoryAnswer(h.Body, nil, v); err == nil || !strings.Contains(err.Error(), "log holds a version of this todo after the history's newest") {
		t.Errorf("the history served after the newest versions were removed, verified offline: %v", err)
	}
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); !hasProblem(got, "missingFromStore", id, 3) {
		t.Errorf("log audit after the newest versions were removed: %v", got)
	}
}

// Edit rewrites the JSON document of c with the given id in place.
func (s *Store) Edit(c store.Container, id string, edit func(doc map[string]any)) {
	s.T.Helper()
	it, ok := s.Find(c, id)
	if !ok {
		s.T.Fatalf("no document %q to edit", id)
	}
	var doc map[string]any
	if err := json.Unmarshal(it.Body, &doc); err != nil {
		s.T.Fatal(err)
	}
	edit(doc)
	delete(doc, "_etag")
	var err error
	if it.Body, err = json.Marshal(doc); err != nil {
		s.T.Fatal(err)
	}
	s.Put(c, it)
}

// flipByte changes one byte of a log document's base64 data.
func flipByte(t testing.TB, doc map[string]any, at int) {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(doc["data"].(string))
	if err != nil || len(b) <= at {
		t.Fatalf("log document %v: %v", doc["id"], err)
	}
	b[at] ^= 1
	doc["data"] = base64.StdEncoding.EncodeToString(b)
}

// DamagedLog damages the log's documents in the store: a hash tile, then
// the stored checkpoint's signature, then a hash tile and an entry bundle
// at once. Each time health answers 503 degraded naming the log as soon
// as a reader finds the damage; the integrator repairs the first two from
// the entry bundles and the anchor, checked against both, and health is
// ok again with the same checkpoint; the third it cannot repair, so it
// signs nothing more. integrate runs the integrator (after bringing the
// audit up to date) and returns its error.
func DamagedLog(t *testing.T, c *Client, s *Store, integrate func() error) {
	anyone := c.As("")
	id := c.Create("Work", "v1")["id"].(string)
	Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": "v2"}), 200)
	if err := integrate(); err != nil {
		t.Fatal(err)
	}
	signed := Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 200).Body
	size := strings.Split(string(signed), "\n")[1]
	proof := "/api/todos/" + id + "/history/proof?version=1"
	Want(t, c.Do("GET", proof, nil), 200)
	degraded := func(what string) {
		t.Helper()
		if h := Want(t, anyone.Do("GET", "/api/health", nil), 503).JSON(t); h["status"] != "degraded" || !strings.Contains(fmt.Sprint(h["store"]), "transparency log") {
			t.Fatalf("health after %s: %v", what, h)
		}
	}
	repaired := func(what string) {
		t.Helper()
		if err := integrate(); err != nil {
			t.Fatalf("integrating after %s: %v", what, err)
		}
		Want(t, anyone.Do("GET", "/api/health", nil), 200)
		Want(t, c.Do("GET", proof, nil), 200)
		if got := Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 200).Body; string(got) != string(signed) {
			t.Fatalf("checkpoint after %s repaired:\n%s\nwas\n%s", what, got, signed)
		}
		if v := Want(t, c.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200).JSON(t); v["verified"] != true {
			t.Fatalf("verify after %s repaired: %v", what, v)
		}
	}

	tile := "tlog-tile-tile_0_000.p_" + size
	s.Edit(s.Leases, tile, func(doc map[string]any) { flipByte(t, doc, 0) })
	Want(t, c.Do("GET", proof, nil), 500)
	degraded("a damaged hash tile")
	repaired("a damaged hash tile")

	s.Edit(s.Leases, "tlog-checkpoint", func(doc map[string]any) {
		note := doc["note"].(string)
		i := strings.LastIndex(note, "\n") - 3
		doc["note"] = note[:i] + string(rune('A'+(note[i]-'A'+1)%26)) + note[i+1:]
	})
	Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 500)
	degraded("a checkpoint with a broken signature")
	repaired("a checkpoint with a broken signature")

	// A damaged bundle of leaves the state no longer holds (an append
	// since) leaves nothing to rebuild the tile from.
	c.Create("Work", "another")
	if err := integrate(); err != nil {
		t.Fatal(err)
	}
	signed = Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 200).Body
	s.Edit(s.Leases, "tlog-tile-tile_0_000.p_"+strings.Split(string(signed), "\n")[1], func(doc map[string]any) { flipByte(t, doc, 0) })
	s.Edit(s.Leases, "tlog-tile-tile_entries_000.p_"+size, func(doc map[string]any) { flipByte(t, doc, 40) })
	Want(t, c.Do("GET", proof, nil), 500)
	degraded("a damaged tile and bundle")
	c.Create("Work", "later")
	if err := integrate(); err == nil {
		t.Fatal("the integrator signs over a damaged tile and bundle")
	}
	degraded("a damaged tile and bundle, integrated")
	if got := Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 200).Body; string(got) != string(signed) {
		t.Fatalf("a checkpoint signed over damage:\n%s", got)
	}
}

// AuditedIndexAndContent edits what the admin's audit of the log must
// check besides the leaves: the index document of a version of c's,
// pointed at another user's leaf, then the content of one of c's audit
// records, its hash left alone. settle must bring the audit history up to
// date and run the integrator; c must be an admin.
func AuditedIndexAndContent(t *testing.T, c *Client, s *Store, settle func()) {
	mine := c.Create("Work", "mine")["id"].(string)
	theirs := c.As("bob").Create("Work", "theirs")["id"].(string)
	settle()
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); got["verified"] != true {
		t.Fatalf("log audit before: %v", got)
	}
	index := func(as *Client, id string) float64 {
		return Want(t, as.Do("GET", "/api/todos/"+id+"/history/proof?version=1", nil), 200).JSON(t)["index"].(float64)
	}
	at, other := index(c, mine), index(c.As("bob"), theirs)
	undo := s.relocate(int64(at), int64(other))
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); got["verified"] != false || !hasProblem(got, "indexDiffers", mine, 1) {
		t.Errorf("log audit with an index document pointed at another user's leaf: %v", got)
	}
	undo()
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); got["verified"] != true {
		t.Fatalf("log audit with the index put back: %v", got)
	}

	s.Edit(s.Audit, todo.AuditID(mine, 1), func(d map[string]any) {
		d["entity"].(map[string]any)["title"] = "not mine"
	})
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); got["verified"] != false || !hasProblem(got, "contentDiffers", mine, 1) {
		t.Errorf("log audit with a record edited, its hash left alone: %v", got)
	}
}

// relocate points the one version the log's index locates at leaf from at
// leaf to instead: its index document, or its entry in the key set (the
// leaf's index, an unsigned varint). undo points it back.
func (s *Store) relocate(from, to int64) (undo func()) {
	s.T.Helper()
	ctx := context.Background()
	if s.LeafIndex == nil {
		p, err := s.Leases.Query(ctx, store.Query{Filters: []store.Filter{{Field: "index", Op: store.Eq, Value: from}}, PageSize: 2})
		if err != nil || len(p.Items) != 1 {
			s.T.Fatalf("the index document of leaf %d: %d found, %v", from, len(p.Items), err)
		}
		id := p.Items[0].ID
		s.Edit(s.Leases, id, func(d map[string]any) { d["index"] = to })
		return func() { s.Edit(s.Leases, id, func(d map[string]any) { d["index"] = from }) }
	}
	var keys [][]byte
	err := s.LeafIndex.Each(ctx, func(k, v []byte) bool {
		if i, n := binary.Uvarint(v); n == len(v) && int64(i) == from {
			keys = append(keys, bytes.Clone(k))
		}
		return true
	})
	if err != nil || len(keys) != 1 {
		s.T.Fatalf("the index entry of leaf %d: %d found, %v", from, len(keys), err)
	}
	point := func(at int64) {
		if err := s.LeafIndex.Put(ctx, keys, [][]byte{binary.AppendUvarint(nil, uint64(at))}, nil); err != nil {
			s.T.Fatal(err)
		}
	}
	point(to)
	return func() { point(from) }
}

// TamperedEvidence edits a record of c's in the store, its hash left
// alone: history and its export still serve the todo, the record as
// stored and marked in the history, so that an auditor reads what was
// tampered; the export then fails verification on that record. An HTTP
// error answer saved in place of a history or a proof is said to be one.
// settle must bring the audit history up to date and run the integrator.
func TamperedEvidence(t *testing.T, c *Client, s *Store, settle func()) {
	id := c.Create("Work", "v1")["id"].(string)
	Want(t, c.Do("PUT", "/api/todos/"+id, map[string]any{"category": "Work", "title": "v2"}), 200)
	settle()
	s.Edit(s.Audit, todo.AuditID(id, 1), func(d map[string]any) { d["entity"].(map[string]any)["title"] = "rewritten" })

	var h struct {
		Items []struct {
			Version    int64
			Entity     map[string]any
			Unverified string
		}
	}
	if err := json.Unmarshal(Want(t, c.Do("GET", "/api/todos/"+id+"/history", nil), 200).Body, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Items) != 2 || h.Items[0].Entity["title"] != "rewritten" || !strings.Contains(h.Items[0].Unverified, "does not match its hash") ||
		h.Items[1].Unverified != "" {
		t.Errorf("history of a todo with a tampered record: %+v", h.Items)
	}
	x := Want(t, c.Do("GET", "/api/todos/"+id+"/history/export", nil), 200).Body
	v, err := transparency.NewVerifier(string(Want(t, c.As("").Do("GET", "/api/log/key", nil), 200).Body))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := export.Verify(bytes.NewReader(x), v, logTiles(c.As(""))); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("the export of a todo with a tampered record verified: %v", err)
	}

	problem := Want(t, c.Do("GET", "/api/todos/"+id+"/history/proof?version=9", nil), 404).Body
	if _, _, err := transparency.VerifyHistoryAnswer(problem, nil, v); err == nil || !strings.Contains(err.Error(), "HTTP error answer") {
		t.Errorf("an HTTP error saved as a history: %v", err)
	}
	if _, err := transparency.ParseProofBundle(problem); err == nil || !strings.Contains(err.Error(), "HTTP error answer") {
		t.Errorf("an HTTP error saved as a proof: %v", err)
	}
	if _, err := export.Verify(bytes.NewReader(problem), v, nil); err == nil || !strings.Contains(err.Error(), "HTTP error answer") {
		t.Errorf("an HTTP error saved as an export: %v", err)
	}
}
