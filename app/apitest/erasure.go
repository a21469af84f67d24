package apitest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/export"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/transparency"
)

// Erasure runs the erasure's cases through the API: alice's todos, with
// updates, a delete, a move (where the scheme keys on category) and an
// idempotent create, are erased by an administrator (admin must hold the
// admin role), after a legal hold on her was refused and released; then
// no byte of her titles, notes or tags is in the store (scan returns every
// byte the store holds), every chain, inclusion proof and checkpoint still
// verifies, history, diffs and exports show the fields as erased, her
// todo takes new writes, bob's data is as it was, and the erasure is in the
// admin audit view. Her own DELETE /api/me/data is idempotent and
// pollable too. settle must bring the audit up to date and run the log's
// integrator. retires says the store retires version documents once
// audited (the embedded store does): then only a move's are left to erase.
func Erasure(t *testing.T, admin *Client, scheme string, scan func() []byte, settle func(), retires bool) {
	e := &erasureCase{admin: admin, alice: admin.As("alice"), bob: admin.As("bob"), scan: scan, settle: settle}
	e.write(t, scheme)
	e.refusedUnderHold(t)
	job := e.erase(t)
	verifier, versions := e.checkHistories(t)
	erased := job["erased"].(map[string]any)
	retained := versions
	if retires {
		retained = e.moveVersions
	}
	if erased["records"] != float64(versions) || erased["versions"] != float64(retained) || erased["idempotency"] != 1.0 || erased["activity"].(float64) < 1 {
		t.Errorf("the erasure counted %v, want %d records, %d version documents and 1 idempotency record", job, versions, retained)
	}
	e.takesNewWrites(t)
	e.othersUntouched(t)
	e.ownUnderHold(t, job)
	ErasedExports(t, admin, "alice", verifier, settle)
}

// erasureCase is what the steps of Erasure share: its users, the store's
// view, the marks alice's and bob's values carry, and the todos written
// before the erasure.
type erasureCase struct {
	admin, alice, bob *Client
	scan              func() []byte
	settle            func()

	aliceMark, bobMark string
	ids                []string // every todo of alice's
	updated            string   // alice's todo with two versions
	kept               string   // bob's todo
	moveVersions       int      // version documents a move leaves
	bobBefore          [][]byte // bob's todo and its history before the erasure
}

// write has alice and bob write their todos, and checks that alice's
// values and every version's seed are in the store.
func (e *erasureCase) write(t *testing.T, scheme string) {
	mark := func(who string) string {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		return who + "Secret" + hex.EncodeToString(b)
	}
	e.aliceMark, e.bobMark = mark("alice"), mark("bob")
	am, bm := e.aliceMark, e.bobMark
	fields := func(m, category string, n int) map[string]any {
		// Notes of a few kilobytes span pages of their own, which bbolt
		// frees, old bytes and all, when they change.
		return map[string]any{"category": category, "title": fmt.Sprintf("title %s %d", m, n),
			"notes": strings.Repeat(fmt.Sprintf("notes %s %d ", m, n), 200), "tags": []string{fmt.Sprintf("tag%s%d", m, n)}}
	}
	create := func(c *Client, body map[string]any, headers ...string) string {
		return Want(t, c.Do("POST", "/api/todos", body, headers...), 201).JSON(t)["id"].(string)
	}
	alice, bob := e.alice, e.bob
	for n := range 10 {
		e.ids = append(e.ids, create(alice, fields(am, "Work", 10+n)))
	}
	e.updated = create(alice, fields(am, "Work", 1))
	Want(t, alice.Do("PUT", "/api/todos/"+e.updated, fields(am, "Work", 2)), 200)
	deleted := create(alice, fields(am, "Work", 3), "Idempotency-Key: erasure-create-1")
	Want(t, alice.Do("DELETE", "/api/todos/"+deleted, nil), 204)
	e.ids = append(e.ids, e.updated, deleted)
	if scheme != "synthetic" {
		e.moveVersions = 2 // the mark and the moved todo's first version
		moved := create(alice, fields(am, "Work", 4))
		e.ids = append(e.ids, moved, Want(t, alice.Do("POST", "/api/todos/"+moved+"/move", map[string]any{"category": "Home"}), 201).JSON(t)["id"].(string))
	}
	e.kept = create(bob, fields(bm, "Work", 1))
	Want(t, bob.Do("PUT", "/api/todos/"+e.kept, fields(bm, "Work", 2)), 200)
	e.settle()
	if !bytes.Contains(e.scan(), []byte(am)) {
		t.Fatal("alice's values are not in the store before the erasure: the scan sees nothing")
	}
	// Versions are stored with the seed their salts follow from, which
	// an erasure must not leave behind: it would give the erased salts
	// back. Only bob's two versions keep theirs.
	if n := len(seeds(e.scan())); n < len(e.ids)+2 {
		t.Fatalf("%d seeds in the store for at least %d versions", n, len(e.ids)+2)
	}
	e.bobBefore = [][]byte{Want(t, bob.Do("GET", "/api/todos/"+e.kept, nil), 200).Body,
		Want(t, bob.Do("GET", "/api/todos/"+e.kept+"/history", nil), 200).Body}
}

