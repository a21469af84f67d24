package trigger_test

import (
	"bytes"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/todoaudit/todo/audit/trigger"
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
	tr, err := trigger.New("todos", quiet)
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

// Whatever arrives, the trigger answers 200 with JSON or 400, never panics.
func FuzzTrigger(f *testing.F) {
	for _, name := range []string{"cosmos-trigger-v4.json", "cosmos-trigger-v3.json", "cosmos-trigger-array.json"} {
		b, _ := os.ReadFile(filepath.Join("..", "..", "azfunc", "testdata", name))
		f.Add(b)
	}
	f.Add([]byte(`{"Data":{"documents":[{"type":"todo","id":"a:b","userId":"u","version":1}]}}`))
	f.Add([]byte(`{"Data":{"documents":[{"type":"todoVersion","todoId":"x","userId":"u","version":2,"operation":"delete"}]}}`))
	tr, err := trigger.New("todos", quiet)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		w := httptest.NewRecorder()
		tr.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/AuditTrigger", bytes.NewReader(b)))
		if w.Code != 200 && w.Code != 400 {
			t.Fatalf("status %d", w.Code)
		}
		if w.Header().Get("Content-Type") != "application/json" || w.Body.Len() == 0 {
			t.Fatalf("answer without a JSON body: %q", w.Body)
		}
	})
}
