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

// appendTodo gives the same bytes as encoding/json.
func TestAppendTodoMatchesEncodingJSON(t *testing.T) {
	for _, td := range append(encodingCases(), filled(t)) {
		want, err := json.Marshal(viewOf(&td))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendTodo(nil, &td); string(got) != string(want) {
			t.Fatalf("appendTodo:\n got %s\nwant %s", got, want)
		}
	}
}

// Encoding a todo for a point read allocates nothing beyond its buffer,
// and does not make the todo escape: a point read's result stays on the
// stack.
func TestAppendTodoAllocations(t *testing.T) {
	cases := encodingCases()
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() {
		td := cases[1]
		buf = appendTodo(buf[:0], &td)
	}); n != 0 {
		t.Fatalf("appendTodo allocates %v times", n)
	}
}

func BenchmarkAppendTodo(b *testing.B) {
	td := encodingCases()[1]
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = appendTodo(buf[:0], &td)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("\"\\\n\x00\u2028<>&\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