// refusedUnderHold checks that a legal hold on her, or on one of her
// todos, refuses an administrator's erasure, naming the hold.
func (e *erasureCase) refusedUnderHold(t *testing.T) {
	admin := e.admin
	for _, hold := range []map[string]any{{"userId": "alice", "reason": "litigation"}, {"todoId": e.updated, "reason": "litigation"}} {
		h := Want(t, admin.Do("POST", "/api/manage/holds", hold), 201).JSON(t)
		refused := Want(t, admin.Do("POST", "/api/manage/erasures", map[string]any{"userId": "alice", "reason": "GDPR request"}), 409)
		if !bytes.Contains(refused.Body, []byte(h["id"].(string))) {
			t.Errorf("the administrator's refusal does not name the hold: %s", refused.Body)
		}
		Want(t, admin.Do("DELETE", "/api/manage/holds/"+h["id"].(string), nil), 204)
	}
	Want(t, e.bob.Do("GET", "/api/me/erasure", nil), 404)
}

// erase has the administrator erase alice, waits for it, and checks that
// the store keeps none of her values or seeds and all of bob's. It
// returns the erasure's final status.
func (e *erasureCase) erase(t *testing.T) map[string]any {
	r := Want(t, e.admin.Do("POST", "/api/manage/erasures", map[string]any{"userId": "alice", "reason": "GDPR request"}), 202)
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, "/api/manage/erasures/erasure-") || r.JSON(t)["userId"] != "alice" {
		t.Fatalf("erasure answered %v %s", r.Header, r.Body)
	}
	job := WaitErasure(t, e.admin, loc)
	e.settle()
	if left := seeds(e.scan()); len(left) > 2 {
		t.Errorf("after the erasure the store holds %d seeds, more than bob's two versions", len(left))
	}
	if got := e.scan(); bytes.Contains(got, []byte(e.aliceMark)) {
		i := bytes.Index(got, []byte(e.aliceMark))
		t.Fatalf("after the erasure the store still holds alice's values: …%q…", got[max(0, i-200):min(len(got), i+100)])
	}
	if !bytes.Contains(e.scan(), []byte(e.bobMark)) {
		t.Fatal("bob's values are gone too")
	}
	return job
}

// checkHistories checks that every chain, proof and checkpoint of hers
// verifies, and that history, diffs and exports show what was erased. It
// returns the log's verifier and the number of her versions.
func (e *erasureCase) checkHistories(t *testing.T) (note.Verifier, int) {
	admin, alice := e.admin, e.alice
	key := string(Want(t, admin.As("").Do("GET", "/api/log/key", nil), 200).Body)
	verifier, err := transparency.NewVerifier(key)
	if err != nil {
		t.Fatal(err)
	}
	versions := 0
	for _, id := range e.ids {
		versions += checkErasedHistory(t, alice, verifier, id)
	}
	updated := e.updated
	if d := Want(t, alice.Do("GET", "/api/todos/"+updated+"/history/diff?from=1&to=2", nil), 200).JSON(t); !strings.Contains(fmt.Sprint(d["changes"]), "erased:true") {
		t.Errorf("diff after the erasure: %v", d)
	}
	if x := Want(t, alice.Do("GET", "/api/todos/"+updated+"/history/export", nil), 200).Body; !bytes.Contains(x, []byte(`"erased":["title","notes","tags"]`)) {
		t.Errorf("export after the erasure: %s", x)
	}
	if got := Want(t, admin.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); got["verified"] != true {
		t.Errorf("log audit after the erasure: %v", got)
	}
	return verifier, versions
}

