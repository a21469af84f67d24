package invocation_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/httpapi/invocation"
	"github.com/todoaudit/todo/problem"
)

var update = flag.Bool("update", false, "rewrite golden files")

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// The handler's answer to the golden host invocation: 200, JSON, the audit
// records under the output binding's exact name, ReturnValue null.
func TestTriggerResponseGolden(t *testing.T) {
	req, err := os.ReadFile("../../azfunc/testdata/cosmos-trigger-v4.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := invocation.NewAuditTrigger(trigger.New("todos", quiet), quiet)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	tr.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/AuditTrigger", bytes.NewReader(req)))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	path := filepath.Join("testdata", "audit-trigger-response.json")
	if *update {
		_ = os.WriteFile(path, w.Body.Bytes(), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, w.Body.Bytes()) {
		t.Fatalf("response differs from golden:\n got %s\nwant %s", w.Body, want)
	}
}

// Whatever arrives, the trigger never panics and answers either 200 with
// the host's response shape, whose records are each the deterministic
// record of one version (id, partition key and snapshot agreeing with
// each other, no record twice) or a dead letter that says why, no more of
// them than documents, or 400 with a problem.
func FuzzTrigger(f *testing.F) {
	for _, name := range []string{"cosmos-trigger-v4.json", "cosmos-trigger-v3.json", "cosmos-trigger-array.json"} {
		b, _ := os.ReadFile(filepath.Join("..", "..", "azfunc", "testdata", name))
		f.Add(b)
	}
	f.Add([]byte(`{"Data":{"documents":[{"type":"todo","id":"a:b","userId":"u","version":1}]}}`))
	f.Add([]byte(`{"Data":{"documents":[{"type":"todoVersion","todoId":"x","userId":"u","version":2,"operation":"delete"}]}}`))
	tr, err := invocation.NewAuditTrigger(trigger.New("todos", quiet), quiet)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		w := httptest.NewRecorder()
		tr.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/AuditTrigger", bytes.NewReader(b)))
		switch w.Code {
		case http.StatusOK:
			checkRecords(t, tr, b, w)
		case http.StatusBadRequest:
			var p problem.Problem
			if w.Header().Get("Content-Type") != "application/problem+json" || json.Unmarshal(w.Body.Bytes(), &p) != nil ||
				p.Status != http.StatusBadRequest || p.Detail == "" {
				t.Fatalf("refusal is not a 400 problem: %q %s", w.Header().Get("Content-Type"), w.Body)
			}
		default:
			t.Fatalf("status %d", w.Code)
		}
	})
}

// checkRecords checks a 200 answer to the invocation b.
func checkRecords(t *testing.T, tr *invocation.AuditTrigger, b []byte, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("Content-Type %q", w.Header().Get("Content-Type"))
	}
	var resp struct {
		Outputs     map[string][]json.RawMessage
		Logs        []string
		ReturnValue json.RawMessage
	}
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatalf("answer is not the host's response shape: %v: %s", err, w.Body)
	}
	if len(resp.Logs) == 0 || (resp.ReturnValue != nil && string(resp.ReturnValue) != "null") {
		t.Fatalf("logs %q, return value %s", resp.Logs, resp.ReturnValue)
	}
	req, err := azfunc.DecodeRequest(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("accepted an invocation that does not decode: %v", err)
	}
	docs, err := azfunc.Documents(req.Data[tr.Input])
	if err != nil {
		t.Fatalf("accepted documents that do not decode: %v", err)
	}
	out := resp.Outputs[tr.Output]
	seen := map[string]bool{}
	entries, outputs := 0, 0
	for _, raw := range out {
		var head struct {
			EntityKey string `json:"entityKey"`
		}
		if json.Unmarshal(raw, &head) == nil && todo.IsActivityKey(head.EntityKey) {
			entries++
			continue // checked by the todo package's tests
		}
		outputs++
		var dl todo.DeadLetter
		if err := json.Unmarshal(raw, &dl); err == nil && dl.Type == todo.TypeDeadLetter {
			if !strings.HasPrefix(dl.ID, "dl-") || dl.Reason == "" || len(dl.SHA256) != 64 || dl.EntityKey == "" {
				t.Fatalf("dead letter without its id, reason or digest: %s", raw)
			}
			continue
		}
		var rec todo.AuditRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatalf("output is neither a record nor a dead letter: %s", raw)
		}
		var entity todo.Todo
		if err := json.Unmarshal(rec.Entity, &entity); err != nil {
			t.Fatalf("record %s: entity does not decode: %v", rec.ID, err)
		}
		switch {
		case rec.ID != rec.EntityID+":v"+strconv.FormatInt(rec.Version, 10):
			t.Fatalf("record id %q is not entity %q version %d", rec.ID, rec.EntityID, rec.Version)
		case rec.EntityKey != "todo/"+entity.UserID+"/"+rec.EntityID || rec.EntityType != "todo":
			t.Fatalf("record %s: key %q type %q for user %q", rec.ID, rec.EntityKey, rec.EntityType, entity.UserID)
		case entity.ID != rec.EntityID || entity.Version != rec.Version:
			t.Fatalf("record %s holds entity %q version %d", rec.ID, entity.ID, entity.Version)
		case rec.Version < 1 || !rec.Operation.Valid() || todo.ValidateID(rec.EntityID) != nil:
			t.Fatalf("record %s: version %d, operation %q", rec.ID, rec.Version, rec.Operation)
		case seen[rec.EntityKey+"\x00"+rec.ID]:
			t.Fatalf("record %s of %s twice", rec.ID, rec.EntityKey)
		}
		seen[rec.EntityKey+"\x00"+rec.ID] = true
	}
	if outputs > len(docs) || entries > 2*len(docs) {
		t.Fatalf("%d records and dead letters and %d activity entries from %d documents", outputs, entries, len(docs))
	}
}
