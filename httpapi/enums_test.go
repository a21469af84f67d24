package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
)

// enumAt returns the allowed values that openapi.json enumerates at path
// (slash-separated member names), each as its text.
func enumAt(t *testing.T, doc map[string]any, path string) []string {
	t.Helper()
	var at any = doc
	for _, name := range strings.Split(path, "/") {
		m, ok := at.(map[string]any)
		if !ok {
			t.Fatalf("openapi.json has no %s", path)
		}
		at = m[name]
	}
	values, ok := at.(map[string]any)["enum"].([]any)
	if !ok {
		t.Fatalf("openapi.json enumerates nothing at %s", path)
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// The allowed values openapi.json enumerates are those the code accepts
// or writes, each taken from its one definition in Go.
func TestEnumerationsAgree(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(todo.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var chains []string
	for n := todo.ChainV2; n <= todo.ChainNewest; n++ {
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
