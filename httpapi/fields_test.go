package httpapi

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/historytest"
	"github.com/todoaudit/todo/internal/timetext"
)

// viewType is the API view as a struct type built from todo.Todo's shown
// properties with their own tags, a stamp as a stampJSON: the reference
// whose encoding/json output Todo.AppendView must equal, derived like it
// and not listed again.
var viewType = func() reflect.Type {
	var fields []reflect.StructField
	for _, p := range todo.Properties() {
		if p.Shown() {
			f := reflect.TypeFor[todo.Todo]().FieldByIndex(p.Index)
			if p.Stamp {
				f.Type = reflect.TypeFor[stampJSON]()
			}
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
		}
	}
	return reflect.StructOf(fields)
}()

// stampJSON is a stamp as a todo is written with it, in
// timetext.AppendStamp's text (tested there).
type stampJSON time.Time

func (s stampJSON) MarshalJSON() ([]byte, error) {
	return append(timetext.AppendStamp([]byte{'"'}, time.Time(s)), '"'), nil
}

// viewOf copies t's shown properties into a value of viewType.
func viewOf(t *todo.Todo) any {
	v := reflect.New(viewType).Elem()
	src := reflect.ValueOf(t).Elem()
	i := 0
	for _, p := range todo.Properties() {
		if p.Shown() {
			v.Field(i).Set(src.FieldByIndex(p.Index).Convert(v.Field(i).Type()))
			i++
		}
	}
	return v.Interface()
}

// names returns the sorted JSON names of the properties for which keep is
// true.
func names(keep func(p *todo.Property) bool) []string {
	out := propertyNames(keep)
	slices.Sort(out)
	return out
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

// The struct tags of todo.Todo are the one definition of the API view and
// the input: a fully set todo encodes every shown property and nothing
// stored, the OpenAPI schemas Todo, TodoInput and TodoPatch list exactly
// the shown, the editable and again the editable properties, and a patch
// may remove with null exactly the editable ones a todo can lack
// (omitempty), as checkMergePatch allows.
func TestTodoFieldsAgree(t *testing.T) {
	view := names((*todo.Property).Shown)
	editable := names(func(p *todo.Property) bool { return p.Editable })
	for _, internal := range []string{"type", "lastOperation", "updatedBy", "movingTo", "partitionKey", "chain", "prevHash", "hash"} {
		if slices.Contains(view, internal) {
			t.Errorf("the API view shows %s", internal)
		}
	}
	full := filled(t)
	if got := objectKeys(t, full.AppendView(nil)); !slices.Equal(got, view) {
		t.Errorf("AppendView writes %v, the API view is %v", got, view)
	}
	for _, name := range editable {
		if !slices.Contains(view, name) {
			t.Errorf("editable field %s is not in the API view", name)
		}
	}

	spec, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Nullable bool `json:"nullable"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	for schema, want := range map[string][]string{"Todo": view, "TodoInput": editable, "TodoPatch": editable} {
		var got []string
		for k := range doc.Components.Schemas[schema].Properties {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("openapi.json %s has %v, want %v", schema, got, want)
		}
	}
	var nullable []string
	for k, p := range doc.Components.Schemas["TodoPatch"].Properties {
		if p.Nullable {
			nullable = append(nullable, k)
		}
	}
	slices.Sort(nullable)
	if want := names(func(p *todo.Property) bool { return p.Editable && p.OmitEmpty }); !slices.Equal(nullable, want) {
		t.Errorf("openapi.json TodoPatch lets null remove %v, want %v", nullable, want)
	}
	for _, name := range editable {
		null := []byte(`{"` + name + `":null}`)
		if err := checkMergePatch(null); (err == nil) != slices.Contains(nullable, name) {
			t.Errorf("a patch removing %s: %v, but openapi.json says nullable %t", name, err, slices.Contains(nullable, name))
		}
	}
}

// filled returns a todo with every property set to a value omitempty
// keeps.
func filled(t *testing.T) todo.Todo {
	var td todo.Todo
	v := reflect.ValueOf(&td).Elem()
	for _, p := range todo.Properties() {
		historytest.Fill(t, v.FieldByIndex(p.Index), p.Name)
	}
	return td
}
