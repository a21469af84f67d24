package httpapi

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

// internalFields are the properties of todo.Todo that the API never shows:
// every other one is part of the API view. A field added to todo.Todo is
// therefore either listed here or must appear in the fast encoder, the
// OpenAPI schema and the reference view, or the test below fails.
var internalFields = []string{"type", "lastOperation", "updatedBy", "movingTo", "partitionKey", "prevHash", "hash"}

// propertyNames are the JSON property names of a struct type's fields.
func propertyNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// filled returns a value of type T with every field set to a non-zero
// value.
func filled[T any]() T {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range rv.NumField() {
		f := rv.Field(i)
		switch f.Interface().(type) {
		case time.Time:
			f.Set(reflect.ValueOf(due))
		case *time.Time:
			f.Set(reflect.ValueOf(&due))
		case []string:
			f.Set(reflect.ValueOf([]string{"x"}))
		case todo.Operation:
			f.Set(reflect.ValueOf(todo.OpUpdate))
		default:
			switch f.Kind() {
			case reflect.String:
				f.SetString("x")
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int64, reflect.Int:
				f.SetInt(7)
			default:
				panic("filled: no value for " + f.Type().String())
			}
		}
	}
	return v
}

func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// One definition of the todo's fields, todo.Todo and todo.Fields, and
// everything that lists them again checked against it: the fast encoder,
// the reference view, the input type, SetFields and Fields, and the
// OpenAPI schemas.
func TestTodoFieldsAgree(t *testing.T) {
	var view []string
	for _, name := range propertyNames(reflect.TypeFor[todo.Todo]()) {
		if !slices.Contains(internalFields, name) {
			view = append(view, name)
		}
	}
	full := filled[todo.Todo]()
	if got := objectKeys(t, appendTodo(nil, &full)); !slices.Equal(got, view) {
		t.Errorf("appendTodo writes %v, the API view is %v", got, view)
	}
	if got := propertyNames(reflect.TypeFor[todoView]()); !slices.Equal(got, view) {
		t.Errorf("todoView has %v, the API view is %v", got, view)
	}

	fields := propertyNames(reflect.TypeFor[todo.Fields]())
	if got := propertyNames(reflect.TypeFor[todoInput]()); !slices.Equal(got, fields) {
		t.Errorf("todoInput has %v, todo.Fields %v", got, fields)
	}
	for _, name := range fields {
		if !slices.Contains(view, name) {
			t.Errorf("editable field %s is not in the API view", name)
		}
	}
	f := filled[todo.Fields]()
	var td todo.Todo
	td.SetFields(f)
	if !reflect.DeepEqual(td.Fields(), f) {
		t.Errorf("SetFields then Fields gives %+v, want %+v", td.Fields(), f)
	}

	spec, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	for schema, want := range map[string][]string{"Todo": view, "TodoInput": fields} {
		var got []string
		for k := range doc.Components.Schemas[schema].Properties {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("openapi.json %s has %v, want %v", schema, got, want)
		}
	}
}
