package todo_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/todoaudit/todo"
)

// The contract passes the rules of the tools its users run on it: every
// required parameter has an example (Dredd cannot build a request
// without one), and no schema says nullable without a type beside it
// (Redocly's nullable-type-sibling: OpenAPI 3.0 gives nullable no meaning
// there).
func TestOpenAPIForItsTools(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(todo.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	components, _ := doc["components"].(map[string]any)
	shared, _ := components["parameters"].(map[string]any)
	param := func(p map[string]any) map[string]any {
		if ref, ok := p["$ref"].(string); ok {
			var name string
			fmt.Sscanf(ref, "#/components/parameters/%s", &name)
			p, _ = shared[name].(map[string]any)
		}
		return p
	}
	paths, _ := doc["paths"].(map[string]any)
	checked := 0
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			var ps []any
			if l, ok := ops["parameters"].([]any); ok {
				ps = append(ps, l...)
			}
			if o, ok := op.(map[string]any); ok {
				if l, ok := o["parameters"].([]any); ok {
					ps = append(ps, l...)
				}
			}
			for _, raw := range ps {
				p := param(raw.(map[string]any))
				if p == nil || p["required"] != true {
					continue
				}
				checked++
				schema, _ := p["schema"].(map[string]any)
				_, ex := p["example"]
				_, exs := p["examples"]
				_, sex := schema["example"]
				if !ex && !exs && !sex {
					t.Errorf("%s %s: required parameter %v has no example", method, path, p["name"])
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no required parameter found: the walk reads nothing")
	}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["nullable"] == true && v["type"] == nil {
				t.Errorf("%s: nullable without a type", at)
			}
			for k, c := range v {
				walk(at+"/"+k, c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s/%d", at, i), c)
			}
		}
	}
	walk("#", doc)
}
