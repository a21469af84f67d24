package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
)

// enumOf returns the allowed values that openapi.json enumerates at path
// (slash-separated member names), each as its text, or false when it
// enumerates none there.
func enumOf(doc map[string]any, path string) ([]string, bool) {
	var at any = doc
	for _, name := range strings.Split(path, "/") {
		m, _ := at.(map[string]any)
		at = m[name]
	}
	m, _ := at.(map[string]any)
	values, ok := m["enum"].([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprint(v)
	}
	return out, true
}

// enumAt is enumOf, failing t when openapi.json enumerates nothing at
// path.
func enumAt(t *testing.T, doc map[string]any, path string) []string {
	t.Helper()
	values, ok := enumOf(doc, path)
	if !ok {
		t.Fatalf("openapi.json enumerates nothing at %s", path)
	}
	return values
}

func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(todo.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// The allowed values openapi.json enumerates are those the code accepts
// or writes, each taken from its one definition in Go.
func TestEnumerationsAgree(t *testing.T) {
	doc := openAPIDoc(t)
	var chains []string
	for n := hashchain.V2; n <= hashchain.Newest; n++ {
		chains = append(chains, fmt.Sprint(n))
	}
	entityTypes := []string{todo.EntityTypeTodo, todo.EntityTypeErasure}
	editableFields := propertyNames(func(p *todo.Property) bool { return p.Editable })
	for path, want := range map[string][]string{
		"components/parameters/sortParam/schema":                 partition.SortFields,
		"components/parameters/orderParam/schema":                slices.Collect(maps.Keys(sortOrders)),
		"components/parameters/operation/schema":                 activityOperations,
		"components/schemas/AuditRecord/properties/operation":    activityOperations,
		"components/schemas/HistoryItem/properties/operation":    activityOperations,
		"components/schemas/AuditRecord/properties/entityType":   entityTypes,
		"components/schemas/HistoryItem/properties/entityType":   entityTypes,
		"components/schemas/AuditRecord/properties/chain":        chains,
		"components/schemas/HistoryItem/properties/chain":        chains,
		"components/schemas/AuditRecord/properties/erased/items": todo.PersonalFields,
		"components/schemas/HistoryItem/properties/erased/items": todo.PersonalFields,
		"components/schemas/Change/properties/field":             editableFields,
	} {
		got, want := enumAt(t, doc, path), slices.Clone(want)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("openapi.json %s enumerates %v, the code %v", path, got, want)
		}
	}
}

// A user-editable text field whose values openapi.json enumerates, in
// TodoInput and TodoPatch alike, is validated to exactly those values: a
// field added with an enumeration needs no list here.
func TestEnumeratedFieldsAreValidated(t *testing.T) {
	doc := openAPIDoc(t)
	for _, p := range todo.Properties() {
		if !p.Editable || p.Type.Kind() != reflect.String {
			continue
		}
		values, ok := enumOf(doc, "components/schemas/TodoInput/properties/"+p.Name)
		patch, _ := enumOf(doc, "components/schemas/TodoPatch/properties/"+p.Name)
		if !slices.Equal(values, patch) {
			t.Errorf("openapi.json enumerates %s as %v in TodoInput and %v in TodoPatch", p.Name, values, patch)
		}
		if !ok {
			continue
		}
		with := func(v string) error {
			td := todo.Todo{Fields: todo.Fields{Category: "Grocery", Title: "t"}}
			reflect.ValueOf(&td).Elem().FieldByIndex(p.Index).SetString(v)
			return td.Validate()
		}
		for _, v := range values {
			if err := with(v); err != nil {
				t.Errorf("%s %q, which openapi.json allows: %v", p.Name, v, err)
			}
		}
		if err := with(values[0] + "-other"); !todo.IsKind(err, todo.Invalid) {
			t.Errorf("%s %q, which openapi.json does not allow: %v", p.Name, values[0]+"-other", err)
		}
	}
}
