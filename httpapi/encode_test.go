package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/service"
)

func encodingCases() []todo.Todo {
	due := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.FixedZone("x", 3600))
	return []todo.Todo{
		{ID: "Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", UserID: "alice", Fields: todo.Fields{Category: "Grocery", Title: "Get more milk"}, Version: 1,
			CreatedAt: time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC), UpdatedAt: time.Date(2026, 11, 30, 7, 34, 32, 0, time.UTC)},
		{ID: "a", UserID: "b", Fields: todo.Fields{Category: "c<&>", Title: "quote \" back \\ nl \n tab \t ctl \u0001 \u007f é 😀 \u2028 \u2029 bad \xff end",
			Notes: "x", DueDate: &due, Tags: []string{"a", "b\"c"}, IsCompleted: true}, Version: 42, MovedFrom: "z:1"},
	}
}

// A todo's API view is the bytes encoding/json gives.
func TestAppendViewMatchesEncodingJSON(t *testing.T) {
	for _, td := range append(encodingCases(), filled(t)) {
		want, err := json.Marshal(viewOf(&td))
		if err != nil {
			t.Fatal(err)
		}
		if got := td.AppendView(nil); string(got) != string(want) {
			t.Fatalf("AppendView:\n got %s\nwant %s", got, want)
		}
	}
}

// Encoding a todo for a point read allocates nothing beyond its buffer,
// and does not make the todo escape: a point read's result stays on the
// stack.
func TestAppendViewAllocations(t *testing.T) {
	cases := encodingCases()
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() {
		td := cases[1]
		buf = td.AppendView(buf[:0])
	}); n != 0 {
		t.Fatalf("AppendView allocates %v times", n)
	}
}

func BenchmarkAppendView(b *testing.B) {
	td := encodingCases()[1]
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = td.AppendView(buf[:0])
	}
}

// historyPage and activityPage are the bodies of the history and activity
// answers as the contract gives them: writeRecords writes what
// json.Marshal writes of them.
type (
	historyPage struct {
		Items        []service.HistoryItem `json:"items"`
		Continuation *string               `json:"continuation"`
		Complete     bool                  `json:"complete"`
	}
	activityPage struct {
		Items        []todo.AuditRecord `json:"items"`
		Continuation *string            `json:"continuation"`
	}
)

func TestPagesEncodeAsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 6, 7, 13, 53, 51000000, time.UTC)
	rec := todo.AuditRecord{ID: "Grocery:0d:v2", EntityKey: "todo/alice/Grocery:0d", EntityID: "Grocery:0d", EntityType: todo.EntityTypeTodo,
		Version: 2, Operation: todo.OpUpdate, Entity: json.RawMessage(`{"id":"Grocery:0d","title":"a\u003cb"}`), DateCreatedUTC: at,
		Actor: "alice", PrevHash: "0f", Hash: "1e", Chain: 3, Commitments: todo.Commitments{"title": {Salt: "ab", Digest: "cd"}}}
	entry := rec
	entry.Entity, entry.Owner, entry.Category, entry.At = nil, "alice", "Grocery", todo.TimeKey(at)
	changes := []service.Change{{Field: "title", From: "milk", To: "eggs <&>"}}
	get := func(write func(w http.ResponseWriter)) []byte {
		w := httptest.NewRecorder()
		write(w)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("answer %d %q", w.Code, w.Header().Get("Content-Type"))
		}
		return w.Body.Bytes()
	}
	marshal := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	for _, token := range []string{"", `7."a<b"`} {
		var cont *string
		if token != "" {
			cont = &token
		}
		for _, items := range [][]service.HistoryItem{{}, {{AuditRecord: rec}, {AuditRecord: rec, Changes: &changes}}} {
			for _, complete := range []bool{false, true} {
				got := get(func(w http.ResponseWriter) {
					writeRecords(w, items, token, strconv.AppendBool([]byte(`,"complete":`), complete))
				})
				if want := marshal(historyPage{Items: items, Continuation: cont, Complete: complete}); !bytes.Equal(got, want) {
					t.Errorf("history page:\n got %s\nwant %s", got, want)
				}
			}
		}
		for _, items := range [][]todo.AuditRecord{{}, {entry, rec}} {
			got := get(func(w http.ResponseWriter) { writeRecords(w, items, token, nil) })
			if want := marshal(activityPage{Items: items, Continuation: cont}); !bytes.Equal(got, want) {
				t.Errorf("activity page:\n got %s\nwant %s", got, want)
			}
		}
	}
}
