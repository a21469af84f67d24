package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/transparency"
)

// TransparencyLog runs the transparency log's cases through the API: the
// key and checkpoint served to anyone, every version's inclusion proof to
// its owner only, verified offline with the key alone, a whole history
// verified offline, consistency between two checkpoints, the tiles giving
// the checkpoint's tree, history/verify counting logged versions, and the
// admin's audit of the log: clean while honest, then naming a todo whose
// records were deleted and a record whose hash was edited in the store.
// settle must bring the audit history up to date and run the integrator;
// c must be an admin.
func TransparencyLog(t *testing.T, c *Client, auditC store.Container, settle func()) {
	anyone := c.As("")
	v, err := transparency.NewVerifier(string(Want(t, anyone.Do("GET", "/api/log/key", nil), 200).Body))
	if err != nil {
		t.Fatal(err)
	}
	kept := c.Create("Work", "kept")["id"].(string)
	Want(t, c.Do("PUT", "/api/todos/"+kept, map[string]any{"category": "Work", "title": "kept v2"}), 200)
	gone := c.Create("Work", "gone")["id"].(string)
	edited := c.Create("Work", "edited")["id"].(string)
	settle()
	first := Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 200)
	if ct := first.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("checkpoint Content-Type %q", ct)
	}
	cp, err := transparency.OpenCheckpoint(first.Body, v)
	if err != nil || cp.Size < 4 {
		t.Fatalf("checkpoint %s: %v", first.Body, err)
	}
	checkProofs(t, c, v, kept)
	checkTiles(t, anyone, cp)
	checkConsistency(t, c, v, settle, first.Body, cp)
	if got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t); got["verified"] != true {
		t.Fatalf("audit of an honest log: %v", got)
	}
	Want(t, c.As("mallory").Do("GET", "/api/manage/log/verify", nil), 403)
	checkTampering(t, c, auditC, gone, edited)
}

