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
		{ID: "Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", UserID: "alice", Category: "Grocery", Title: "Get more milk", Version: 1,
			CreatedAt: time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC), UpdatedAt: time.Date(2026, 11, 30, 7, 34, 32, 0, time.UTC)},
		{ID: "a", UserID: "b", Category: "c<&>", Title: "quote \" back \\ nl \n tab \t ctl \u0001 \u007f é 😀 \u2028 \u2029 bad \xff end",
			Notes: "x", DueDate: &due, Tags: []string{"a", "b\"c"}, IsCompleted: true, Version: 42, MovedFrom: "z:1"},
	}
}

// todoView is the API view as a struct, the reference encoding/json
// output appendTodo must equal.
type todoView struct {
	ID          string     `json:"id"`
	UserID      string     `json:"userId"`
	Category    string     `json:"category"`
	Title       string     `json:"title"`
	Notes       string     `json:"notes,omitempty"`
	DueDate     *time.Time `json:"dueDate,omitempty"`
	Tags        []string   `json:"tags,omitempty"`
	IsCompleted bool       `json:"isCompleted"`
	Version     int64      `json:"version"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	MovedFrom   string     `json:"movedFrom,omitempty"`
}

func viewOf(t todo.Todo) todoView {
	return todoView{ID: t.ID, UserID: t.UserID, Category: t.Category, Title: t.Title, Notes: t.Notes,
		DueDate: t.DueDate, Tags: t.Tags, IsCompleted: t.IsCompleted, Version: t.Version,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, MovedFrom: t.MovedFrom}
}

// appendTodo gives the same bytes as encoding/json.
func TestAppendTodoMatchesEncodingJSON(t *testing.T) {
	for _, td := range encodingCases() {
		want, err := json.Marshal(viewOf(td))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendTodo(nil, &td); string(got) != string(want) {
			t.Fatalf("appendTodo:\n got %s\nwant %s", got, want)
		}
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