// checkErasedHistory checks that every version of todo id shows its
// fields erased and still verifies, by its proof, offline and through
// the API. It returns the number of versions.
func checkErasedHistory(t *testing.T, alice *Client, verifier note.Verifier, id string) int {
	var h struct {
		Items []struct {
			todo.AuditRecord
			Changes []map[string]any `json:"changes"`
		}
	}
	if err := json.Unmarshal(Want(t, alice.Do("GET", "/api/todos/"+id+"/history", nil), 200).Body, &h); err != nil {
		t.Fatal(err)
	}
	var records []todo.AuditRecord
	var bundles []transparency.ProofBundle
	for _, it := range h.Items {
		var e map[string]any
		_ = json.Unmarshal(it.Entity, &e)
		if !slices.Contains(it.Erased, "title") || e["title"] != "" || e["notes"] != nil || e["tags"] != nil || !it.Commitments["title"].Erased {
			t.Errorf("%s version %d after the erasure: erased %v, entity %s", id, it.Version, it.Erased, it.Entity)
		}
		if it.Version > 1 && !slices.ContainsFunc(it.Changes, func(c map[string]any) bool {
			return c["field"] == "title" && c["from"] == "erased" && c["to"] == "erased" && c["erased"] == true
		}) {
			t.Errorf("%s version %d: changes %v do not show the title erased", id, it.Version, it.Changes)
		}
		pr := Want(t, alice.Do("GET", fmt.Sprintf("/api/todos/%s/history/proof?version=%d", id, it.Version), nil), 200)
		b, err := transparency.ParseProofBundle(pr.Body)
		if err != nil {
			t.Fatal(err)
		}
		if _, leaf, err := b.Verify(verifier); err != nil || leaf.Hash != it.Hash {
			t.Errorf("proof of %s version %d: %+v %v", id, it.Version, leaf, err)
		}
		records, bundles = append(records, it.AuditRecord), append(bundles, b)
	}
	if n, err := transparency.VerifyHistory(records, bundles, verifier); err != nil || n != len(records) {
		t.Errorf("history of %s verified offline: %d of %d, %v", id, n, len(records), err)
	}
	v := Want(t, alice.Do("GET", "/api/todos/"+id+"/history/verify", nil), 200).JSON(t)
	if v["verified"] != true || v["erased"] != float64(len(h.Items)) || v["pending"] != 0.0 {
		t.Errorf("verify %s after the erasure: %v", id, v)
	}
	return len(h.Items)
}

// takesNewWrites checks that her todo keeps its id and chain and takes
// new writes.
func (e *erasureCase) takesNewWrites(t *testing.T) {
	alice, updated := e.alice, e.updated
	td := Want(t, alice.Do("GET", "/api/todos/"+updated, nil), 200).JSON(t)
	if td["title"] != "" || td["notes"] != nil || td["tags"] != nil || td["version"] != 2.0 {
		t.Errorf("her todo after the erasure: %v", td)
	}
	Want(t, alice.Do("PUT", "/api/todos/"+updated, map[string]any{"category": "Work", "title": "after"}), 200)
	e.settle()
	if v := Want(t, alice.Do("GET", "/api/todos/"+updated+"/history/verify", nil), 200).JSON(t); v["verified"] != true || v["versions"] != 3.0 || v["erased"] != 2.0 {
		t.Errorf("verify after a new write: %v", v)
	}
}

// othersUntouched checks that bob's data is as it was, and that the
// erasure is in the admin audit, by actor and by owner.
func (e *erasureCase) othersUntouched(t *testing.T) {
	for i, path := range []string{"/api/todos/" + e.kept, "/api/todos/" + e.kept + "/history"} {
		if got := Want(t, e.bob.Do("GET", path, nil), 200).Body; !bytes.Equal(got, e.bobBefore[i]) {
			t.Errorf("bob's %s changed:\n%s\n%s", path, e.bobBefore[i], got)
		}
	}
	for _, q := range []string{"actor=" + e.admin.User, "owner=alice&operation=erase"} {
		page := Want(t, e.admin.Do("GET", "/api/manage/audit?"+q, nil), 200).JSON(t)
		if !strings.Contains(fmt.Sprint(page["items"]), "entityType:erasure") || !strings.Contains(fmt.Sprint(page["items"]), "GDPR request") {
			t.Errorf("admin audit %s: %v", q, page)
		}
	}
}

