package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/todoaudit/todo/httpapi"
)

func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("openapi.json is not valid (examples included): %v", err)
	}
	return doc
}

// Every served route is documented and every documented route is served.
func TestOpenAPIMatchesRouter(t *testing.T) {
	doc := loadSpec(t)
	var documented, served []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path+" "+fmt.Sprint(item.GetOperation(method).Extensions["x-function"]))
		}
	}
	for _, r := range httpapi.Routes {
		served = append(served, r.Method+" "+r.Path+" "+r.Function)
	}
	sort.Strings(documented)
	sort.Strings(served)
	if strings.Join(documented, "\n") != strings.Join(served, "\n") {
		t.Fatalf("documented:\n%s\n\nserved:\n%s", strings.Join(documented, "\n"), strings.Join(served, "\n"))
	}
}

// Real answers of the running handler have the status each request must
// get, and conform to the document.
func TestResponsesMatchOpenAPI(t *testing.T) {
	doc := loadSpec(t)
	doc.Servers = openapi3.Servers{{URL: "http://127.0.0.1"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := startApp(t, map[string]string{"ADMIN_USERS": "alice"})
	id := s.Create("Grocery", "milk")["id"].(string)
	s.integrate()
	requests := []struct {
		method, path, body string
		headers            []string
		status             int
	}{
		{"GET", "/api/todos?pageSize=1", "", nil, 200},
		{"POST", "/api/todos", `{"category":"Grocery","title":"eggs","tags":["x"],"dueDate":"2026-12-01T09:00:00Z"}`, nil, 201},
		{"POST", "/api/todos", `{"category":"Grocery"}`, nil, 400},
		{"GET", "/api/todos/" + id, "", nil, 200},
		{"GET", "/api/todos/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", "", nil, 404},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"oat milk"}`, nil, 200},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"x"}`, []string{`If-Match: "0000000000000000"`}, 412},
		{"GET", "/api/todos/" + id + "/history", "", nil, 200},
		{"POST", "/api/todos/" + id + "/rollback", `{"version":1}`, nil, 200},
		{"GET", "/api/todos/" + id + "/history/verify", "", nil, 200},
		{"GET", "/api/todos/" + id + "?asOf=2000-01-01T00:00:00Z", "", nil, 404},
		{"GET", "/api/todos/" + id + "?asOf=2100-01-01T00:00:00Z", "", nil, 200},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"x"}`, []string{"If-None-Match: *"}, 412},
		{"POST", "/api/todos/" + id + "/move", `{"category":"Household"}`, nil, 201},
		{"PUT", "/api/todos/" + id, `{"category":"Grocery","title":"x"}`, nil, 409},
		{"DELETE", "/api/todos/" + id, "", nil, 409},
		{"GET", "/api/manage/todos", "", nil, 200},
		{"GET", "/api/manage/todos", "", []string{"X-User-Id: bob"}, 403},
		{"GET", "/api/health", "", nil, 200},
		{"GET", "/api/manage/partitions?top=5", "", nil, 200},
		{"GET", "/api/manage/deadletters?pageSize=5", "", nil, 200},
		{"GET", "/api/log/checkpoint", "", nil, 200},
		{"GET", "/api/log/key", "", nil, 200},
		{"GET", "/api/log/consistency?from=0&to=1", "", nil, 200},
		{"GET", "/api/log/consistency?from=1", "", nil, 400},
		{"GET", "/api/todos/" + id + "/history/proof?version=1", "", nil, 200},
		{"GET", "/api/todos/" + id + "/history/proof?version=99", "", nil, 404},
		{"GET", "/api/manage/log/verify", "", nil, 200},
	}
	for _, rq := range requests {
		var body any
		if rq.body != "" {
			body = rq.body
		}
		r := s.Do(rq.method, rq.path, body, rq.headers...)
		if r.Status != rq.status {
			t.Errorf("%s %s → %d, want %d: %s", rq.method, rq.path, r.Status, rq.status, r.Body)
		}
		req, _ := http.NewRequest(rq.method, "http://127.0.0.1"+rq.path, strings.NewReader(rq.body))
		if rq.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatalf("%s %s: %v", rq.method, rq.path, err)
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.Status, Header: r.Header,
			Body: io.NopCloser(bytes.NewReader(r.Body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s %s → %d does not match openapi.json: %v\n%s", rq.method, rq.path, r.Status, err, r.Body)
		}
	}
}
