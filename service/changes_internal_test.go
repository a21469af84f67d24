package service

import (
	"slices"
	"testing"

	"github.com/todoaudit/todo"
)

// Tags are diffed by element: what was added and what was removed.
func TestChangesTags(t *testing.T) {
	a, b := todo.Fields{Title: "a", Tags: []string{"x", "y"}}, todo.Fields{Title: "b", Tags: []string{"y", "z"}}
	cs := changes(a, b, fieldValues(a), fieldValues(b))
	if len(cs) != 2 || cs[0].Field != "title" || cs[0].From != "a" || cs[0].To != "b" ||
		cs[1].Field != "tags" || !slices.Equal(cs[1].Added, []string{"z"}) || !slices.Equal(cs[1].Removed, []string{"x"}) {
		t.Fatalf("changes %+v", cs)
	}
}