// ownUnderHold checks her own erasure under a legal hold: accepted, and
// it waits until the hold is released; she is never told of the hold,
// the administrator sees it. job is the administrator's erasure of her,
// which hers runs again.
func (e *erasureCase) ownUnderHold(t *testing.T, job map[string]any) {
	admin, alice := e.admin, e.alice
	h := Want(t, admin.Do("POST", "/api/manage/holds", map[string]any{"userId": "alice", "reason": "litigation"}), 201).JSON(t)
	holdID := h["id"].(string)
	r := Want(t, alice.Do("DELETE", "/api/me/data", nil), 202)
	if r.Header.Get("Location") != "/api/me/erasure" {
		t.Fatalf("DELETE /api/me/data: %v", r.Header)
	}
	if held := waitHeld(t, admin, "/api/manage/erasures/"+job["id"].(string)); held != holdID {
		t.Errorf("the administrator sees the erasure held by %q, want %s", held, holdID)
	}
	for _, b := range [][]byte{r.Body, Want(t, alice.Do("GET", "/api/me/erasure", nil), 200).Body} {
		if bytes.Contains(b, []byte(holdID)) || bytes.Contains(b, []byte("heldBy")) || bytes.Contains(b, []byte("hold")) {
			t.Errorf("her own erasure discloses the hold: %s", b)
		}
	}
	Want(t, admin.Do("DELETE", "/api/manage/holds/"+holdID, nil), 204)
	mine := WaitErasure(t, alice, "/api/me/erasure")
	if mine["run"] != 2.0 || mine["requestedBy"] != "alice" || mine["id"] != job["id"] {
		t.Errorf("her own erasure: %v", mine)
	}
	Want(t, e.bob.Do("GET", "/api/manage/erasures/"+job["id"].(string), nil), 403)
	Want(t, admin.Do("GET", "/api/manage/erasures/erasure-00000000000000000000000000000000", nil), 404)
}

// ErasedExports checks that the activity export of a user whose data was
// erased, and an admin's export of that user, verify offline with the
// erasures' own entries in them, and that an erasure entry edited does
// not.
func ErasedExports(t *testing.T, admin *Client, user string, v note.Verifier, settle func()) {
	settle()
	tiles := logTiles(admin.As(""))
	for _, x := range []struct {
		as   *Client
		path string
	}{{admin.As(user), "/api/activity/export"}, {admin, "/api/manage/audit/export?owner=" + user}} {
		for _, accept := range []string{export.NDJSON, export.CSV} {
			b := Want(t, x.as.Do("GET", x.path, nil, "Accept: "+accept), 200).Body
			rep, err := export.Verify(bytes.NewReader(b), v, tiles)
			if err != nil || rep.Erasures == 0 {
				t.Errorf("%s (%s) after an erasure: %d erasure entries, %v", x.path, accept, rep.Erasures, err)
			}
			edited := bytes.Replace(b, []byte("GDPR request"), []byte("GDPR rEquest"), 1)
			if _, err := export.Verify(bytes.NewReader(edited), v, tiles); err == nil || !strings.Contains(err.Error(), "erasure") {
				t.Errorf("%s (%s) with an erasure entry edited: %v", x.path, accept, err)
			}
		}
	}
}

// WaitErasure polls an erasure's status resource until it is done, and
// returns it.
func WaitErasure(t *testing.T, c *Client, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := Want(t, c.Do("GET", path, nil), 200).JSON(t)
		if s["state"] == governance.ErasureDone {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("erasure %s not done after a minute: %v", path, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitHeld polls an erasure's status resource until a legal hold pauses
// it, and returns the hold's id.
func waitHeld(t *testing.T, c *Client, path string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := Want(t, c.Do("GET", path, nil), 200).JSON(t)
		if held, _ := s["heldBy"].(string); held != "" {
			return held
		}
		if time.Now().After(deadline) {
			t.Fatalf("erasure %s not held after a minute: %v", path, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// seeds returns the distinct seeds of the versions in stored bytes.
func seeds(stored []byte) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`"seed":"([0-9a-f]{32})"`).FindAllSubmatch(stored, -1) {
		out[string(m[1])] = true
	}
	return out
}