// checkProofs checks the inclusion proofs of kept's two versions: each
// leaf is its version's, opened by the record, and names nothing (no
// user, todo, category or time); only the owner gets them; together they
// verify the history offline, and history/verify counts both as logged.
func checkProofs(t *testing.T, c *Client, v note.Verifier, kept string) {
	var h struct{ Items []todo.AuditRecord }
	if err := json.Unmarshal(Want(t, c.Do("GET", "/api/todos/"+kept+"/history", nil), 200).Body, &h); err != nil || len(h.Items) != 2 {
		t.Fatalf("history: %v", err)
	}
	var bundles []transparency.ProofBundle
	for version := 1; version <= 2; version++ {
		r := Want(t, c.Do("GET", fmt.Sprintf("/api/todos/%s/history/proof?version=%d", kept, version), nil), 200)
		b, err := transparency.ParseProofBundle(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := transparency.LeafOf(&h.Items[version-1])
		if _, _, err := b.Verify(v); err != nil || !bytes.Equal(b.Leaf, want.EncodeAs(transparency.LeafV2)) {
			t.Fatalf("proof of version %d: %q %v", version, b.Leaf, err)
		}
		for _, name := range []string{c.User, kept, "Work"} {
			if bytes.Contains(b.Leaf, []byte(name)) {
				t.Fatalf("the leaf of version %d names %q: %q", version, name, b.Leaf)
			}
		}
		bundles = append(bundles, b)
	}
	Want(t, c.As("mallory").Do("GET", "/api/todos/"+kept+"/history/proof?version=1", nil), 404)
	Want(t, c.Do("GET", "/api/todos/"+kept+"/history/proof?version=3", nil), 404)
	Want(t, c.Do("GET", "/api/todos/"+kept+"/history/proof?version=x", nil), 400)
	if n, err := transparency.VerifyHistory(h.Items, bundles, v); err != nil || n != 2 {
		t.Fatalf("history verified offline: %d, %v", n, err)
	}
	if got := Want(t, c.Do("GET", "/api/todos/"+kept+"/history/verify", nil), 200).JSON(t); got["verified"] != true || got["logged"] != 2.0 || got["pending"] != 0.0 {
		t.Fatalf("verify: %v", got)
	}
}

// checkTiles checks that the tiles give the checkpoint's tree, and the
// entry bundles its leaves, to anyone: leaves that name nothing.
func checkTiles(t *testing.T, anyone *Client, cp transparency.Checkpoint) {
	if err := transparency.TreeFromTiles(cp, logTiles(anyone)); err != nil {
		t.Fatal(err)
	}
	if n, withheld, err := transparency.VerifyBundles(cp, logTiles(anyone)); err != nil || n != cp.Size || withheld != 0 {
		t.Fatalf("a stranger's read of the entry bundles: %d entries checked, %d withheld, %v", n, withheld, err)
	}
	Want(t, anyone.Do("GET", "/api/log/tile/0/x1", nil), 400)
	Want(t, anyone.Do("GET", "/api/log/tile/5/999", nil), 404)
}

// checkConsistency checks that a later checkpoint extends the first, cp
// opened from first, by the consistency proof served to anyone.
func checkConsistency(t *testing.T, c *Client, v note.Verifier, settle func(), first []byte, cp transparency.Checkpoint) {
	anyone := c.As("")
	c.Create("Work", "later")
	settle()
	second := Want(t, anyone.Do("GET", "/api/log/checkpoint", nil), 200).Body
	later, err := transparency.OpenCheckpoint(second, v)
	if err != nil || later.Size <= cp.Size {
		t.Fatalf("second checkpoint %s: %v", second, err)
	}
	q := url.Values{"from": {fmt.Sprint(cp.Size)}, "to": {fmt.Sprint(later.Size)}}
	proof, err := transparency.ParseConsistencyProof(Want(t, anyone.Do("GET", "/api/log/consistency?"+q.Encode(), nil), 200).Body)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := transparency.VerifyConsistency(first, second, proof.Proof, v); err != nil {
		t.Fatal(err)
	}
	Want(t, anyone.Do("GET", "/api/log/consistency?from=2&to=1", nil), 400)
}

// checkTampering tampers with the store, as someone with write access to
// it would: it deletes gone's first record and edits the hash of
// edited's, and checks that the admin's audit of the log names both.
func checkTampering(t *testing.T, c *Client, auditC store.Container, gone, edited string) {
	ctx := context.Background()
	if err := auditC.Delete(ctx, store.PartitionKey{todo.EntityKey(c.User, gone)}, todo.AuditID(gone, 1), nil); err != nil {
		t.Fatal(err)
	}
	pk := store.PartitionKey{todo.EntityKey(c.User, edited)}
	it, err := auditC.Read(ctx, pk, todo.AuditID(edited, 1))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(it.Body, &rec); err != nil {
		t.Fatal(err)
	}
	rec["hash"] = strings.Repeat("0", 64)
	body, _ := json.Marshal(rec)
	if _, err := auditC.Upsert(ctx, pk, body, nil); err != nil {
		t.Fatal(err)
	}
	got := Want(t, c.Do("GET", "/api/manage/log/verify", nil), 200).JSON(t)
	if got["verified"] != false || !hasProblem(got, "missingFromStore", gone, 1) || !hasProblem(got, "hashDiffers", edited, 1) {
		t.Fatalf("audit after tampering: %v", got)
	}
}

// hasProblem reports whether a log audit answer names the problem.
func hasProblem(audit map[string]any, kind, id string, version float64) bool {
	list, _ := audit["problems"].([]any)
	for _, p := range list {
		if m, ok := p.(map[string]any); ok && m["kind"] == kind && m["entityId"] == id && m["version"] == version {
			return true
		}
	}
	return false
}

// logTiles reads the log's tiles through the API, as an outsider would.
func logTiles(anyone *Client) transparency.TileFetcher {
	return func(p string) ([]byte, error) {
		r := anyone.Do("GET", "/api/log/"+p, nil)
		if r.Status != 200 {
			return nil, fmt.Errorf("GET %s: %d", p, r.Status)
		}
		if cc := r.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
			return nil, fmt.Errorf("GET %s: Cache-Control %q", p, cc)
		}
		return r.Body, nil
	}
}
