package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo"
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
