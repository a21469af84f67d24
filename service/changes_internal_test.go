package service

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/historytest"
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

// Every user-editable field of a todo, changed alone, is one change that
// names it, in the order todo.Fields declares them: a field added to the
// todo shows in a history's changes and in a diff with nothing listed
// again.
func TestEveryEditableFieldIsAChange(t *testing.T) {
	var props []todo.Property
	for _, p := range todo.Properties() {
		if p.Editable {
			props = append(props, p)
		}
	}
	var a todo.Todo
	for _, p := range props {
		b := a
		historytest.Fill(t, reflect.ValueOf(&b).Elem().FieldByIndex(p.Index), p.Name)
		cs := changes(a.Fields, b.Fields, fieldValues(a.Fields), fieldValues(b.Fields))
		if len(cs) != 1 || cs[0].Field != p.Name {
			t.Errorf("changing %s alone: changes %+v", p.Name, cs)
		}
		erased := withErased(nil, fieldValues(a.Fields), fieldValues(b.Fields), nil, []string{p.Name})
		if len(erased) != 1 || erased[0].Field != p.Name || !erased[0].Erased {
			t.Errorf("erasing %s: changes %+v", p.Name, erased)
		}
	}
	none := make(fieldValueList, len(changeOrder))
	all := withErased(nil, none, none, nil, changeOrder)
	for i, p := range props {
		if i >= len(all) || all[i].Field != p.Name {
			t.Fatalf("changes of every field are in the order %+v, want that of todo.Fields", all)
		}
	}
}

// A todo's fields as a history's changes show them are what their JSON
// encoding decodes into, however full or empty the fields.
func TestFieldValuesAreTheJSONs(t *testing.T) {
	due := time.Date(2026, 12, 1, 9, 30, 0, 123, time.FixedZone("x", 3600))
	for _, f := range []todo.Fields{
		{},
		{Category: "Work", Title: "t"},
		{Category: "Work", Title: "a \"quoted\" title", Notes: "n", DueDate: &due, Tags: []string{"x", "y"}, IsCompleted: true},
		{Title: "t", Tags: []string{}},
	} {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var object map[string]any
		if err := json.Unmarshal(b, &object); err != nil {
			t.Fatal(err)
		}
		want := make(fieldValueList, len(changeOrder))
		for i, name := range changeOrder {
			want[i] = object[name]
			delete(object, name)
		}
		if got := fieldValues(f); !reflect.DeepEqual(got, want) || len(object) > 0 {
			t.Errorf("fields %+v: %#v, want %#v (and no other property than %v)", f, got, want, object)
		}
	}
}

// sameValue agrees with reflect.DeepEqual on every kind of value
// fieldValues gives.
func TestSameValue(t *testing.T) {
	values := []any{nil, "", "a", "b", true, false, float64(1), float64(2), []any{"x"}, []any{"y"}, []any{}, map[string]any{"a": "b"}}
	for _, x := range values {
		for _, y := range values {
			if got, want := sameValue(x, y), reflect.DeepEqual(x, y); got != want {
				t.Errorf("sameValue(%#v, %#v) = %v, want %v", x, y, got, want)
			}
		}
	}
}
