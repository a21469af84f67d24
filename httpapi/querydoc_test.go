package httpapi_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/todoaudit/todo/httpapi"
)

// docs/api.md's table of query parameters gives every route that takes
// some exactly the ones the route table declares, and lists no other.
func TestQueryParameterTable(t *testing.T) {
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Query parameters\n")
	if !ok {
		t.Fatal("docs/api.md has no section Query parameters")
	}
	section, _, _ = strings.Cut(section, "\n### ")
	code := regexp.MustCompile("`([^`]+)`")
	documented := map[string][]string{}
	for line := range strings.Lines(section) {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 4 {
			continue
		}
		var names []string
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			names = append(names, m[1])
		}
		slices.Sort(names)
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			documented[m[1]] = names
		}
	}
	seen := map[string]bool{}
	for _, rt := range httpapi.Routes {
		route := rt.Method + " " + rt.Path
		seen[route] = true
		var want []string
		for _, p := range rt.Query {
			want = append(want, p.Name)
		}
		slices.Sort(want)
		if got := documented[route]; !slices.Equal(got, want) {
			t.Errorf("%s takes %q; docs/api.md gives %q", route, want, got)
		}
	}
	for route := range documented {
		if !seen[route] {
			t.Errorf("docs/api.md gives parameters of %s, which is no route", route)
		}
	}
}
